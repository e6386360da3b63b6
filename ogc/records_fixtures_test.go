package ogc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/search/searchtest"
	"github.com/geopub/geopub/internal/server/servertest"
)

// recordsFixture is a small catalogue: public layers of a group and of
// a user, a table, a private layer (the only dataset of a second group),
// a draft-only layer, and a layer whose published version carries an
// uploaded ISO 19139 document; indexed.
type recordsFixture struct {
	e                       *env
	owner, reader           *servertest.User
	noScope                 string // a token of the reader without the catalogue scope
	harbour, quiet          *ent.Group
	roads, parks, census    int
	private, draft, withISO int
}

// recordIDs are the identifiers the fixture's datasets have.
func (f *recordsFixture) id(t catalogrecords.Type, n int) string {
	return catalogrecords.Identifier(t, n)
}

// public are the records anyone sees.
func (f *recordsFixture) public() []string {
	out := []string{f.id("layer", f.roads), f.id("layer", f.parks), f.id("table", f.census), f.id("layer", f.withISO)}
	slices.Sort(out)
	return out
}

func newRecordsFixture(t *testing.T, e *env) *recordsFixture {
	t.Helper()
	ctx := context.Background()
	f := &recordsFixture{e: e, owner: e.NewUser(t, "Owner"), reader: e.NewUser(t, "Reader")}
	f.noScope = e.Token(t, f.reader.User, "query layers:read")
	gs := e.SeedGroups(t, "Harbour board ", 2, f.owner.User, groupmembership.PermissionAdmin)
	f.harbour, f.quiet = gs[0], gs[1]
	fields := []schematype.Field{{Name: "name", Type: "string"}}
	one := []feature{{1, pt(174.8, -41.3), map[string]any{"name": "a"}}}
	layerOf := func(name string, box []float64, g *ent.Group) int {
		id := publish(t, e, f.owner.User, layer.TypeLayer, name, "point", fields, one)
		e.Store.Client.LayerVersion.Update().Where(layerversion.LayerID(id)).SetExtent(box).ExecX(ctx)
		if g != nil {
			e.Store.Client.Layer.UpdateOneID(id).SetGroupID(g.ID).ExecX(ctx)
		}
		return id
	}
	f.roads = layerOf("Harbour roads", []float64{174.7, -41.35, 174.9, -41.2}, f.harbour)
	f.parks = layerOf("Auckland parks", []float64{174.6, -37.0, 174.9, -36.8}, nil)
	e.Store.Client.LayerVersion.Update().Where(layerversion.LayerID(f.parks)).SetDescription(Hostile).ExecX(ctx)
	f.census = publish(t, e, f.owner.User, layer.TypeTable, "Census table", "", fields, []feature{{1, nil, map[string]any{"name": "row"}}})
	f.private = layerOf("Secret parcels", []float64{174.75, -41.3, 174.8, -41.25}, f.quiet)
	f.call(t, f.owner.Key, "PUT", fmt.Sprintf("/layers/%d/permissions/", f.private), fmt.Sprintf(`[{"permission": "admin", "user": %d}]`, f.owner.User.ID), http.StatusOK)
	f.draft = seedDraftLayer(t, e, f.owner.User, "Draft rivers")
	f.withISO = f.layerWithISO(t, "Metadata roads")
	searchtest.Index(t, e.Store, nil)
	return f
}

// seedDraftLayer is a layer that was never published.
func seedDraftLayer(t *testing.T, e *env, owner *ent.User, name string) int {
	ctx := context.Background()
	c := e.Store.Client
	l := c.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindVector).SetName(name).SetUserID(owner.ID).SaveX(ctx)
	if err := access.GrantDefaults(ctx, c, access.KindLayer, l.ID, owner.ID); err != nil {
		t.Fatal(err)
	}
	c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(owner.ID).SetDatasourceIds([]int{}).
		SetState(layerversion.StateDraft).SetStatus(layerversion.StatusOk).SetProgress(1).SetExtent([]float64{174, -41, 175, -40}).SaveX(ctx)
	return l.ID
}

// layerWithISO publishes a layer whose published version holds the ISO
// 19139 fixture, uploaded through the REST API to a draft that is then
// published (as a publish leaves it).
func (f *recordsFixture) layerWithISO(t *testing.T, name string) int {
	ctx := context.Background()
	c := f.e.Store.Client
	id := publish(t, f.e, f.owner.User, layer.TypeLayer, name, "point", []schematype.Field{{Name: "name", Type: "string"}}, nil)
	draft := c.LayerVersion.Create().SetLayerID(id).SetName(name).SetCreatedBy(f.owner.User.ID).SetDatasourceIds([]int{}).
		SetStatus(layerversion.StatusOk).SetProgress(1).SetCrs("EPSG:4326").SaveX(ctx)
	iso, err := os.ReadFile(filepath.Join("..", "internal", "metadata", "testdata", "iso19139.xml"))
	if err != nil {
		t.Fatal(err)
	}
	r := f.e.Do(t, servertest.Request{Method: "POST", Path: fmt.Sprintf("/layers/%d/versions/%d/metadata/", id, draft.ID),
		Key: f.owner.Key, Body: iso, Header: map[string]string{"Content-Type": "text/xml"}})
	if r.Status != http.StatusCreated {
		t.Fatalf("metadata upload: %d %s", r.Status, r.Body)
	}
	now := time.Now().UTC()
	c.LayerVersion.Update().Where(layerversion.LayerID(id), layerversion.IDNEQ(draft.ID)).SetState(layerversion.StateSuperseded).ExecX(ctx)
	c.LayerVersion.UpdateOne(draft).SetState(layerversion.StatePublished).SetPublishedAt(now).ExecX(ctx)
	c.Layer.UpdateOneID(id).SetPublishedVersionID(draft.ID).SetPublishedAt(now).ExecX(ctx)
	return id
}

func (f *recordsFixture) call(t *testing.T, key, method, path, body string, want int) {
	t.Helper()
	r := f.e.Do(t, servertest.Request{Method: method, Path: path, Key: key, Body: body})
	if r.Status != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, r.Status, want, r.Body)
	}
}

// get fetches a path under the Records root (or an absolute URL) with
// an optional key in the Authorization header, and header pairs.
func (f *recordsFixture) get(t *testing.T, key, path string, header ...string) response {
	t.Helper()
	u := path
	if !strings.HasPrefix(u, "http") {
		u = f.e.HTTP.URL + "/services/ogc/records" + path
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "key "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// recordPage is an items answer.
type recordPage struct {
	Type           string
	NumberMatched  int
	NumberReturned int
	Features       []recordJSON
	Links          []struct{ Href, Rel, Type string }
}

// recordJSON is a record as the API writes it.
type recordJSON struct {
	ID         string
	Type       string
	Geometry   *struct{ Coordinates [][][]float64 }
	Properties struct {
		Type, Title, Description, License, Updated string
		Keywords                                   []string
	}
	Links []struct{ Href, Rel, Type, Title string }
}

// items fetches an items path and returns its record ids, sorted.
func (f *recordsFixture) items(t *testing.T, key, path string) (recordPage, []string) {
	t.Helper()
	var p recordPage
	f.get(t, key, path).json(t, http.StatusOK, "application/geo+json", &p)
	var ids []string
	for _, r := range p.Features {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return p, ids
}

// all follows next links from path and returns every id in order.
func (f *recordsFixture) all(t *testing.T, key, path string) []string {
	t.Helper()
	var ids []string
	for page := 0; path != ""; page++ {
		if page > 50 {
			t.Fatal("next links do not end")
		}
		p, _ := f.items(t, key, path)
		for _, r := range p.Features {
			ids = append(ids, r.ID)
		}
		path = ""
		for _, l := range p.Links {
			if l.Rel == "next" {
				path = l.Href
			}
		}
	}
	return ids
}

// restIDs are the identifiers /data/ lists for the caller, sources left
// out.
func (f *recordsFixture) restIDs(t *testing.T, key string) []string {
	t.Helper()
	r := f.e.Do(t, servertest.Request{Path: "/data/?page_size=100", Key: key})
	if r.Status != http.StatusOK {
		t.Fatalf("/data/: %d %s", r.Status, r.Body)
	}
	var es []struct {
		ID   json.RawMessage
		Type string
	}
	if err := json.Unmarshal(r.Body, &es); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.Type == "source" {
			continue
		}
		id := strings.Trim(string(e.ID), `"`)
		out = append(out, e.Type+"-"+id)
	}
	slices.Sort(out)
	return out
}
