package catalogterms

import (
	"context"
	"sort"
	"sync"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/license"
	"github.com/geopub/geopub/internal/apperr"
)

// Cache holds the licences and categories for one request: both are small
// reference tables, read whole once per request, so lists of versions
// never cost a query per licence. The zero Cache is ready to use.
type Cache struct {
	mu         sync.Mutex
	licenses   []*ent.License
	licenseBy  map[int]*ent.License
	categories []*ent.Category
	categoryBy map[string]*ent.Category
}

// Licenses returns every licence in the catalogue's order: Creative
// Commons by version (newest first), unported before ported, then by
// jurisdiction; then the others.
func (k *Cache) Licenses(ctx context.Context, c *ent.Client) ([]*ent.License, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.licenses == nil {
		ls, err := c.License.Query().Order(ent.Asc(license.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(ls, func(i, j int) bool { return licenseLess(ls[i], ls[j]) })
		k.licenses, k.licenseBy = ls, make(map[int]*ent.License, len(ls))
		for _, l := range ls {
			k.licenseBy[l.ID] = l
		}
	}
	return k.licenses, nil
}

// License returns a licence, NOT_FOUND when there is none.
func (k *Cache) License(ctx context.Context, c *ent.Client, id int) (*ent.License, error) {
	if _, err := k.Licenses(ctx, c); err != nil {
		return nil, err
	}
	k.mu.Lock()
	l := k.licenseBy[id]
	k.mu.Unlock()
	if l == nil {
		return nil, apperr.New(apperr.NotFound, "Licence %d not found.", id)
	}
	return l, nil
}

// CreativeCommons finds a Creative Commons licence by slug (as
// CreativeCommonsType reads it), version (empty: the newest) and
// jurisdiction (empty: unported). A malformed slug is INVALID; a licence
// that is not in the catalogue is NOT_FOUND.
func (k *Cache) CreativeCommons(ctx context.Context, c *ent.Client, slug, version, jurisdiction string) (*ent.License, error) {
	typ, err := CreativeCommonsType(slug)
	if err != nil {
		return nil, err
	}
	ls, err := k.Licenses(ctx, c)
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

// Categories returns every category ordered by key, so parents come before
// their children.
func (k *Cache) Categories(ctx context.Context, c *ent.Client) ([]*ent.Category, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.categories == nil {
		cs, err := c.Category.Query().All(ctx)
		if err != nil {
			return nil, err
		}
		// Byte order, the same on every database whatever its collation.
		sort.Slice(cs, func(i, j int) bool { return cs[i].Key < cs[j].Key })
		k.categories, k.categoryBy = cs, make(map[string]*ent.Category, len(cs))
		for _, x := range cs {
			k.categoryBy[x.Key] = x
		}
	}
	return k.categories, nil
}

// Category returns the category of a key, nil when there is none.
func (k *Cache) Category(ctx context.Context, c *ent.Client, key string) (*ent.Category, error) {
	if _, err := k.Categories(ctx, c); err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.categoryBy[key], nil
}
