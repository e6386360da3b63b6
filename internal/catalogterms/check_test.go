package catalogterms

import (
	"context"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/store/storetest"
)

func TestCleanLabels(t *testing.T) {
	got, err := CleanLabels("tags", []string{" roads ", "", "roads", "rivers", "  "})
	if err != nil || !slices.Equal(got, []string{"roads", "rivers"}) {
		t.Errorf("CleanLabels = %q, %v", got, err)
	}
	if got, err := CleanLabels("tags", nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("CleanLabels(nil) = %#v, %v; want an empty list", got, err)
	}
	if _, err := CleanLabels("categories", []string{strings.Repeat("x", MaxLabel)}); err != nil {
		t.Errorf("a label of %d bytes: %v", MaxLabel, err)
	}
	_, err = CleanLabels("categories", []string{strings.Repeat("x", MaxLabel+1)})
	if e := apperr.As(err); e.Code != apperr.Invalid || len(e.Fields["categories"]) != 1 {
		t.Errorf("an overlong label: %v, want INVALID on categories", err)
	}
}

// recorder is a Setter that remembers what it was given.
type recorder struct {
	tags, cats []string
	license    *int
	cleared    bool
}

func (r *recorder) SetTags(t []string)       { r.tags = t }
func (r *recorder) SetCategories(c []string) { r.cats = c }
func (r *recorder) SetLicenseID(id int)      { r.license = &id }
func (r *recorder) ClearLicenseID()          { r.cleared = true }

func TestCheckAndApply(t *testing.T) {
	c := storetest.Open(t, dialect.SQLite, storetest.Options{}).Client
	ctx := context.Background()
	var k Cache
	ls, err := k.Licenses(ctx, c)
	if err != nil || len(ls) == 0 {
		t.Fatalf("Licenses = %d, %v", len(ls), err)
	}
	lic := ls[0].ID

	e, err := k.Check(ctx, c, Change{Tags: []string{"a", " a "}, Categories: []string{"transportation/roads"}, SetLicense: true, License: &lic})
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	e.Apply(&r)
	if !slices.Equal(r.tags, []string{"a"}) || !slices.Equal(r.cats, []string{"transportation/roads"}) || r.license == nil || *r.license != lic {
		t.Errorf("applied %+v", r)
	}

	e, err = k.Check(ctx, c, Change{SetLicense: true})
	r = recorder{}
	if e.Apply(&r); err != nil || !r.cleared || r.tags != nil || r.cats != nil {
		t.Errorf("a null licence: %+v, %v; want the licence cleared and nothing else", r, err)
	}
	e, err = k.Check(ctx, c, Change{})
	r = recorder{}
	if e.Apply(&r); err != nil || r.tags != nil || r.cats != nil || r.license != nil || r.cleared {
		t.Errorf("an empty change: %+v, %v; want nothing set", r, err)
	}

	many := make([]string, MaxTags+1)
	for i := range many {
		many[i] = strings.Repeat("t", i+1)
	}
	noLicense := 99999
	for name, tc := range map[string]struct {
		ch    Change
		field string
	}{
		"TooManyTags":       {Change{Tags: many}, "tags"},
		"TooManyCategories": {Change{Categories: many[:MaxCategories+1]}, "categories"},
		"UnknownCategory":   {Change{Categories: []string{"no/such"}}, "categories"},
		"UnknownLicence":    {Change{SetLicense: true, License: &noLicense}, "license"},
	} {
		_, err := k.Check(ctx, c, tc.ch)
		if e := apperr.As(err); e.Code != apperr.Invalid || len(e.Fields[tc.field]) != 1 {
			t.Errorf("%s: %v, want INVALID on %s", name, err, tc.field)
		}
	}
}

func TestCache(t *testing.T) {
	c := storetest.Open(t, dialect.SQLite, storetest.Options{}).Client
	ctx := context.Background()
	var k Cache
	cs, err := k.Categories(ctx, c)
	if err != nil || len(cs) == 0 {
		t.Fatalf("Categories = %d, %v", len(cs), err)
	}
	if !slices.IsSortedFunc(cs, func(a, b *ent.Category) int { return strings.Compare(a.Key, b.Key) }) {
		t.Error("categories are not in key order")
	}
	if got, err := k.Category(ctx, c, "transportation/roads"); err != nil || got == nil || got.Name != "Roads" {
		t.Errorf("Category(transportation/roads) = %+v, %v", got, err)
	}
	if got, err := k.Category(ctx, c, "no/such"); err != nil || got != nil {
		t.Errorf("Category(no/such) = %+v, %v; want nil", got, err)
	}
	if _, err := k.License(ctx, c, 99999); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("License(99999): %v, want NOT_FOUND", err)
	}
	if l, err := k.VersionLicense(ctx, c, new(int)); err != nil || l != nil {
		t.Errorf("VersionLicense of a licence that is gone = %+v, %v; want nil", l, err)
	}
	for _, q := range []struct{ slug, version, jurisdiction, title string }{
		{"cc-by", "", "", "Creative Commons Attribution 4.0 International"},
		{"cc-by", "3.0", "", "Creative Commons Attribution 3.0 Unported"},
		{"cc-by-sa", "", "nz", "Creative Commons Attribution-ShareAlike 3.0 New Zealand"},
	} {
		l, err := k.CreativeCommons(ctx, c, q.slug, q.version, q.jurisdiction)
		if err != nil || l.Title != q.title {
			t.Errorf("CreativeCommons(%q, %q, %q) = %v, %v; want %q", q.slug, q.version, q.jurisdiction, l, err, q.title)
		}
	}
	if _, err := k.CreativeCommons(ctx, c, "cc-by", "", "xx"); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("a jurisdiction without licences: %v, want NOT_FOUND", err)
	}
	// Later reads come from the cache: a licence added since is not seen.
	c.License.Create().SetType("odbl").SetVersion("1.0").SetTitle("ODbL").SetLegalCodeURL("https://example.com/odbl").ExecX(ctx)
	before, _ := k.Licenses(ctx, c)
	var fresh Cache
	after, _ := fresh.Licenses(ctx, c)
	if len(after) != len(before)+1 {
		t.Errorf("a cache read %d licences, a fresh one %d: want the cache to hold its first read", len(before), len(after))
	}
}
