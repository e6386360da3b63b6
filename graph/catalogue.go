package graph

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/license"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/popularity"
)

// Limits of the catalogue fields of a dataset version.
const (
	maxTags       = 50
	maxCategories = 20
)

// catalogueCache holds the licences and categories for one request: both
// are small reference tables, read whole once per request, so lists of
// versions never cost a query per licence.
type catalogueCache struct {
	mu         sync.Mutex
	licenses   []*ent.License
	licenseBy  map[int]*ent.License
	categories []*ent.Category
	categoryBy map[string]*ent.Category
}

// Licenses returns every licence in the catalogue's order: Creative
// Commons by version (newest first), unported before ported, then by
// type; then the others.
func (r *Resolver) Licenses(ctx context.Context) ([]*ent.License, error) {
	c := &loadersFrom(ctx).catalogue
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.licenses == nil {
		ls, err := r.Client.License.Query().Order(ent.Asc(license.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(ls, func(i, j int) bool { return licenseLess(ls[i], ls[j]) })
		c.licenses, c.licenseBy = ls, make(map[int]*ent.License, len(ls))
		for _, l := range ls {
			c.licenseBy[l.ID] = l
		}
	}
	return c.licenses, nil
}

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

// IsCreativeCommons says whether l is one of the Creative Commons
// attribution licences (cc-by...), which have a version and a
// jurisdiction.
func IsCreativeCommons(l *ent.License) bool { return strings.HasPrefix(l.Type, "cc-by") }

// LicenseByID returns a licence, NOT_FOUND when there is none.
func (r *Resolver) LicenseByID(ctx context.Context, id int) (*ent.License, error) {
	if _, err := r.Licenses(ctx); err != nil {
		return nil, err
	}
	c := &loadersFrom(ctx).catalogue
	c.mu.Lock()
	l := c.licenseBy[id]
	c.mu.Unlock()
	if l == nil {
		return nil, apperr.New(apperr.NotFound, "Licence %d not found.", id)
	}
	return l, nil
}

// ccModifiers are the parts a Creative Commons licence slug may add to
// cc-by, in their canonical order.
var ccModifiers = []string{"nc", "sa", "nd"}

// CreativeCommonsLicense finds a Creative Commons licence by slug
// (cc-by, optionally with -nc, -sa, -nd, in any order, not both sa and
// nd), version (empty: the newest) and jurisdiction (empty: unported). A
// malformed slug is INVALID; a licence that is not in the catalogue is
// NOT_FOUND.
func (r *Resolver) CreativeCommonsLicense(ctx context.Context, slug, version, jurisdiction string) (*ent.License, error) {
	typ, err := canonicalCCType(slug)
	if err != nil {
		return nil, err
	}
	ls, err := r.Licenses(ctx)
	if err != nil {
		return nil, err
	}
	for _, l := range ls { // newest version first
		if l.Type == typ && l.Jurisdiction == jurisdiction && (version == "" || l.Version == version) {
			return l, nil
		}
	}
	what := "unported"
	if jurisdiction != "" {
		what = "for jurisdiction " + jurisdiction
	}
	return nil, apperr.New(apperr.NotFound, "No %s licence %s.", typ, what)
}

// canonicalCCType checks a Creative Commons slug and returns its
// canonical form (cc-by-nc-sa for cc-by-sa-nc).
func canonicalCCType(slug string) (string, error) {
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

// DeedURL is a licence's human-readable summary: its legal code's URL
// without the trailing "legalcode".
func DeedURL(l *ent.License) string { return strings.TrimSuffix(l.LegalCodeURL, "legalcode") }

// Categories returns every category ordered by key, so parents come before
// their children.
func (r *Resolver) Categories(ctx context.Context) ([]*ent.Category, error) {
	c := &loadersFrom(ctx).catalogue
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.categories == nil {
		cs, err := r.Client.Category.Query().All(ctx)
		if err != nil {
			return nil, err
		}
		// Byte order, the same on every database whatever its collation.
		sort.Slice(cs, func(i, j int) bool { return cs[i].Key < cs[j].Key })
		c.categories, c.categoryBy = cs, make(map[string]*ent.Category, len(cs))
		for _, x := range cs {
			c.categoryBy[x.Key] = x
		}
	}
	return c.categories, nil
}

// CategoryByKey returns the category of a key, nil when there is none.
func (r *Resolver) CategoryByKey(ctx context.Context, key string) (*ent.Category, error) {
	if _, err := r.Categories(ctx); err != nil {
		return nil, err
	}
	c := &loadersFrom(ctx).catalogue
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.categoryBy[key], nil
}

// ParentKey is the key of a category's parent, "" at the top level.
func ParentKey(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i]
	}
	return ""
}

// catalogueEdit is a checked change of a draft's catalogue fields.
type catalogueEdit struct {
	tags, categories []string
	setTags, setCats bool
	license          *int
	setLicense       bool
}

// catalogueSetter is the part of a version mutation that holds the
// catalogue fields (layer, set and document versions alike).
type catalogueSetter interface {
	SetTags([]string)
	SetCategories([]string)
	SetLicenseID(int)
	ClearLicenseID()
}

// checkCatalogue checks new tags (trimmed, blanks and repeats dropped, at
// most maxTags of at most 100 characters), categories (keys of existing
// categories) and licence (an existing licence; null removes it). nil
// slices leave a field unchanged.
func (r *Resolver) checkCatalogue(ctx context.Context, tags, categories []string, lic graphql.Omittable[*int]) (catalogueEdit, error) {
	var e catalogueEdit
	var err error
	if tags != nil {
		if e.tags, err = cleanLabels("tags", tags); err != nil {
			return e, err
		}
		if len(e.tags) > maxTags {
			return e, apperr.Field("tags", fmt.Sprintf("Ensure this field has no more than %d tags.", maxTags))
		}
		e.setTags = true
	}
	if categories != nil {
		if e.categories, err = cleanLabels("categories", categories); err != nil {
			return e, err
		}
		if len(e.categories) > maxCategories {
			return e, apperr.Field("categories", fmt.Sprintf("Ensure this field has no more than %d categories.", maxCategories))
		}
		for _, k := range e.categories {
			c, err := r.CategoryByKey(ctx, k)
			if err != nil {
				return e, err
			}
			if c == nil {
				return e, apperr.Field("categories", fmt.Sprintf("%q is not a category: categories are named by their keys (GET /categories/).", k))
			}
		}
		e.setCats = true
	}
	if v, ok := lic.ValueOK(); ok {
		e.setLicense = true
		if v != nil {
			if _, err := r.LicenseByID(ctx, *v); err != nil {
				if apperr.CodeOf(err) == apperr.NotFound {
					return e, apperr.Field("license", fmt.Sprintf("Licence %d does not exist (GET /licenses/).", *v))
				}
				return e, err
			}
			e.license = v
		}
	}
	return e, nil
}

// createLicense is a create input's licence as an edit: unset when none
// is given.
func createLicense(id *int) graphql.Omittable[*int] {
	if id == nil {
		return graphql.Omittable[*int]{}
	}
	return graphql.OmittableOf(id)
}

// apply sets the checked fields on a version mutation.
func (e catalogueEdit) apply(m catalogueSetter) {
	if e.setTags {
		m.SetTags(e.tags)
	}
	if e.setCats {
		m.SetCategories(e.categories)
	}
	if e.setLicense {
		if e.license != nil {
			m.SetLicenseID(*e.license)
		} else {
			m.ClearLicenseID()
		}
	}
}

// versionLicense is the licence of a version, nil when it has none.
func (r *Resolver) versionLicense(ctx context.Context, id *int) (*ent.License, error) {
	if id == nil {
		return nil, nil
	}
	l, err := r.LicenseByID(ctx, *id)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, nil
	}
	return l, err
}

// countView counts a view of a dataset's detail when the GraphQL field
// being resolved is a root query field (REST handlers count their own
// detail reads; resolvers called from elsewhere do not count).
func (r *Resolver) countView(ctx context.Context, kind popularity.Kind, id int) {
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Object == "Query" {
		r.Popularity.View(kind, id)
	}
}
