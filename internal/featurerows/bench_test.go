package featurerows

import (
	"context"
	"database/sql"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/store/storetest"
)

// BenchmarkWrite writes 100,000 points with a few attributes per
// iteration, in one transaction, on each backend.
func BenchmarkWrite(b *testing.B) {
	const n = 100_000
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = Row{
			FID:  int64(i + 1),
			Geom: wkbPoint(166+float64(i%1000)/100, -47+float64(i/1000)/10),
			Attrs: map[string]any{
				"name":  "Feature " + string(rune('A'+i%26)),
				"value": float64(i) * 1.5,
				"count": int64(i),
				"flag":  i%2 == 0,
			},
		}
	}
	for _, d := range storetest.Backends {
		b.Run(d, func(b *testing.B) {
			st := storetest.Open(b, d, storetest.Options{})
			ctx := context.Background()
			version := 0
			for b.Loop() {
				version++
				err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
					w, err := NewWriter(ctx, st, tx, version)
					if err != nil {
						return err
					}
					for _, r := range rows {
						if err := w.Write(r); err != nil {
							return err
						}
					}
					_, err = w.Close()
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
