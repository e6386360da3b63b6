package mappreview_test

import (
	"strconv"
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/browsertest"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// TestPopupStaysInMap: the popup of a feature at the map's bottom edge
// whose attributes are taller than the map stays within the map (issue 24,
// 17: its rows were cut off at the bottom edge), its rows scrolling.
func TestPopupStaysInMap(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		if st.Dialect == dialect.Postgres {
			t.Skip("the browser part runs once")
		}
		e := servertest.New(t, st)
		owner := e.NewUser(t, "Owner")
		long := strings.Repeat("a long attribute value ", 200) + "THE END"
		id := publishPrivate(t, e, owner.User, "Two points", "point", []fixture{
			{geom.NewPointFlat(geom.XY, []float64{174.70, -41.20}), "top"},
			{geom.NewPointFlat(geom.XY, []float64{174.80, -41.30}), long},
		})
		p := browsertest.OpenMapPage(t, e.HTTP.URL+"/layers/"+strconv.Itoa(id)+"/", sessionCookie(t, e, owner.User))
		defer p.Close()
		text := p.ClickPopup(p.Project(174.80, -41.30))
		if !strings.Contains(text, "THE END") {
			t.Fatalf("popup after clicking the bottom point: %q", text)
		}
		m := p.MapBox()
		box, scrolls := p.PopupBox()
		if box[0] < m[0]-1 || box[1] < m[1]-1 || box[2] > m[2]+1 || box[3] > m[3]+1 || !scrolls {
			t.Errorf("popup %v (scrolls %v) leaves the map %v", box, scrolls, m)
		}
	})
}
