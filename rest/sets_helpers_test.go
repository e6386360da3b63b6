package rest_test

import (
	"github.com/geopub/geopub/internal/access"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
)

// setRecord is a set as REST renders it.
type setRecord struct {
	ID               int     `json:"id"`
	URL              string  `json:"url"`
	Type             string  `json:"type"`
	Title            string  `json:"title"`
	Description      string  `json:"description"`
	DescriptionHTML  string  `json:"description_html"`
	Items            []any   `json:"items"`
	PublishedVersion *string `json:"published_version"`
	LatestVersion    string  `json:"latest_version"`
	ThisVersion      string  `json:"this_version"`
	Permissions      string  `json:"permissions"`
	User             *struct {
		ID int `json:"id"`
	} `json:"user"`
	Group *struct {
		ID int `json:"id"`
	} `json:"group"`
	Version struct {
		ID        int    `json:"id"`
		URL       string `json:"url"`
		State     string `json:"state"`
		CreatedAt string `json:"created_at"`
	} `json:"version"`
	Metadata map[string]string `json:"metadata"`
}

// itemURLs returns the members of a set rendered without expansion.
func (s setRecord) itemURLs(t *testing.T) []string {
	t.Helper()
	out := make([]string, 0, len(s.Items))
	for _, it := range s.Items {
		u, ok := it.(string)
		if !ok {
			t.Fatalf("item %v is not a URL", it)
		}
		out = append(out, u)
	}
	return out
}

// seedLayer writes a layer or table of owner straight into the store: the
// set tests need members, not imports. Published unless draft is set.
func seedLayer(t testing.TB, e *env, owner *ent.User, typ layer.Type, name string, draft bool) *ent.Layer {
	t.Helper()
	ctx := t.Context()
	c := e.Store.Client
	l := c.Layer.Create().SetType(typ).SetName(name).SetUserID(owner.ID).SaveX(ctx)
	// The permissions creation gives (README: dataset permissions).
	if err := access.GrantDefaults(ctx, c, access.KindLayer, l.ID, owner.ID); err != nil {
		t.Fatal(err)
	}
	state := layerversion.StatePublished
	if draft {
		state = layerversion.StateDraft
	}
	now := time.Now().UTC()
	vc := c.LayerVersion.Create().SetLayerID(l.ID).SetName(name).SetCreatedBy(owner.ID).SetDatasourceIds([]int{}).
		SetState(state).SetStatus(layerversion.StatusOk).SetProgress(1)
	if draft {
		vc.SaveX(ctx)
		return l
	}
	// Published as a publish leaves it: the version says when too.
	v := vc.SetPublishedAt(now).SaveX(ctx)
	return l.Update().SetPublishedVersionID(v.ID).SetPublishedAt(now).SetFirstPublishedAt(now).SaveX(ctx)
}

// memberURL is the REST URL of a layer or table.
func memberURL(e *env, l *ent.Layer) string {
	kind := "layers"
	if l.Type == layer.TypeTable {
		kind = "tables"
	}
	return e.API + "/" + kind + "/" + itoa(l.ID) + "/"
}

func itoa(n int) string { return strconv.Itoa(n) }

// getSet reads a set (or set version) URL as key.
func getSet(t *testing.T, e *env, key, url string, header map[string]string) setRecord {
	t.Helper()
	return doJSON[setRecord](t, e, req{Path: url, Key: key, Header: header}, http.StatusOK)
}

// expectScope checks that a token without scope gets 401 naming it.
func expectScope(t *testing.T, e *env, r req, u *user, scope string) {
	t.Helper()
	r.Key = e.Token(t, u.User, "layers:read layers:write")
	expectDetail(t, e.Do(t, r), http.StatusUnauthorized, scope)
}
