package catalogterms

import (
	"sort"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
)

func TestCreativeCommonsType(t *testing.T) {
	for slug, want := range map[string]string{
		"cc-by": "cc-by", "CC-BY-SA": "cc-by-sa", "cc-by-sa-nc": "cc-by-nc-sa",
		"cc-by-nd-nc": "cc-by-nc-nd", "cc-by-nc": "cc-by-nc",
	} {
		if got, err := CreativeCommonsType(slug); err != nil || got != want {
			t.Errorf("CreativeCommonsType(%q) = %q, %v; want %q", slug, got, err, want)
		}
	}
	for slug, code := range map[string]apperr.Code{
		"gpl": apperr.NotFound, "public-domain": apperr.NotFound,
		"cc-bysa": apperr.Invalid, "cc-by-xx": apperr.Invalid, "cc-by-nc-nc": apperr.Invalid,
		"cc-by-sa-nd": apperr.Invalid, "cc-by-": apperr.Invalid,
	} {
		if got, err := CreativeCommonsType(slug); apperr.CodeOf(err) != code {
			t.Errorf("CreativeCommonsType(%q) = %q, %v; want %s", slug, got, err, code)
		}
	}
}

func TestLicenseOrder(t *testing.T) {
	ls := []*ent.License{
		{ID: 1, Type: "public-domain", Version: "1.0"},
		{ID: 2, Type: "cc-by", Version: "3.0", Jurisdiction: "nz"},
		{ID: 3, Type: "cc-by", Version: "3.0"},
		{ID: 4, Type: "cc-by-sa", Version: "4.0"},
		{ID: 5, Type: "cc-by", Version: "3.0", Jurisdiction: "au"},
		{ID: 6, Type: "cc-by", Version: "4.0"},
		{ID: 7, Type: "other", Version: "2.0"},
	}
	sort.SliceStable(ls, func(i, j int) bool { return licenseLess(ls[i], ls[j]) })
	var got []int
	for _, l := range ls {
		got = append(got, l.ID)
	}
	// Creative Commons first, newest version first, unported before
	// ported, jurisdictions alphabetically, then id; then the others by
	// version and id.
	want := []int{4, 6, 3, 5, 2, 7, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("licence order %v, want %v", got, want)
		}
	}
}

func TestDeedURL(t *testing.T) {
	for url, want := range map[string]string{
		"https://creativecommons.org/licenses/by/4.0/legalcode":    "https://creativecommons.org/licenses/by/4.0/",
		"https://creativecommons.org/licenses/by/3.0/nz/legalcode": "https://creativecommons.org/licenses/by/3.0/nz/",
		"https://example.com/licence.html":                         "https://example.com/licence.html",
	} {
		if got := DeedURL(&ent.License{LegalCodeURL: url}); got != want {
			t.Errorf("DeedURL(%q) = %q, want %q", url, got, want)
		}
	}
}

func TestIsCreativeCommons(t *testing.T) {
	for typ, want := range map[string]bool{"cc-by": true, "cc-by-nc-sa": true, "public-domain": false, "odbl": false} {
		if got := IsCreativeCommons(&ent.License{Type: typ}); got != want {
			t.Errorf("IsCreativeCommons(%q) = %v", typ, got)
		}
	}
}

func TestParentKey(t *testing.T) {
	for key, want := range map[string]string{
		"transportation/roads": "transportation", "a/b/c": "a/b", "transportation": "", "": "",
	} {
		if got := ParentKey(key); got != want {
			t.Errorf("ParentKey(%q) = %q, want %q", key, got, want)
		}
	}
}
