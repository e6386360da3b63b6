package ogc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// cswOWSLibScript reads the capabilities with OWSLib's CSW 2.0.2 client,
// pages through GetRecords with a BBox and a PropertyIsLike, and reads
// one record as ISO 19139 through OWSLib's MD_Metadata, printing JSON.
const cswOWSLibScript = `
import json, sys
from owslib.csw import CatalogueServiceWeb
from owslib.fes import PropertyIsLike, BBox, And
url, key, rid = sys.argv[1], sys.argv[2], sys.argv[3]
csw = CatalogueServiceWeb(url, version="2.0.2", headers={"Authorization": "key " + key})
out = {"title": csw.identification.title, "version": csw.version,
       "operations": [op.name for op in csw.operations]}
constraint = And([PropertyIsLike("dc:title", "%catalogue%", wildCard="%"), BBox([169, -46, 180, -39])])
ids, start, pages = [], 1, 0
while start and pages < 20:
    csw.getrecords2(constraints=[constraint], startposition=start, maxrecords=5, esn="summary")
    ids += list(csw.records.keys())
    out["matched"] = csw.results["matches"]
    start, pages = csw.results["nextrecord"], pages + 1
out["ids"], out["pages"] = ids, pages
csw.getrecordbyid(id=[rid], outputschema="http://www.isotc211.org/2005/gmd")
md = csw.records[rid]
ident = md.identification[0] if isinstance(md.identification, list) else md.identification
bb = ident.extent.boundingBox
out["iso"] = {"id": md.identifier, "title": ident.title, "abstract": ident.abstract,
    "bbox": [float(bb.minx), float(bb.miny), float(bb.maxx), float(bb.maxy)],
    "urls": [o.url for o in md.distribution.online], "protocols": [o.protocol for o in md.distribution.online]}
print(json.dumps(out))
`

// OWSLib (Debian python3-owslib) as a CSW 2.0.2 harvester would use it.
func testCSWOWSLib(t *testing.T, f *cswFixture) {
	if testing.Short() {
		t.Skip("starts python")
	}
	python := requireTool(t, "/usr/bin/python3", "python3-owslib")
	if err := exec.Command(python, "-c", "import owslib.csw, owslib.iso").Run(); err != nil {
		requireTool(t, "/usr/lib/python3/dist-packages/owslib/missing", "python3-owslib") // fails in CI, skips elsewhere
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rid := fmt.Sprintf("layer-%d", f.public[3])
	b, err := exec.CommandContext(ctx, python, "-W", "ignore", "-c", cswOWSLibScript, f.e.HTTP.URL+"/services/csw/", f.reader.Key, rid).CombinedOutput()
	if err != nil {
		t.Fatalf("owslib: %v\n%s", err, b)
	}
	var got struct {
		Title, Version string
		Operations     []string
		Matched, Pages int
		IDs            []string
		ISO            struct {
			ID, Title, Abstract string
			BBox                []float64
			URLs, Protocols     []string
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	var want []string
	for _, id := range f.public {
		want = append(want, fmt.Sprintf("layer-%d", id))
	}
	sorted := slices.Sorted(slices.Values(got.IDs))
	slices.Sort(want)
	switch {
	case got.Version != "2.0.2", !slices.Contains(got.Operations, "GetRecords"), !slices.Contains(got.Operations, "GetDomain"):
		t.Errorf("OWSLib capabilities %+v", got)
	case got.Matched != cswPublic || got.Pages != 3 || !slices.Equal(sorted, want):
		t.Errorf("OWSLib paging: matched %d in %d pages, ids %v, want %v", got.Matched, got.Pages, got.IDs, want)
	case got.ISO.ID != rid || got.ISO.Title != "Catalogue lake 03" || got.ISO.Abstract != "Abstract of Catalogue lake 03.":
		t.Errorf("OWSLib ISO %+v", got.ISO)
	case !slices.Equal(got.ISO.BBox, []float64{171.5, -45, 171.9, -40}):
		t.Errorf("OWSLib ISO extent %v", got.ISO.BBox)
	case len(got.ISO.URLs) < 3 || !strings.Contains(strings.Join(got.ISO.URLs, " "), "/services/csw/") || !slices.Contains(got.ISO.Protocols, "OGC:CSW"):
		t.Errorf("OWSLib ISO distribution %v %v", got.ISO.URLs, got.ISO.Protocols)
	}
}
