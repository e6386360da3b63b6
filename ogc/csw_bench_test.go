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

// BenchmarkCSWGetRecords serves GetRecords pages of 100 through the whole
// router, as an anonymous client of a catalogue of 300 public layers:
// summary records, the same with a PropertyIsLike constraint (which
// needs a scan of every candidate for the count), and full ISO 19139.
func BenchmarkCSWGetRecords(b *testing.B) {
	e := servertest.New(b, storetest.Open(b, dialect.SQLite, storetest.Options{}))
	owner := e.NewUser(b, "Owner")
	const n = 300
	for i := 0; i < n; i++ {
		cswLayer(b, e, owner.User, i%28, fmt.Sprintf("Bench layer %03d", i), true)
	}
	waitFresh()
	like := `<Filter><PropertyIsLike wildCard="*" singleChar="?" escapeChar="\"><PropertyName>dc:title</PropertyName><Literal>*layer 1*</Literal></PropertyIsLike></Filter>`
	for _, c := range []struct{ name, query string }{
		{"summary", kvp("service", "CSW", "version", "2.0.2", "request", "GetRecords", "typeNames", "csw:Record", "maxRecords", "100", "startPosition", "101")},
		{"like", kvp("service", "CSW", "version", "2.0.2", "request", "GetRecords", "typeNames", "csw:Record", "maxRecords", "100",
			"constraintLanguage", "FILTER", "constraint", like)},
		{"iso19139", kvp("service", "CSW", "version", "2.0.2", "request", "GetRecords", "typeNames", "csw:Record", "maxRecords", "100",
			"outputSchema", "http://www.isotc211.org/2005/gmd", "elementSetName", "full")},
	} {
		b.Run(c.name, func(b *testing.B) {
			url := e.HTTP.URL + "/services/csw/?" + c.query
			records := 0
			for b.Loop() {
				resp, err := http.Get(url)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatal(resp.Status)
				}
				records += 100
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
