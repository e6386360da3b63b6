package server_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// accountsPrivateLayer stores a published vector layer of owner's with one
// point, which only owner may see.
func accountsPrivateLayer(t *testing.T, e *servertest.Env, owner *ent.User) int {
	t.Helper()
	ctx := context.Background()
	var id int
	err := e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		now := time.Now().UTC()
		l, err := c.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindVector).SetName("Accounts private layer").
			SetUserID(owner.ID).SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName(l.Name).SetCreatedBy(owner.ID).
			SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).
			SetDatasourceIds([]int{}).SetPublishedAt(now).SetCrs("EPSG:4326").SetGeometryType("Point").
			SetGeometryField("GEOMETRY").SetFields([]schematype.Field{{Name: "GEOMETRY", Type: "geometry"}, {Name: "name", Type: "string"}}).
			SetFeatureCount(1).SetExtent([]float64{174.7, -41.3, 174.8, -41.2}).Save(ctx)
		if err != nil {
			return err
		}
		w, err := featurerows.NewWriter(ctx, e.Store, tx, v.ID)
		if err != nil {
			return err
		}
		b, err := wkb.Marshal(geom.NewPointFlat(geom.XY, []float64{174.75, -41.25}), binary.LittleEndian)
		if err != nil {
			return err
		}
		if err := w.Write(featurerows.Row{FID: 1, Geom: b, Attrs: map[string]any{"name": "Wellington"}}); err != nil {
			return err
		}
		if _, err := w.Close(); err != nil {
			return err
		}
		id = l.ID
		if err := c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
			return err
		}
		return access.GrantCreator(ctx, c, access.KindLayer, l.ID, owner.ID)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := e.Store.Client.DatasetPermission.Query().Where(datasetpermission.DatasetID(id),
		datasetpermission.SubjectEQ(datasetpermission.SubjectEveryone)).Count(ctx); n != 0 {
		t.Fatal("the layer is not private")
	}
	return id
}

// accountsDoor is one way into the site with a key.
type accountsDoor struct {
	name string
	path string
	// param puts the key in the query (key=) instead of the header.
	param bool
}

func accountsDoors(e *servertest.Env, layerID int) []accountsDoor {
	return []accountsDoor{
		{"REST", e.API + fmt.Sprintf("/layers/%d/", layerID), false},
		{"OGC API Features", e.HTTP.URL + fmt.Sprintf("/services/ogc/features/collections/layer-%d/items", layerID), false},
		{"WFS", e.HTTP.URL + fmt.Sprintf("/services/wfs/?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&OUTPUTFORMAT=application/json&COUNT=1&TYPENAMES=geopub:layer-%d", layerID), false},
		{"tiles", e.HTTP.URL + fmt.Sprintf("/services/tiles/v1/layer=%d/0/0/0.pbf", layerID), false},
		{"point query", e.HTTP.URL + fmt.Sprintf("/services/query/v1/vector.json?layer=%d&x=174.75&y=-41.25&max_results=1&radius=1000", layerID), true},
	}
}

func (d accountsDoor) call(t *testing.T, e *servertest.Env, key string) *servertest.Response {
	t.Helper()
	if d.param {
		return e.Do(t, servertest.Request{Path: d.path + "&key=" + key})
	}
	return e.Do(t, servertest.Request{Path: d.path, Key: key})
}

// accountsGraphQL asks GraphQL for the layer with key: its HTTP status.
func accountsGraphQL(t *testing.T, e *servertest.Env, key string, layerID int) int {
	t.Helper()
	r := e.Do(t, servertest.Request{Method: http.MethodPost, Path: e.HTTP.URL + "/graphql", Key: key,
		Body: map[string]any{"query": fmt.Sprintf(`{ layer(id: %d) { id } }`, layerID)}})
	if r.Status == http.StatusOK {
		var out servertest.GraphQLResponse
		r.JSON(t, &out)
		if len(out.Errors) > 0 {
			return http.StatusUnauthorized
		}
	}
	return r.Status
}

// After a site administrator locks or deletes a user through the API,
// every door refuses the user's key within a second: REST, GraphQL, OGC
// API Features and WFS on their private layer, vector tiles, point
// queries with key=, and their open GraphQL websocket and SSE streams end.
func TestAccountsLockAndDeleteCloseEveryDoor(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		admin := e.NewUser(t, "AccountsAdmin", servertest.SiteAdmin)
		for _, action := range []string{"lock", "delete"} {
			t.Run(action, func(t *testing.T) {
				victim := e.NewUser(t, "AccountsVictim")
				layerID := accountsPrivateLayer(t, e, victim.User)
				doors := accountsDoors(e, layerID)
				for _, d := range doors {
					if r := d.call(t, e, victim.Key); r.Status != http.StatusOK {
						t.Fatalf("%s before the %s: %d %s", d.name, action, r.Status, r.Body)
					}
				}
				if s := accountsGraphQL(t, e, victim.Key, layerID); s != http.StatusOK {
					t.Fatalf("GraphQL before the %s: %d", action, s)
				}
				c := credential{key: victim.Key}
				ws := dialWS(t, e, "graphql-transport-ws", c)
				sse := openSSE(t, sseRequest(t, e, c, ""))
				time.Sleep(100 * time.Millisecond) // subscribed
				publishTo(t, e, victim.ID, "before")
				if kind := ws.next(); kind != "before" {
					t.Fatalf("websocket: first notification %q", kind)
				}
				if kind, _ := sse.notification(); kind != "before" {
					t.Fatalf("SSE: first notification %q", kind)
				}

				req := servertest.Request{Method: http.MethodPost, Path: fmt.Sprintf("/users/%d/lock/", victim.ID), Key: admin.Key}
				if action == "delete" {
					req = servertest.Request{Method: http.MethodDelete, Path: fmt.Sprintf("/users/%d/?receiver=user.%d", victim.ID, admin.ID), Key: admin.Key}
				}
				if r := e.Do(t, req); r.Status != http.StatusOK {
					t.Fatalf("%s: %d %s", action, r.Status, r.Body)
				}
				start := time.Now()
				if code := ws.closeCode(time.Second); code != 4401 {
					t.Fatalf("websocket close code %d, want 4401", code)
				}
				expectSSERevoked(t, sse, "UNAUTHENTICATED", start)

				deadline := start.Add(time.Second)
				for {
					open := []string{}
					for _, d := range doors {
						if r := d.call(t, e, victim.Key); r.Status != http.StatusUnauthorized {
							open = append(open, fmt.Sprintf("%s %d", d.name, r.Status))
						}
					}
					if s := accountsGraphQL(t, e, victim.Key, layerID); s != http.StatusUnauthorized {
						open = append(open, fmt.Sprintf("GraphQL %d", s))
					}
					if len(open) == 0 {
						t.Logf("every door refused %v after the %s", time.Since(start), action)
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("a second after the %s, still open: %v", action, open)
					}
					time.Sleep(20 * time.Millisecond)
				}
			})
		}
	})
}
