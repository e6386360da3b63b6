package dcat_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/dcat"
)

// BenchmarkBuildTurtle1000 builds and writes a page of 1000 full layer
// records (seven distributions each) as Turtle: the largest feed page.
func BenchmarkBuildTurtle1000(b *testing.B) {
	base := records()[0]
	var rs []catalogrecords.Record
	for i := 0; i < 1000; i++ {
		r := base
		r.ID = i + 1
		r.Identifier = fmt.Sprintf("layer-%d", i+1)
		r.FillLinks(origin)
		rs = append(rs, r)
	}
	for b.Loop() {
		var buf bytes.Buffer
		g := dcat.Build(catalog, rs, page())
		_ = dcat.WriteTurtle(&buf, g)
		b.ReportMetric(float64(buf.Len()), "bytes")
	}
}
