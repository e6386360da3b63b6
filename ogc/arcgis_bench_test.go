package ogc_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store/storetest"
)

// BenchmarkArcGISQueryPages reads a public layer of 100,000 points page
// after page through the whole router: FeatureServer queries (pages of
// 2000 by resultOffset, in Esri JSON, GeoJSON and PBF) beside OGC API -
// Features items pages of the same size (following next links). Each
// iteration is one page; features/s is reported.
func BenchmarkArcGISQueryPages(b *testing.B) {
	const n, page = 100000, 2000
	e := servertest.New(b, storetest.Open(b, dialect.SQLite, storetest.Options{}))
	owner := e.NewUser(b, "Owner")
	id := publishLayer(b, e, owner.User, "Points", "point", randomPoints(9, n))
	client := &http.Client{}
	get := func(b *testing.B, u string) []byte {
		resp, err := client.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatal(resp.Status, string(body))
		}
		return body
	}
	report := func(b *testing.B, start time.Time, features int) {
		b.ReportMetric(float64(features)/time.Since(start).Seconds(), "features/s")
	}
	for _, f := range []string{"json", "geojson", "pbf"} {
		b.Run("featureserver/"+f, func(b *testing.B) {
			base := fmt.Sprintf("%s/services/arcgis/rest/services/layer_%d/FeatureServer/0/query?where=1%%3D1&outFields=*&f=%s&resultRecordCount=%d", e.HTTP.URL, id, f, page)
			off, features, start := 0, 0, time.Now()
			for b.Loop() {
				get(b, fmt.Sprintf("%s&resultOffset=%d", base, off))
				features += page
				if off += page; off >= n {
					off = 0
				}
			}
			report(b, start, features)
		})
	}
	b.Run("featureserver/json/uncached-offset", func(b *testing.B) {
		// An offset no page led to: found on the (version_id, fid) index.
		base := fmt.Sprintf("%s/services/arcgis/rest/services/layer_%d/FeatureServer/0/query?where=1%%3D1&outFields=*&f=json&resultRecordCount=%d", e.HTTP.URL, id, page)
		features, start, i := 0, time.Now(), 0
		for b.Loop() {
			i++
			get(b, fmt.Sprintf("%s&resultOffset=%d", base, (i*7919)%(n-page)+1))
			features += page
		}
		report(b, start, features)
	})
	b.Run("ogcfeatures/items", func(b *testing.B) {
		first := fmt.Sprintf("%s/services/ogc/features/collections/layer-%d/items?limit=%d", e.HTTP.URL, id, page)
		next, features, start := first, 0, time.Now()
		for b.Loop() {
			var p struct {
				Links []struct{ Rel, Href string }
			}
			if err := json.Unmarshal(get(b, next), &p); err != nil {
				b.Fatal(err)
			}
			features += page
			next = first
			for _, l := range p.Links {
				if l.Rel == "next" {
					next = strings.Replace(l.Href, "http://example.com", e.HTTP.URL, 1)
				}
			}
		}
		report(b, start, features)
	})
	_ = servertest.QueryFresh
}
