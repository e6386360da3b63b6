package textrules

import (
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/apperr"
)

func TestCheckJSON(t *testing.T) {
	for _, c := range []struct {
		raw, field string // field "" means accepted
	}{
		{`{"title": "ok \ud83d\ude00 pair"}`, ""},
		{`{"title": "\\ud83d is text, not an escape"}`, ""},
		{`{"title": "\ud83d"}`, "title"},
		{`{"title": "x\udc00"}`, "title"},
		{`{"a": {"name": "\ud83dx"}}`, "name"},
		{`{"tags": ["ok", "\ud83d\u0041"]}`, "tags"},
		{`"\ud83d"`, "body"},
		{`{"\ud83d": 1}`, "body"},
		{`{"name": "unterminated \ud83d`, ""},
	} {
		err := CheckJSON([]byte(c.raw))
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: %v, want accepted", c.raw, err)
			}
			continue
		}
		if e := apperr.As(err); err == nil || e.Code != apperr.Invalid || e.Fields[c.field] == nil {
			t.Errorf("%s: %v, want an Invalid error naming %s", c.raw, err, c.field)
		}
	}
}

func TestQueryAndValues(t *testing.T) {
	long := strings.Repeat("é", MaxQuery+1)
	for _, q := range []string{"a\x00", "\xff", long} {
		if err := Query("q", &q); apperr.As(err).Fields["q"] == nil {
			t.Errorf("Query(%.20q) = %v, want an error naming q", q, err)
		}
	}
	ok := strings.Repeat("é", MaxQuery)
	if err := Query("q", &ok); err != nil {
		t.Errorf("q at the cap: %v", err)
	}
	type nested struct {
		Name string
		More map[string]any
	}
	if err := CheckValue("urls", []nested{{Name: "ok", More: map[string]any{"k": []any{"a\x00"}}}}); apperr.As(err).Fields["urls"] == nil {
		t.Errorf("nested NUL: %v", err)
	}
	if err := CheckValue("geom", []byte{0, 0xff}); err != nil {
		t.Errorf("bytes are not text: %v", err)
	}
	if err := Filter("where", &nested{Name: strings.Repeat("x", MaxFilter+1)}); apperr.As(err).Fields["where"] == nil {
		t.Errorf("long filter: %v", err)
	}
}

func TestStorable(t *testing.T) {
	for _, s := range []string{"a\x00b", "\xff\xfeok", "fine é"} {
		if err := Check("log", Storable(s)); err != nil {
			t.Errorf("Storable(%q) = %q fails Check: %v", s, Storable(s), err)
		}
	}
	if Storable("fine é") != "fine é" {
		t.Error("Storable changed valid text")
	}
}

func TestRequired(t *testing.T) {
	if got, err := Required("name", " \tRoads \n", "This field is required."); got != "Roads" || err != nil {
		t.Fatalf("Required: %q, %v", got, err)
	}
	_, err := Required("name", " \u00a0 ", "This field may not be blank.")
	if e := apperr.As(err); e.Code != apperr.Invalid || len(e.Fields["name"]) != 1 || e.Fields["name"][0] != "This field may not be blank." {
		t.Fatalf("blank: %v", err)
	}
}
