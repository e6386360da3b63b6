// Package dcattest reads DCAT feeds with a client that is not ours:
// rdflib (Debian python3-rdflib) parses the Turtle, JSON-LD and RDF/XML
// of one page, says whether the three are the same graph, and checks the
// DCAT-AP 3 mandatory classes and properties (MandatoryAP3). Tests of
// internal/dcat and of the feed's door use it.
package dcattest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/testtier"
)

// MandatoryAP3 is the list the check applies, from DCAT-AP 3.0.1 (SEMIC,
// https://semiceu.github.io/DCAT-AP/releases/3.0.1/, the "Mandatory"
// properties of each class, as its SHACL shapes give them with
// sh:minCount 1): Catalogue dct:title, dct:description, dct:publisher
// and dcat:dataset (when the page has datasets); Dataset dct:title,
// dct:description; Distribution dcat:accessURL; Agent foaf:name; Data
// Service dct:title, dcat:endpointURL; Concept skos:prefLabel; Concept
// Scheme dct:title; Catalogue Record (none are written, checked if any
// appear) dct:modified, foaf:primaryTopic; and every licence a
// dct:LicenseDocument. The feed's own promise is checked beside it:
// every dataset has a dct:license and a distribution with an access or
// download URL.
const MandatoryAP3 = "DCAT-AP 3.0.1 mandatory properties"

// script parses the three files and prints what Result holds.
const script = `
import json, sys
from rdflib import Graph, Namespace, RDF
from rdflib.compare import isomorphic
DCAT = Namespace("http://www.w3.org/ns/dcat#")
DCT = Namespace("http://purl.org/dc/terms/")
FOAF = Namespace("http://xmlns.com/foaf/0.1/")
SKOS = Namespace("http://www.w3.org/2004/02/skos/core#")
graphs = {}
for fmt, path in zip(("turtle", "json-ld", "xml"), sys.argv[1:4]):
    g = Graph()
    g.parse(path, format=fmt)
    graphs[fmt] = g
g = graphs["turtle"]
problems = []
def need(cls, props, label):
    for s in g.subjects(RDF.type, cls):
        for p in props:
            if g.value(s, p) is None:
                problems.append("%s %s has no %s" % (label, s, g.qname(p)))
need(DCAT.Catalog, [DCT.title, DCT.description, DCT.publisher], "catalogue")
need(DCAT.Dataset, [DCT.title, DCT.description, DCT.license], "dataset")
need(DCAT.Distribution, [DCAT.accessURL], "distribution")
need(FOAF.Agent, [FOAF.name], "agent")
need(DCAT.DataService, [DCT.title, DCAT.endpointURL], "data service")
need(SKOS.Concept, [SKOS.prefLabel], "concept")
need(SKOS.ConceptScheme, [DCT.title], "concept scheme")
need(DCAT.CatalogRecord, [DCT.modified, FOAF.primaryTopic], "catalogue record")
datasets = list(g.subjects(RDF.type, DCAT.Dataset))
for c in g.subjects(RDF.type, DCAT.Catalog):
    if datasets and g.value(c, DCAT.dataset) is None:
        problems.append("catalogue %s has no dcat:dataset" % c)
for s, o in g.subject_objects(DCT.license):
    if (o, RDF.type, DCT.LicenseDocument) not in g:
        problems.append("licence %s of %s is no dct:LicenseDocument" % (o, s))
ids = []
for d in datasets:
    ids.append(str(g.value(d, DCT.identifier)))
    dists = list(g.objects(d, DCAT.distribution))
    if not any(g.value(x, DCAT.accessURL) or g.value(x, DCAT.downloadURL) for x in dists):
        problems.append("dataset %s has no distribution with a URL" % d)
paging = {}
HYDRA = Namespace("http://www.w3.org/ns/hydra/core#")
for p in g.subjects(RDF.type, HYDRA.PagedCollection):
    paging = {"total": int(g.value(p, HYDRA.totalItems)), "next": str(g.value(p, HYDRA.next) or "")}
print(json.dumps({
    "triples": {k: len(v) for k, v in graphs.items()},
    "jsonld_same": isomorphic(g, graphs["json-ld"]),
    "rdfxml_same": isomorphic(g, graphs["xml"]),
    "datasets": sorted(ids),
    "problems": problems,
    "paging": paging,
}))
`

// Result is what rdflib read.
type Result struct {
	// Triples counts each syntax's triples (turtle, json-ld, xml).
	Triples map[string]int `json:"triples"`
	// JSONLDSame and RDFXMLSame: isomorphic to the Turtle graph.
	JSONLDSame bool `json:"jsonld_same"`
	RDFXMLSame bool `json:"rdfxml_same"`
	// Datasets are the dct:identifiers of the datasets, sorted.
	Datasets []string `json:"datasets"`
	// Problems break MandatoryAP3.
	Problems []string `json:"problems"`
	// Paging is the hydra:PagedCollection's total and next page.
	Paging struct {
		Total int    `json:"total"`
		Next  string `json:"next"`
	} `json:"paging"`
}

// Read parses the three serialisations of one page with rdflib. It skips
// in the fast tier (it starts Python), and when rdflib is missing outside
// CI.
func Read(t testing.TB, turtle, jsonld, rdfxml []byte) Result {
	t.Helper()
	testtier.FullOnly(t, "runs rdflib in Python")
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import rdflib.compare").Run(); err != nil {
		msg := "python3-rdflib is required: make deps (apt-get install -y python3-rdflib)"
		if os.Getenv("CI") != "" || os.Getenv("GEOPUB_REQUIRE_TOOLS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	var paths []string
	for i, b := range [][]byte{turtle, jsonld, rdfxml} {
		p := filepath.Join(dir, []string{"feed.ttl", "feed.jsonld", "feed.rdf"}[i])
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, python, append([]string{"-c", script}, paths...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("rdflib: %v\n%s", err, out)
	}
	var r Result
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("rdflib said %s: %v", out, err)
	}
	return r
}
