package ogc_test

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store/storetest"
)

// BenchmarkTileRequests serves cached tiles at zooms 8, 12 and 14 through
// the whole router (authentication, the service rule, ETag, gzip), as an
// anonymous client of a public layer of 20,000 points. Cold tiles are
// measured by internal/vectortiles' BenchmarkTiles.
func BenchmarkTileRequests(b *testing.B) {
	e := servertest.New(b, storetest.Open(b, dialect.SQLite, storetest.Options{}))
	owner := e.NewUser(b, "Owner")
	pts := publishLayer(b, e, owner.User, "Points", "point", randomPoints(5, 20000))
	client := &http.Client{}
	for _, z := range []int{8, 12, 14} {
		x, y := tileXY(tLon, tLat, z)
		url := e.HTTP.URL + tilePath("layer", pts, z, x, y)
		get := func(b *testing.B) {
			resp, err := client.Get(url)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatal(resp.Status)
			}
		}
		b.Run(fmt.Sprintf("cached/z%d", z), func(b *testing.B) {
			get(b) // made once, before the clock runs
			for b.Loop() {
				get(b)
			}
		})
	}
}
