package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/rest"
)

// Issue 12: "Serve an OpenAPI 3.1 document of the whole REST API at
// /services/api/v1.x/openapi.json (generated from the routes and types,
// checked in CI against the router so a route cannot be missing)".

// TestOpenAPICoversEveryRoute fails for a route of the REST router that no
// operation documents, and for an operation whose route does not exist.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	routes, err := apidoc.Routes(rest.New(nil, nil, "").Routes())
	if err != nil {
		t.Fatal(err)
	}
	undocumented, unrouted := apidoc.Diff(routes, rest.Operations())
	for _, r := range undocumented {
		t.Errorf("route %s is not in the OpenAPI document: document it in rest/apidoc*.go", r)
	}
	for _, o := range unrouted {
		t.Errorf("the OpenAPI document has %s %s, which the router does not serve", o.Method, o.Pattern)
	}
	if len(routes) < 200 {
		t.Fatalf("only %d routes: the walk missed some", len(routes))
	}
	t.Logf("%d routes, %d operations", len(routes), len(rest.Operations()))
}

// referenceDocument is the served OpenAPI document, raw and parsed.
func referenceDocument(t *testing.T) (*apidoc.Document, libopenapi.Document) {
	t.Helper()
	d, err := rest.Reference()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := libopenapi.NewDocument(d.JSON)
	if err != nil {
		t.Fatal(err)
	}
	return d, doc
}

// TestOpenAPIDocumentIsValid checks the document against the OpenAPI 3.1
// schema with libopenapi-validator, and that every error response refers
// to the Error component (or states the specification's body).
func TestOpenAPIDocumentIsValid(t *testing.T) {
	d, doc := referenceDocument(t)
	if v := doc.GetSpecInfo().VersionNumeric; v != 3.1 {
		t.Fatalf("OpenAPI version %v, want 3.1", v)
	}
	if _, err := doc.BuildV3Model(); err != nil {
		t.Fatalf("building the model: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ok, verrs := v.ValidateDocument()
	for _, e := range verrs {
		t.Errorf("%s: %s", e.Message, e.Reason)
		for _, se := range e.SchemaValidationErrors {
			t.Errorf("  %s at %s", se.Reason, se.Location)
		}
	}
	if !ok {
		t.Fatal("the document is not valid OpenAPI 3.1")
	}
	// The check is not vacuous: an operation without responses fails it.
	var broken map[string]any
	if err := json.Unmarshal(d.JSON, &broken); err != nil {
		t.Fatal(err)
	}
	broken["paths"].(map[string]any)["/groups/"].(map[string]any)["get"].(map[string]any)["responses"] = "none"
	raw, _ := json.Marshal(broken)
	bdoc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	bv, _ := validator.NewValidator(bdoc)
	if ok, _ := bv.ValidateDocument(); ok {
		t.Error("a document whose operation has no responses passed validation")
	}

	var parsed struct {
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(d.JSON, &parsed); err != nil {
		t.Fatal(err)
	}
	for path, item := range parsed.Paths {
		for method, op := range item {
			for status, resp := range op.Responses {
				if status < "400" {
					continue
				}
				s := string(resp)
				if !strings.Contains(s, "#/components/responses/") && !strings.Contains(s, "#/components/schemas/Error") {
					t.Errorf("%s %s %s: the error response refers to neither Error nor ErrorMessage: %s", method, path, status, s)
				}
			}
		}
	}
}

// The document and the page are public reads under both version prefixes.
func TestOpenAPIServed(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, base := range []string{"/services/api/v1.x", "/services/api/v1"} {
			r := e.Do(t, req{Method: http.MethodGet, Path: e.HTTP.URL + base + "/openapi.json"})
			if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("%s/openapi.json: %d %s", base, r.Status, r.Header.Get("Content-Type"))
			}
			var doc struct {
				OpenAPI string         `json:"openapi"`
				Paths   map[string]any `json:"paths"`
			}
			r.JSON(t, &doc)
			if doc.OpenAPI != "3.1.0" || doc.Paths["/groups/{gid}/permissions/"] == nil {
				t.Fatalf("openapi %q with %d paths", doc.OpenAPI, len(doc.Paths))
			}
		}
		for _, p := range []string{"/docs", "/docs/"} {
			r := e.Do(t, req{Method: http.MethodGet, Path: e.HTTP.URL + "/services/api/v1.x" + p})
			if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Fatalf("%s: %d %s", p, r.Status, r.Header.Get("Content-Type"))
			}
			for _, want := range []string{"get_groups_gid_permissions", "/groups/{gid}/permissions/", `id="schema-Error"`} {
				if !strings.Contains(string(r.Body), want) {
					t.Errorf("%s does not show %q", p, want)
				}
			}
		}
	})
}

// TestOpenAPIScopesMatchRouter checks each operation's documented scope
// against the Accepted-OAuth-Scopes header its route's middleware sets
// (the spec: "the response header Accepted-OAuth-Scopes names it"); a
// route with no scope of its own carries the server's default, *.
func TestOpenAPIScopesMatchRouter(t *testing.T) {
	announced := map[apidoc.Route]string{}
	noop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	err := chi.Walk(rest.New(nil, nil, "").Routes(), func(method, pattern string, _ http.Handler, mws ...func(http.Handler) http.Handler) error {
		scope := "*"
		w := httptest.NewRecorder()
		chi.Chain(mws...).Handler(noop).ServeHTTP(w, httptest.NewRequest(method, "/", nil))
		if s := w.Header().Get("Accepted-OAuth-Scopes"); s != "" {
			scope = s
		}
		announced[apidoc.Route{Method: method, Pattern: strings.TrimSuffix(pattern, "/")}] = scope
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rest.Operations() {
		got, ok := announced[apidoc.Route{Method: o.Method, Pattern: o.Pattern}]
		if ok && got != o.Scope {
			t.Errorf("%s %s: documented scope %q, the route announces %q", o.Method, o.Pattern, o.Scope, got)
		}
	}
}

// TestOpenAPIDescribesRealResponses sends requests to the service and
// checks each answer (status, headers, body) against the document with
// libopenapi-validator: the success shapes reflected from the handlers'
// types, and the one error shape {"detail", "code"}.
func TestOpenAPIDescribesRealResponses(t *testing.T) {
	_, doc := referenceDocument(t)
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	each(t, func(t *testing.T, e *env) {
		admin := e.NewUser(t, "refadmin", servertest.SiteAdmin)
		outsider := e.NewUser(t, "refoutsider")
		groups := e.SeedGroups(t, "Reference", 2, admin.User, groupmembership.PermissionAdmin)
		noScope := e.Token(t, outsider.User, "layers:read")
		for _, c := range []struct {
			method, path, key string
			body              any
			status            int
		}{
			{http.MethodGet, "/groups/", admin.Key, nil, 200},
			{http.MethodGet, fmt.Sprintf("/groups/%d/", groups[0].ID), admin.Key, nil, 200},
			{http.MethodGet, fmt.Sprintf("/groups/%d/permissions/", groups[0].ID), admin.Key, nil, 200},
			{http.MethodPost, "/group/", admin.Key, map[string]any{"name": "Reference Made", "country": "NZ"}, 201},
			{http.MethodGet, "/users/me/", admin.Key, nil, 200},
			{http.MethodGet, "/tokens/", admin.Key, nil, 200},
			{http.MethodGet, "/layers/", "", nil, 200},
			{http.MethodGet, "/sets/", "", nil, 200},
			{http.MethodGet, "/site/settings/", "", nil, 200},
			{http.MethodGet, "/groups/999999/", admin.Key, nil, 404},
			{http.MethodGet, "/users/me/", noScope, nil, 401},
			{http.MethodPost, "/group/", outsider.Key, map[string]any{"name": "Nope", "country": "NZ"}, 403},
			{http.MethodGet, "/layers/?page_size=100000", "", nil, 400},
		} {
			r := e.Do(t, req{Method: c.method, Path: c.path, Key: c.key, Body: c.body})
			if r.Status != c.status {
				t.Fatalf("%s %s: %d, want %d: %s", c.method, c.path, r.Status, c.status, r.Body)
			}
			// A 400 may carry the field map instead (FieldErrors); the
			// validator below checks it against the document's oneOf.
			if c.status > 400 {
				var body map[string]string
				r.JSON(t, &body)
				if body["detail"] == "" || body["code"] == "" || len(body) != 2 {
					t.Errorf("%s %s: error body %s, want {detail, code}", c.method, c.path, r.Body)
				}
			}
			validateResponse(t, v, c.method, c.path, c.body != nil, r.Status, r.Header, r.Body)
		}
		// The check is not vacuous: a body off the document fails it.
		h := http.Header{"Content-Type": {"application/json"}}
		if ok, _ := validateQuiet(v, http.MethodGet, "/groups/999999/", false, 404, h, []byte(`{"detail": 5}`)); ok {
			t.Error("a 404 with a numeric detail passed validation")
		}
		if ok, _ := validateQuiet(v, http.MethodGet, "/users/me/", false, 200, h, []byte(`{"id": "x"}`)); ok {
			t.Error("a malformed user passed validation")
		}
	})
}

// validateResponse checks one answer against the document.
func validateResponse(t *testing.T, v validator.Validator, method, path string, hasBody bool, status int, header http.Header, body []byte) {
	t.Helper()
	if ok, msgs := validateQuiet(v, method, path, hasBody, status, header, body); !ok {
		t.Errorf("%s %s answered off the document:\n%s", method, path, strings.Join(msgs, "\n"))
	}
}

func validateQuiet(v validator.Validator, method, path string, hasBody bool, status int, header http.Header, body []byte) (bool, []string) {
	request := httptest.NewRequest(method, "/services/api/v1.x"+path, nil)
	if hasBody {
		request.Header.Set("Content-Type", "application/json")
	}
	response := &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(bytes.NewReader(body)), Request: request}
	ok, errs := v.ValidateHttpResponse(request, response)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Message+": "+e.Reason)
		for _, se := range e.SchemaValidationErrors {
			msgs = append(msgs, "  "+se.Reason+" at "+se.Location)
		}
	}
	return ok, msgs
}

// TestOpenAPIPublicMatchesMatrix checks the document's "no credentials"
// security option against the authorization matrix: an operation
// documented as callable anonymously must be one the matrix lets an
// anonymous caller make on some object.
func TestOpenAPIPublicMatchesMatrix(t *testing.T) {
	rules := matrixRules()
	for _, o := range rest.Operations() {
		r, ok := rules[routeKey(o.Method, o.Pattern)]
		if !ok {
			continue // TestAuthzMatrixCoversEveryRoute reports it
		}
		anon := false
		for _, tg := range r.targets {
			if !tg.need.user && !tg.need.site && !tg.need.nobody {
				anon = true
			}
		}
		if o.Anonymous && !anon {
			t.Errorf("%s %s: documented anonymous %v, the matrix says %v", o.Method, o.Pattern, o.Anonymous, anon)
		}
	}
}
