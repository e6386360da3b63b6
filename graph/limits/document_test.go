package limits

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheckDocument(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString("{ a { ...F0 } }")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&bomb, " fragment F%d on T { x ...F%d ...F%d }", i, i+1, i+1)
	}
	bomb.WriteString(" fragment F60 on T { x }")
	cases := []struct{ name, doc, code string }{
		{"ordinary", "query Q($id: ID!) { a(id: $id) { b c ...F } } fragment F on T { d }", ""},
		{"does not parse", "{ a { ", ""},
		{"bytes", "{ a { " + strings.Repeat("b ", 40000) + "} }", CodeDocumentTooLarge},
		{"tokens", "{ a { " + strings.Repeat("b ", 12000) + "} }", CodeDocumentTooLarge},
		{"fields", "{ " + strings.Repeat("a { b } ", 1000) + "}", CodeFieldLimit},
		{"repeats", "{ a { " + strings.Repeat("b ", 51) + "} }", CodeFieldLimit},
		{"repeats merged under one name", "{ " + strings.Repeat("a { b b } ", 25) + strings.Repeat("a { c b } ", 25) + "}", CodeFieldLimit},
		{"fragment bomb", bomb.String(), CodeFieldLimit},
		{"aliases", "{ " + strings.Repeat("x: a ", 201) + "}", CodeAliasLimit},
		{"fragments", "{ a } " + strings.Repeat("fragment F on T { a } ", 101), CodeDocumentTooLarge},
		{"directives", "{ a { " + strings.Repeat("b @skip(if: true) ", 40) + strings.Repeat("c @include(if: true) ", 40) + " } " + strings.Repeat("d @skip(if: false) ", 130) + "}", CodeDocumentTooLarge},
	}
	for _, c := range cases {
		err := Default.checkDocument(c.doc)
		got := ""
		if err != nil {
			got, _ = err.Extensions["code"].(string)
		}
		if got != c.code {
			t.Errorf("%s: got %q (%v), want %q", c.name, got, err, c.code)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	l := Limits{MaxBodyBytes: 10}
	h := l.Body(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	for body, want := range map[string]int{"0123456789": http.StatusNoContent, "0123456789a": http.StatusRequestEntityTooLarge} {
		for _, announced := range []bool{true, false} {
			r := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
			if !announced {
				r.ContentLength = -1
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != want || want == http.StatusRequestEntityTooLarge && !strings.Contains(w.Body.String(), CodeBodyTooLarge) {
				t.Errorf("%q (announced %v): %d %s", body, announced, w.Code, w.Body)
			}
		}
	}
}
