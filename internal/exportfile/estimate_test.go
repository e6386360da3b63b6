package exportfile

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/featurerows"
)

// estimateItem is realistic data for the size estimates: n points,
// lines of 8 to 30 vertices or 16-sided polygons (a fifth with a hole)
// over New Zealand, or table
// rows, with the attributes of bench/export. It returns the item and its
// Stats as the exports job computes them (RawBytes: stored WKB plus
// attributes JSON).
func estimateItem(kind string, n int) (VectorItem, Stats) {
	rng := rand.New(rand.NewPCG(7, 9))
	type stored struct {
		wkb, attrs []byte
		box        [4]float64
	}
	rows := make([]stored, n)
	var raw, geom int64
	cats := []string{"bridge", "culvert", "ford", "tunnel", "wharf", "Ōtaki ford"}
	for i := range rows {
		x, y := 166+rng.Float64()*13, -47+rng.Float64()*13
		var s stored
		switch kind {
		case "point":
			s.wkb = binary.LittleEndian.AppendUint32([]byte{1}, 1)
			s.wkb = binary.LittleEndian.AppendUint64(s.wkb, math.Float64bits(x))
			s.wkb = binary.LittleEndian.AppendUint64(s.wkb, math.Float64bits(y))
			s.box = [4]float64{x, y, x, y}
		case "linestring":
			k := 8 + i%23
			s.wkb = binary.LittleEndian.AppendUint32([]byte{1}, 2)
			s.wkb = binary.LittleEndian.AppendUint32(s.wkb, uint32(k))
			px, py := x, y
			for range k {
				px, py = px+rng.Float64()*0.01, py+(rng.Float64()-0.5)*0.01
				s.wkb = binary.LittleEndian.AppendUint64(s.wkb, math.Float64bits(px))
				s.wkb = binary.LittleEndian.AppendUint64(s.wkb, math.Float64bits(py))
			}
			s.box = [4]float64{x, min(y, py), px, max(y, py)}
		case "polygon":
			r := 0.005 + rng.Float64()*0.05
			rings := 1
			if i%5 == 0 {
				rings = 2
			}
			s.wkb = binary.LittleEndian.AppendUint32([]byte{1}, 3)
			s.wkb = binary.LittleEndian.AppendUint32(s.wkb, uint32(rings))
			for ring := range rings {
				rr := r * (1 - 0.6*float64(ring))
				s.wkb = binary.LittleEndian.AppendUint32(s.wkb, 17)
				for k := 0; k <= 16; k++ {
					a := 2 * math.Pi * float64(k%16) / 16
					if ring == 1 {
						a = -a
					}
					s.wkb = binary.LittleEndian.AppendUint64(s.wkb, math.Float64bits(x+rr*math.Cos(a)))
					s.wkb = binary.LittleEndian.AppendUint64(s.wkb, math.Float64bits(y+rr*math.Sin(a)*0.75))
				}
			}
			s.box = [4]float64{x - r, y - r, x + r, y + r}
		}
		s.attrs, _ = json.Marshal(map[string]any{
			"id": i + 1, "name": fmt.Sprintf("Feature %d", i+1), "category": cats[i%len(cats)],
			"value":    math.Round(rng.Float64()*1e6) / 1e3,
			"surveyed": time.Date(2000+i%25, time.Month(1+i%12), 1+i%28, 0, 0, 0, 0, time.UTC).Format(time.RFC3339Nano),
			"active":   i%3 != 0,
		})
		raw += int64(len(s.wkb) + len(s.attrs))
		geom += int64(len(s.wkb))
		rows[i] = s
	}
	geomType := kind
	if kind == "table" {
		geomType = ""
	}
	item := VectorItem{
		Name: kind, GeometryType: geomType, Count: int64(n),
		Fields: []Field{{"id", "integer"}, {"name", "string"}, {"category", "string"}, {"value", "double"},
			{"surveyed", "date"}, {"active", "boolean"}},
		Rows: func(ctx context.Context, fn func(*featurerows.RawRow) error) error {
			for i, s := range rows {
				r := featurerows.RawRow{FID: int64(i + 1), Geom: s.wkb, Attrs: s.attrs, Box: s.box, HasBox: kind != "table"}
				if kind == "table" {
					r.Geom = nil
				}
				if err := fn(&r); err != nil {
					return err
				}
			}
			return nil
		},
	}
	return item, Stats{Rows: int64(n), RawBytes: raw, GeomBytes: geom}
}

// TestEstimatesWithinHalf writes realistic points, polygons and a table
// in every format, zips them with Package and checks EstimateZipped is
// within ±50% of the zipped size. The ratios were fitted on the points,
// polygons and table; the lines are held out. It logs the measured figures (run with
// -v to see them); the ratios in formats_vector.go come from them.
func TestEstimatesWithinHalf(t *testing.T) {
	cases := []struct {
		kind string
		k    Kind
		n    int
	}{{"point", KindVector, 20000}, {"polygon", KindVector, 3000}, {"table", KindTable, 10000},
		// Lines are not among the data the ratios were fitted on: they
		// check the ratios carry over.
		{"linestring", KindVector, 5000}}
	for _, c := range cases {
		for _, f := range Formats(c.k) {
			if _, ok := f.Accepts(c.k, c.kind); !ok {
				continue
			}
			t.Run(c.kind+"/"+f.Display, func(t *testing.T) {
				dir := t.TempDir()
				item, st := estimateItem(c.kind, c.n)
				if _, err := WriteVector(context.Background(), dir, item, f, Options{CRS: "EPSG:2193"}); err != nil {
					t.Fatal(err)
				}
				zipped, err := Package(context.Background(), dir, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				est := f.EstimateZipped(st)
				ratio := float64(est) / float64(zipped)
				t.Logf("%-8s %-18s rows %6d raw %9d zipped %9d (%.1f B/row, %.3f of raw) estimate %9d ratio %.2f",
					c.kind, f.Display, st.Rows, st.RawBytes, zipped, float64(zipped)/float64(st.Rows),
					float64(zipped)/float64(st.RawBytes), est, ratio)
				if ratio < 0.5 || ratio > 1.5 {
					t.Errorf("estimate %d for %d zipped bytes: off by more than half", est, zipped)
				}
			})
		}
	}
}
