package dcatfeed_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/search/searchtest"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

type env = servertest.Env

// each runs a test body on a fresh service per store.
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		fn(t, servertest.New(t, st))
	})
}

// fixture is a small catalogue of one owner: a public layer with tags, a
// category, a licence and an extent, a private layer, a draft-only
// layer, a table and a published document, indexed.
type fixture struct {
	owner, other *servertest.User
}

func newFixture(t *testing.T, e *env) *fixture {
	t.Helper()
	f := &fixture{owner: e.NewUser(t, "Owner"), other: e.NewUser(t, "Other")}
	ctx := t.Context()
	c := e.Store.Client
	lic := c.License.Create().SetType("cc-by").SetVersion("4.0").SetTitle("Creative Commons Attribution 4.0 International").
		SetLegalCodeURL("https://creativecommons.org/licenses/by/4.0/legalcode").SaveX(ctx)
	c.Category.Create().SetKey("transport").SetName("Transport").SaveX(ctx)
	seed := func(typ layer.Type, name string, draft bool) int {
		l := c.Layer.Create().SetType(typ).SetName(name).SetUserID(f.owner.ID).SaveX(ctx)
		if err := access.GrantDefaults(ctx, c, access.KindLayer, l.ID, f.owner.ID); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		vc := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(f.owner.ID).SetDatasourceIds([]int{}).
			SetStatus(layerversion.StatusOk).SetProgress(1).SetDescription(name + ", as surveyed.").
			SetTags([]string{"roads", "survey"}).SetCategories([]string{"transport"}).SetLicenseID(lic.ID)
		if typ == layer.TypeLayer {
			vc.SetExtent([]float64{174.7, -41.35, 174.85, -41.2})
		}
		if draft {
			vc.SetState(layerversion.StateDraft).SaveX(ctx)
			return l.ID
		}
		v := vc.SetState(layerversion.StatePublished).SetPublishedAt(now).SaveX(ctx)
		l.Update().SetPublishedVersionID(v.ID).SetPublishedAt(now).SetFirstPublishedAt(now).ExecX(ctx)
		return l.ID
	}
	seed(layer.TypeLayer, "Public roads", false)
	secret := seed(layer.TypeLayer, "Secret parcels", false)
	seed(layer.TypeLayer, "Draft rivers", true)
	seed(layer.TypeTable, "Census table", false)
	d := c.Document.Create().SetName("Annual report").SetUserID(f.owner.ID).SaveX(ctx)
	if err := access.GrantDefaults(ctx, c, access.KindDocument, d.ID, f.owner.ID); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	dv := c.DocumentVersion.Create().SetDocumentID(d.ID).SetName("Annual report").SetDatasourceID(1).SetFileKey("documents/x").
		SetFileName("report.pdf").SetExtension("pdf").SetFileSize(2048).SetCreatedBy(f.owner.ID).
		SetState("published").SetPublishedAt(now).SaveX(ctx)
	c.Document.UpdateOne(d).SetPublishedVersionID(dv.ID).SetPublishedAt(now).ExecX(ctx)
	// The secret layer: only its owner's admin grant left.
	r := e.Do(t, servertest.Request{Method: "PUT", Path: fmt.Sprintf("/layers/%d/permissions/", secret), Key: f.owner.Key,
		Body: []any{map[string]any{"permission": "admin", "user": f.owner.ID}}})
	if r.Status != http.StatusOK {
		t.Fatalf("making the layer private: %d %s", r.Status, r.Body)
	}
	searchtest.Index(t, e.Store, nil)
	return f
}

// public are the datasets anyone sees; the owner also sees the secret.
var public = []string{"Annual report", "Census table", "Public roads"}

// dataTitles is what /data/ lists for key, sources left out (as the
// records contract does), sorted.
func dataTitles(t *testing.T, e *env, key string) []string {
	t.Helper()
	r := e.Do(t, servertest.Request{Path: "/data/?type=layer&type=table&type=set&type=document&type=catalogitem&page_size=100", Key: key})
	if r.Status != http.StatusOK {
		t.Fatalf("/data/: %d %s", r.Status, r.Body)
	}
	var es []struct{ Title string }
	r.JSON(t, &es)
	var out []string
	for _, en := range es {
		out = append(out, en.Title)
	}
	sort.Strings(out)
	return out
}

// get fetches a feed URL (path under the service's root) as key with
// extra headers.
func get(t *testing.T, e *env, key, path string, header map[string]string) *servertest.Response {
	t.Helper()
	return e.Do(t, servertest.Request{Path: e.HTTP.URL + path, Key: key, Header: header})
}

// jsonLDPage is a JSON-LD page read plainly: its dataset titles and the
// hydra next page.
func jsonLDPage(t *testing.T, r *servertest.Response) (titles []string, next string, total int) {
	t.Helper()
	var doc struct {
		Graph []map[string]any `json:"@graph"`
	}
	r.JSON(t, &doc)
	for _, n := range doc.Graph {
		types, _ := n["@type"].([]any)
		if slices.Contains(types, any("dcat:Dataset")) {
			s, _ := n["dct:title"].(string)
			titles = append(titles, s)
		}
		if slices.Contains(types, any("hydra:PagedCollection")) {
			if nx, ok := n["hydra:next"].(map[string]any); ok {
				next, _ = nx["@id"].(string)
			}
			if ti, ok := n["hydra:totalItems"].(map[string]any); ok {
				fmt.Sscan(fmt.Sprint(ti["@value"]), &total)
			}
		}
	}
	sort.Strings(titles)
	return titles, next, total
}

// usPage is a data.json page: its dataset titles and next page.
func usPage(t *testing.T, r *servertest.Response) (titles []string, next string) {
	t.Helper()
	var doc struct {
		Dataset []struct{ Title string }
		Next    string
	}
	r.JSON(t, &doc)
	for _, d := range doc.Dataset {
		titles = append(titles, d.Title)
	}
	sort.Strings(titles)
	return titles, doc.Next
}

func mustJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return m
}
