package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/ingest/ingesttest"
)

// Files naming URLs (a GML schemaLocation, an xsd:include, a VRT source)
// make GDAL send nothing: the loopback server they name sees no request,
// and the GML files are still read, their fields taken from the features.
func TestScanSendsNothingForURLsInFiles(t *testing.T) {
	tt := ingesttest.NewTattler(t)
	dir := t.TempDir()
	for rel, body := range ingesttest.SSRFFiles(tt.URL) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Scan(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := tt.Requests(); len(got) != 0 {
		t.Errorf("GDAL sent %d request(s) while scanning: %v", len(got), got)
	}
	// The .xsd including URLs is refused before GDAL opens anything.
	ds := dsByKey(res)
	if _, ok := ds["xsd/towns.gml"]; ok || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Message, "reads only files of the upload") {
		t.Errorf("xsd/towns.gml: problems %+v", res.Problems)
	}
	for _, p := range []string{"wfs/towns.gml"} {
		d, ok := ds[p]
		if !ok {
			t.Errorf("%s not found; problems %+v", p, res.Problems)
			continue
		}
		if f := fieldsOf(d); ingesttest.Leaked(f) || d.FeatureCount != 1 {
			t.Errorf("%s: fields %s, %d feature(s)", p, f, d.FeatureCount)
		}
		err := ReadFeatures(context.Background(), dir, d, func(Feature) error { return nil })
		if err != nil {
			t.Errorf("%s: reading: %v", p, err)
		}
	}
	if got := tt.Requests(); len(got) != 0 {
		t.Errorf("GDAL sent %d request(s) while reading: %v", len(got), got)
	}
}

// A GML file's .xsd may include only files below its folder: GDAL would
// follow ../ or absolute includes out of the upload.
func TestGMLSchemaIncludesStayInTheUpload(t *testing.T) {
	dir := t.TempDir()
	files := ingesttest.SSRFFiles("http://127.0.0.1:9")
	gml := files["xsd/towns.gml"]
	outside := filepath.Join(dir, "outside.xsd")
	for rel, body := range map[string]string{
		"up/towns.gml":   gml,
		"up/towns.xsd":   `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:include schemaLocation="../outside.xsd"/></xs:schema>`,
		"abs/towns.gml":  gml,
		"abs/towns.xsd":  `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:include schemaLocation="` + outside + `"/></xs:schema>`,
		"deep/towns.gml": gml,
		"deep/towns.xsd": `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:include schemaLocation="s/ok.xsd"/></xs:schema>`,
		"deep/s/ok.xsd":  `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:include schemaLocation="../../outside.xsd"/></xs:schema>`,
	} {
		p := filepath.Join(dir, "upload", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte(ingesttest.LeakSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Scan(context.Background(), filepath.Join(dir, "upload"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Datasources {
		if ingesttest.Leaked(fieldsOf(d)) {
			t.Errorf("%s: fields %s read from outside the upload", d.Path, fieldsOf(d))
		}
	}
	probs := map[string]string{}
	for _, p := range res.Problems {
		probs[p.Path] = p.Message
	}
	for _, p := range []string{"up/towns.gml", "abs/towns.gml", "deep/towns.gml"} {
		if !strings.Contains(probs[p], "reads only files of the upload") {
			t.Errorf("%s: problem %q", p, probs[p])
		}
	}
}
