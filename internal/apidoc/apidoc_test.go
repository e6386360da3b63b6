package apidoc

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
)

func TestOpenAPIPath(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		params        []pathParam
	}{
		{"/groups", "/groups/", nil},
		{"/groups/{gid:[0-9]+}/permissions/user.{uid:[0-9]+}", "/groups/{gid}/permissions/user.{uid}/",
			[]pathParam{{"gid", "[0-9]+"}, {"uid", "[0-9]+"}}},
		{"/layers/{lid:[0-9]+}/versions/{vid:[0-9]+|draft|published}", "/layers/{lid}/versions/{vid}/",
			[]pathParam{{"lid", "[0-9]+"}, {"vid", "[0-9]+|draft|published"}}},
		{"/x/{n:[0-9]{2}}", "/x/{n}/", []pathParam{{"n", "[0-9]{2}"}}},
		{"/items/{cid:c[0-9]+}/permissions/{pid}", "/items/{cid}/permissions/{pid}/", []pathParam{{"cid", "c[0-9]+"}, {"pid", ""}}},
		{"/openapi.json", "/openapi.json", nil},
	} {
		path, params, err := openAPIPath(c.pattern)
		if err != nil || path != c.path || !reflect.DeepEqual(params, c.params) {
			t.Errorf("%s: %q %v %v, want %q %v", c.pattern, path, params, err, c.path, c.params)
		}
	}
	if _, _, err := openAPIPath("/x/{broken"); err == nil {
		t.Error("an unclosed parameter parsed")
	}
}

type embedded struct {
	ID int `json:"id"`
}

type sample struct {
	embedded
	Name     string            `json:"name"`
	Note     *string           `json:"note"`
	Tags     []string          `json:"tags,omitempty"`
	When     time.Time         `json:"when"`
	Extra    map[string]int    `json:"extra"`
	Any      any               `json:"any"`
	Skipped  string            `json:"-"`
	hidden   string            //lint:ignore U1000 the reflector must skip unexported fields
	Children []embedded        `json:"children"`
	Fields   map[string]string `json:"fields,omitempty"`
}

// Schemas follow what encoding/json writes: embedded fields inline,
// pointers nullable, omitempty not required, "-" and unexported left out.
func TestReflectedSchema(t *testing.T) {
	rf := newReflector()
	if got := rf.schemaOf(sample{}); got["$ref"] != "#/components/schemas/Sample" {
		t.Fatalf("ref = %v", got)
	}
	s := rf.components["Sample"]
	props := s["properties"].(map[string]any)
	for _, name := range []string{"id", "name", "note", "tags", "when", "extra", "any", "children", "fields"} {
		if props[name] == nil {
			t.Errorf("no property %s", name)
		}
	}
	if props["Skipped"] != nil || props["hidden"] != nil || props["-"] != nil {
		t.Errorf("properties %v", props)
	}
	req := strings.Join(s["required"].([]string), ",")
	if req != "id,name,note,when,extra,any,children" {
		t.Errorf("required = %s", req)
	}
	raw, _ := json.Marshal(props["note"])
	if string(raw) != `{"anyOf":[{"type":"string"},{"type":"null"}]}` {
		t.Errorf("note = %s", raw)
	}
	raw, _ = json.Marshal(props["when"])
	if string(raw) != `{"format":"date-time","type":"string"}` {
		t.Errorf("when = %s", raw)
	}
	if _, ok := rf.components["Embedded"]; !ok {
		t.Error("the embedded type used as a list item is not a component")
	}
	// A request body lists no required fields: its decoder takes any subset.
	rf = newReflector()
	rf.requestSchemaOf(sample{})
	if _, ok := rf.components["Sample"]["required"]; ok {
		t.Error("a request body lists required fields")
	}
}

func TestDiffNamesMissingRoutesAndOperations(t *testing.T) {
	r := chi.NewRouter()
	noop := func(http.ResponseWriter, *http.Request) {}
	r.Get("/a", noop)
	r.Post("/a", noop)
	r.Get("/b/{id:[0-9]+}", noop)
	r.Options("/a", noop)
	routes, err := Routes(r)
	if err != nil || len(routes) != 3 {
		t.Fatalf("routes %v %v: OPTIONS must be left out", routes, err)
	}
	ops := []*Operation{Op("GET", "/a", "A"), Op("GET", "/b/{id:[0-9]+}", "B"), Op("DELETE", "/a", "gone")}
	undocumented, unrouted := Diff(routes, ops)
	if len(undocumented) != 1 || undocumented[0].String() != "POST /a" {
		t.Errorf("undocumented = %v", undocumented)
	}
	if len(unrouted) != 1 || unrouted[0].Method != "DELETE" {
		t.Errorf("unrouted = %v", unrouted)
	}
}

func TestBuildRefusesDuplicates(t *testing.T) {
	ops := []*Operation{Op("GET", "/a", "A").Tagged("T"), Op("GET", "/a/", "A again").Tagged("T")}
	if _, err := Build(Info{Title: "t", Version: "1"}, ops); err == nil {
		t.Fatal("two operations on GET /a/ built")
	}
}

// Every error response refers to Error, and the status list of an
// operation follows what it takes.
func TestBuildErrorResponses(t *testing.T) {
	ops := []*Operation{
		Op("GET", "/a", "A").Tagged("T").Paging().ReturnsJSON(200, "ok", embedded{}),
		Op("POST", "/a", "A").Tagged("T").AcceptsJSON(embedded{}).NoContent("done").
			FailsWith(405, "stated", SpecErrorBody).Fails(409, "conflict"),
	}
	d, err := Build(Info{Title: "t", Version: "1", Servers: []string{"/api"}}, ops)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(d.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	get := doc.Paths["/a/"]["get"].Responses
	post := doc.Paths["/a/"]["post"].Responses
	for _, s := range []string{"200", "400", "401", "403", "404", "500"} {
		if get[s] == nil {
			t.Errorf("GET lacks %s", s)
		}
	}
	if get["413"] != nil || post["413"] == nil || post["405"] == nil || post["409"] == nil {
		t.Errorf("statuses: GET %v POST %v", keys(get), keys(post))
	}
	raw, _ := json.Marshal(post["405"])
	if !strings.Contains(string(raw), "#/components/schemas/ErrorMessage") {
		t.Errorf("405 = %s", raw)
	}
	raw, _ = json.Marshal(post["409"])
	if !strings.Contains(string(raw), "#/components/schemas/Error\"") {
		t.Errorf("409 = %s", raw)
	}
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
