package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// postGraphQL posts body to /graphql anonymously and decodes the answer;
// the exchange must finish within 5 s. length -1 sends the body chunked.
func postGraphQL(t *testing.T, e *servertest.Env, body io.Reader, length int64) (int, servertest.GraphQLResponse) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.HTTP.URL+"/graphql", body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = length
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST /graphql: %v", err)
	}
	defer resp.Body.Close()
	var out servertest.GraphQLResponse
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decoding %d %q: %v", resp.StatusCode, b, err)
	}
	return resp.StatusCode, out
}

// query posts one document with no variables and returns the answer.
func query(t *testing.T, e *servertest.Env, q string) (int, servertest.GraphQLResponse) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"query": q})
	return postGraphQL(t, e, bytes.NewReader(b), int64(len(b)))
}

// A body over the cap is answered 413 at once, whether it announces its
// length or not, and the server does not hold it in memory.
func TestGraphQLBodyLimit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		const huge, prefix = 512 << 20, `{"query":"{ __typename }","x":"`
		for _, length := range []int64{int64(len(prefix)) + huge, -1} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			body := io.MultiReader(strings.NewReader(prefix), servertest.Filler(huge))
			status, r := postGraphQL(t, e, body, length)
			runtime.ReadMemStats(&after)
			if status != http.StatusRequestEntityTooLarge || len(r.Errors) != 1 || r.Errors[0].Code() != "PAYLOAD_TOO_LARGE" ||
				!strings.Contains(r.Errors[0].Message, "16 MiB") {
				t.Fatalf("length %d: %d %+v", length, status, r.Errors)
			}
			grew := after.TotalAlloc - before.TotalAlloc
			if grew > 100<<20 {
				t.Errorf("length %d: answering allocated %d MiB", length, grew>>20)
			}
			t.Logf("length %d: 413 after allocating %.1f MiB in all", length, float64(grew)/(1<<20))
		}
		// Bodies within the cap are served.
		if status, r := query(t, e, "{ __typename }"); status != http.StatusOK || len(r.Errors) != 0 {
			t.Fatalf("small body: %d %+v", status, r.Errors)
		}
	})
}

// Documents are measured before gqlgen parses and validates them: the
// field-merging validation rule is quadratic in repeats of one field, so
// 50,000 repeats used to take minutes of CPU.
func TestGraphQLDocumentLimits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		var aliases, bomb strings.Builder
		for i := 0; i < 300; i++ {
			fmt.Fprintf(&aliases, "a%d: me { id } ", i)
		}
		bomb.WriteString("{ me { ...F0 } }")
		for i := 0; i < 30; i++ {
			fmt.Fprintf(&bomb, " fragment F%d on User { id ...F%d ...F%d }", i, i+1, i+1)
		}
		bomb.WriteString(" fragment F30 on User { id }")
		cases := []struct {
			name, query, code, message string
		}{
			{"50,000 repeats", "{ me { " + strings.Repeat("id ", 50000) + "} }", "DOCUMENT_TOO_LARGE", "at most 64 KiB"},
			{"16,000 repeats", "{ me { " + strings.Repeat("id ", 16000) + "} }", "DOCUMENT_TOO_LARGE", "tokens"},
			{"2,000 fields", "{ " + strings.Repeat("me { id } ", 2000) + "}", "FIELD_LIMIT_EXCEEDED", "fields"},
			{"repeats", "{ me { " + strings.Repeat("id ", 100) + "} }", "FIELD_LIMIT_EXCEEDED", `"id" 100 times`},
			{"repeats through fragments", "{ me { ...A ...B } } fragment A on User { " + strings.Repeat("id ", 30) + "} fragment B on User { " + strings.Repeat("id ", 30) + "}", "FIELD_LIMIT_EXCEEDED", `"id" 60 times`},
			{"repeats under merged fields", "{ " + strings.Repeat("me { id } ", 60) + "}", "FIELD_LIMIT_EXCEEDED", `60 times`},
			{"fragment bomb", bomb.String(), "FIELD_LIMIT_EXCEEDED", "fragments are expanded"},
			{"aliases", "{ " + aliases.String() + "}", "ALIAS_LIMIT_EXCEEDED", "300 aliases"},
		}
		for _, c := range cases {
			status, r := query(t, e, c.query)
			if status != http.StatusUnprocessableEntity || len(r.Errors) != 1 || r.Errors[0].Code() != c.code || !strings.Contains(r.Errors[0].Message, c.message) {
				t.Errorf("%s: %d %+v", c.name, status, r.Errors)
			}
		}
		// Within the limits, repeats, aliases and fragments are served.
		status, r := query(t, e, "{ a: me { id id } b: me { ...U } } fragment U on User { id }")
		if status != http.StatusOK || len(r.Errors) != 0 {
			t.Fatalf("ordinary document: %d %+v", status, r.Errors)
		}
	})
}

// BenchmarkRepeatedFields measures the answer to a document repeating one
// field 50,000 times (refused by its size before parsing) and 3,000 times
// (refused by its repeats before validation).
func BenchmarkRepeatedFields(b *testing.B) {
	st := storetest.Open(b, "sqlite3", storetest.Options{})
	e := servertest.New(b, st)
	for _, n := range []int{50000, 3000} {
		body, _ := json.Marshal(map[string]string{"query": "{ me { " + strings.Repeat("id ", n) + "} }"})
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				resp, err := http.Post(e.HTTP.URL+"/graphql", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnprocessableEntity {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}

// The standard introspection queries (GraphiQL's, and graphql-js's with
// every option as code generators and Postman send it) are served, while
// introspection that nests to multiply its cost is refused.
func TestIntrospection(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		for _, file := range []string{"testdata/introspection_graphiql.graphql", "testdata/introspection_full.graphql"} {
			q, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			status, r := query(t, e, string(q))
			if status != http.StatusOK || len(r.Errors) != 0 {
				t.Fatalf("%s: %d %+v", file, status, r.Errors)
			}
			var data struct {
				Schema struct {
					QueryType struct{ Name string }
					Types     []struct {
						Name   string
						Fields []struct{ Name string }
					}
				} `json:"__schema"`
			}
			if err := json.Unmarshal(r.Data, &data); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, ty := range data.Schema.Types {
				if ty.Name == "Query" && len(ty.Fields) > 10 {
					found = true
				}
			}
			if data.Schema.QueryType.Name != "Query" || !found {
				t.Fatalf("%s: no Query type with fields in %d types", file, len(data.Schema.Types))
			}
		}
		// __type(name:) with the usual TypeRef depth is served too.
		status, r := query(t, e, `{ __type(name: "Query") { name fields { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }`)
		if status != http.StatusOK || len(r.Errors) != 0 {
			t.Fatalf("__type: %d %+v", status, r.Errors)
		}
		// Lists nested through type references are refused by validation.
		_, r = query(t, e, "{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }")
		if len(r.Errors) == 0 || !strings.Contains(r.Errors[0].Message, "introspection depth") {
			t.Fatalf("nested introspection lists: %+v", r.Errors)
		}
		// ofType chains are cheap, but not endless.
		deep := "{ __type(name: \"Query\") { " + strings.Repeat("ofType { ", 30) + "name" + strings.Repeat(" }", 30) + " } }"
		_, r = query(t, e, deep)
		if len(r.Errors) != 1 || r.Errors[0].Code() != "DEPTH_LIMIT_EXCEEDED" {
			t.Fatalf("deep ofType chain: %+v", r.Errors)
		}
		// Introspection nested under ordinary fields does not lift their limit.
		_, r = query(t, e, "{ me { access { on { permissions { group { permissions { group { permissions { user { access { on { permissions { id __typename } } } } } } } } } } } } }")
		if len(r.Errors) != 1 || r.Errors[0].Code() != "DEPTH_LIMIT_EXCEEDED" {
			t.Fatalf("deep ordinary operation: %+v", r.Errors)
		}
	})
}

// Ids that are no ids and list arguments past the limit are the caller's
// mistake: BAD_REQUEST, never INTERNAL_SERVER_ERROR.
func TestGraphQLBadArguments(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		u := e.NewUser(t, "Ida")
		for _, id := range []string{"99999999999999999999", "abc", "-99999999999999999999", "1.5"} {
			r := e.GraphQL(t, u.Key, fmt.Sprintf(`{ layer(id: %q) { id } }`, id), nil)
			if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_REQUEST" {
				t.Errorf("layer(id: %q): %+v", id, r.Errors)
			}
			r = e.GraphQL(t, u.Key, `query($id: ID!) { layer(id: $id) { id } }`, map[string]any{"id": id})
			if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_REQUEST" {
				t.Errorf("layer(id: $id = %q): %+v", id, r.Errors)
			}
		}
		r := e.GraphQL(t, u.Key, `{ groups(first: 99999999999999999999) { totalCount } }`, nil)
		if len(r.Errors) != 1 || r.Errors[0].Code() == "INTERNAL_SERVER_ERROR" {
			t.Errorf("first: huge: %+v", r.Errors)
		}

		ids := make([]string, 10000)
		for i := range ids {
			ids[i] = fmt.Sprint(i + 1)
		}
		r = e.GraphQL(t, u.Key, `query($ids: [ID!]) { groups(where: {idIn: $ids}) { totalCount } }`, map[string]any{"ids": ids})
		if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_REQUEST" || !strings.Contains(r.Errors[0].Message, "1000") {
			t.Errorf("idIn of 10,000 in a variable: %+v", r.Errors)
		}
		r = e.GraphQL(t, u.Key, `{ groups(where: {or: [{idIn: [`+strings.Join(ids[:1500], ",")+`]}]}) { totalCount } }`, nil)
		if len(r.Errors) != 1 || r.Errors[0].Code() != "BAD_REQUEST" {
			t.Errorf("idIn of 1,500 literal: %+v", r.Errors)
		}
		r = e.GraphQL(t, u.Key, `query($ids: [ID!]) { groups(where: {idIn: $ids}) { totalCount } }`, map[string]any{"ids": ids[:1000]})
		if len(r.Errors) != 0 {
			t.Errorf("idIn of 1,000: %+v", r.Errors)
		}
	})
}
