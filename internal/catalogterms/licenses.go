package catalogterms

import (
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
)

// IsCreativeCommons says whether l is one of the Creative Commons
// attribution licences (cc-by...), which have a version and a
// jurisdiction.
func IsCreativeCommons(l *ent.License) bool { return strings.HasPrefix(l.Type, "cc-by") }

// DeedURL is a licence's human-readable summary: its legal code's URL
// without the trailing "legalcode".
func DeedURL(l *ent.License) string { return strings.TrimSuffix(l.LegalCodeURL, "legalcode") }

// licenseLess is the catalogue's order of licences: Creative Commons by
// version (newest first), unported before ported, then by jurisdiction;
// then the others; ties by id.
func licenseLess(a, b *ent.License) bool {
	ac, bc := IsCreativeCommons(a), IsCreativeCommons(b)
	switch {
	case ac != bc:
		return ac
	case a.Version != b.Version:
		return a.Version > b.Version
	case (a.Jurisdiction == "") != (b.Jurisdiction == ""):
		return a.Jurisdiction == ""
	case a.Jurisdiction != b.Jurisdiction:
		return a.Jurisdiction < b.Jurisdiction
	}
	return a.ID < b.ID
}

// ccModifiers are the parts a Creative Commons licence slug may add to
// cc-by, in their canonical order.
var ccModifiers = []string{"nc", "sa", "nd"}

// CreativeCommonsType checks a Creative Commons slug (cc-by, optionally
// with -nc, -sa, -nd, in any order, not both sa and nd) and returns its
// canonical form (cc-by-nc-sa for cc-by-sa-nc). A slug that does not start
// with cc-by is NOT_FOUND; a malformed one is INVALID.
func CreativeCommonsType(slug string) (string, error) {
	rest, ok := strings.CutPrefix(strings.ToLower(slug), "cc-by")
	if !ok {
		return "", apperr.New(apperr.NotFound, "%q is not a Creative Commons licence: its slug starts with cc-by.", slug)
	}
	seen := map[string]bool{}
	for rest != "" {
		var part string
		if part, ok = strings.CutPrefix(rest, "-"); !ok {
			return "", apperr.New(apperr.Invalid, "%q: after cc-by come -nc, -sa or -nd.", slug)
		}
		part, rest, _ = strings.Cut(part, "-")
		if rest != "" {
			rest = "-" + rest
		}
		switch {
		case part != "nc" && part != "sa" && part != "nd":
			return "", apperr.New(apperr.Invalid, "%q: %q is not a Creative Commons condition (nc, sa or nd).", slug, part)
		case seen[part]:
			return "", apperr.New(apperr.Invalid, "%q repeats -%s.", slug, part)
		}
		seen[part] = true
	}
	if seen["sa"] && seen["nd"] {
		return "", apperr.New(apperr.Invalid, "%q: a licence cannot be both share-alike (sa) and no-derivatives (nd).", slug)
	}
	typ := "cc-by"
	for _, m := range ccModifiers {
		if seen[m] {
			typ += "-" + m
		}
	}
	return typ, nil
}
