package ogc_test

import (
	"context"
	"database/sql"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/server/servertest"
)

// cswFixture is a catalogue: cswPublic published layers and a table
// anyone may see, a layer private to its owner, one never published.
type cswFixture struct {
	e                    *env
	owner, reader        *servertest.User
	public               []int
	table                int
	private, unpublished int
}

const cswPublic = 12

// cswLayer stores a layer as a publish leaves it (the search feed indexes
// it in the same transaction); unpublished, it has a draft only.
func cswLayer(t testing.TB, e *env, owner *ent.User, i int, title string, published bool) int {
	return cswDataset(t, e, owner, layer.TypeLayer, i, title, published)
}

// cswDataset is cswLayer for a layer or a table (which has no extent).
func cswDataset(t testing.TB, e *env, owner *ent.User, typ layer.Type, i int, title string, published bool) int {
	t.Helper()
	ctx := context.Background()
	var id int
	err := e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		now := time.Date(2024, 1, 1+i, 0, 0, 0, 0, time.UTC)
		lc := c.Layer.Create().SetType(typ).SetKind(layer.KindVector).SetName(title).SetUserID(owner.ID)
		if published {
			lc = lc.SetFirstPublishedAt(now).SetPublishedAt(now)
		}
		l, err := lc.Save(ctx)
		if err != nil {
			return err
		}
		state := layerversion.StateDraft
		if published {
			state = layerversion.StatePublished
		}
		w := 170 + float64(i)*0.5
		vc := c.LayerVersion.Create().SetLayerID(l.ID).SetName(title).SetCreatedBy(owner.ID).
			SetState(state).SetStatus(layerversion.StatusOk).SetProgress(1).SetDatasourceIds([]int{}).
			SetPublishedAt(now).SetTags([]string{"water", fmt.Sprintf("tag%d", i%3)}).
			SetDescription(fmt.Sprintf("Abstract of %s.", title))
		if typ == layer.TypeLayer {
			vc = vc.SetCrs("EPSG:4326").SetGeometryType("point").SetGeometryField("GEOMETRY").SetExtent([]float64{w, -45, w + 0.4, -40})
		}
		v, err := vc.Save(ctx)
		if err != nil {
			return err
		}
		if published {
			if err := c.Layer.UpdateOneID(l.ID).SetPublishedVersionID(v.ID).Exec(ctx); err != nil {
				return err
			}
		}
		id = l.ID
		return access.GrantDefaults(ctx, c, access.KindLayer, l.ID, owner.ID)
	})
	if err != nil {
		t.Fatalf("layer %q: %v", title, err)
	}
	return id
}

func newCSWFixture(t testing.TB, e *env) *cswFixture {
	t.Helper()
	f := &cswFixture{e: e, owner: e.NewUser(t, "Owner"), reader: e.NewUser(t, "Reader")}
	for i := 0; i < cswPublic; i++ {
		name := "Catalogue river"
		if i%2 == 1 {
			name = "Catalogue lake"
		}
		f.public = append(f.public, cswLayer(t, e, f.owner.User, i, fmt.Sprintf("%s %02d", name, i), true))
	}
	f.table = cswDataset(t, e, f.owner.User, layer.TypeTable, 13, "Catalogue table", true)
	f.private = cswLayer(t, e, f.owner.User, 20, "Secret river", true)
	r := e.Do(t, servertest.Request{Method: "PUT", Path: fmt.Sprintf("/layers/%d/permissions/", f.private), Key: f.owner.Key,
		Body: fmt.Sprintf(`[{"permission": "admin", "user": %d}]`, f.owner.User.ID)})
	if r.Status != http.StatusOK {
		t.Fatalf("private: %d %s", r.Status, r.Body)
	}
	f.unpublished = cswLayer(t, e, f.owner.User, 21, "Draft river", false)
	waitFresh()
	return f
}

// cswResponse is an answer: status, media type and body.
type cswResponse struct {
	status int
	ctype  string
	body   []byte
}

// get sends a KVP request (query without the leading ?) to path under
// /services/csw.
func (f *cswFixture) get(t testing.TB, key, path, query string) cswResponse {
	t.Helper()
	return f.do(t, key, http.MethodGet, path+"?"+query, "", nil)
}

func (f *cswFixture) post(t testing.TB, key, path, body string) cswResponse {
	t.Helper()
	return f.do(t, key, http.MethodPost, path, "application/xml", strings.NewReader(body))
}

func (f *cswFixture) do(t testing.TB, key, method, path, ctype string, body io.Reader) cswResponse {
	t.Helper()
	req, err := http.NewRequest(method, f.e.HTTP.URL+"/services/csw"+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if key != "" {
		req.Header.Set("Authorization", "key "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return cswResponse{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), body: b}
}

// searchResults is the part of a GetRecordsResponse the tests read.
type searchResults struct {
	XMLName xml.Name
	Results struct {
		Matched  int    `xml:"numberOfRecordsMatched,attr"`
		Returned int    `xml:"numberOfRecordsReturned,attr"`
		Next     int    `xml:"nextRecord,attr"`
		Set      string `xml:"elementSet,attr"`
		Records  []struct {
			XMLName    xml.Name
			Identifier string   `xml:"identifier"`
			Title      string   `xml:"title"`
			Abstract   string   `xml:"abstract"`
			Refs       []string `xml:"references"`
		} `xml:",any"`
	} `xml:"SearchResults"`
}

func (r cswResponse) results(t testing.TB) searchResults {
	t.Helper()
	if r.status != http.StatusOK || !strings.HasPrefix(r.ctype, "application/xml") {
		t.Fatalf("status %d %s: %s", r.status, r.ctype, r.body)
	}
	var s searchResults
	if err := xml.Unmarshal(r.body, &s); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
	return s
}

// exception checks r is an ExceptionReport with status and code.
func (r cswResponse) exception(t testing.TB, status int, code string) {
	t.Helper()
	if r.status != status || !strings.Contains(string(r.body), `exceptionCode="`+code+`"`) {
		t.Errorf("status %d, want %d %s: %.300s", r.status, status, code, r.body)
	}
}

func kvp(params ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(params); i += 2 {
		v.Set(params[i], params[i+1])
	}
	return v.Encode()
}
