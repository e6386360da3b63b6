package graph

import (
	"context"
	entsql "entgo.io/ent/dialect/sql"
	"html"
	"strconv"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/catalogitems"
	"github.com/geopub/geopub/internal/lifecycle"
)

// ItemPublicID is the public id of a catalog item: its id prefixed with c.
func ItemPublicID(id int) string { return "c" + strconv.Itoa(id) }

// ParseItemID reads a public id (c12); anything else names no item
// (NOT_FOUND).
func ParseItemID(public string) (int, error) {
	rest, ok := strings.CutPrefix(public, "c")
	n, err := strconv.Atoi(rest)
	if !ok || err != nil || n < 1 || rest != strconv.Itoa(n) {
		return 0, apperr.New(apperr.NotFound, "Catalog item %q not found.", public)
	}
	return n, nil
}

// catalogItemVisible narrows catalog items to those the caller may read:
// published ones they hold view on, and the ones they may edit. Every read
// of an item goes through it.
func catalogItemVisible(ctx context.Context, c *ent.Client, p auth.Principal) (predicate.CatalogItem, error) {
	return visibleTo[predicate.CatalogItem](ctx, c, p, access.KindCatalogItem)
}

// catalogItemEditable narrows catalog items to those p administers (edits
// drafts of, publishes, deletes, attaches to), by the rules of every
// dataset. Every administrative check goes through it.
func catalogItemEditable(ctx context.Context, c *ent.Client, p auth.Principal) (predicate.CatalogItem, error) {
	return editableBy[predicate.CatalogItem](ctx, c, p, access.KindCatalogItem)
}

// itemAccess is what an operation on a catalog item needs of the caller.
type itemAccess int

const (
	// itemRead: the catalog scope (anonymous callers pass); visible items.
	itemRead itemAccess = iota
	// itemConsume: a signed-in user with the catalog scope; visible items.
	itemConsume
	// itemAdmin: a signed-in user with items:write; editable items
	// (visible ones they may not edit are FORBIDDEN).
	itemAdmin
)

// loadItem returns the item a public id names if the caller may use it as
// need says. Items the caller cannot see are NOT_FOUND; for itemAdmin,
// items they see without edit are FORBIDDEN, as for every dataset.
func (r *Resolver) loadItem(ctx context.Context, public string, need itemAccess) (*ent.CatalogItem, error) {
	var err error
	switch need {
	case itemRead:
		err = access.RequireScope(ctx, auth.ScopeCatalog)
	case itemConsume:
		_, err = access.RequireUser(ctx, auth.ScopeCatalog)
	case itemAdmin:
		_, err = access.RequireUser(ctx, auth.ScopeItemsWrite)
	}
	if err != nil {
		return nil, err
	}
	id, err := ParseItemID(public)
	if err != nil {
		return nil, err
	}
	pred, err := catalogItemVisible(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	it, err := r.Client.CatalogItem.Query().Where(catalogitem.ID(id), pred).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Catalog item %s not found.", public)
	}
	if err != nil || need != itemAdmin {
		return it, err
	}
	if ok, err := r.canEditItem(ctx, it); err != nil {
		return nil, err
	} else if !ok {
		return nil, apperr.New(apperr.PermissionDenied, "You need edit permission on catalog item %s.", public)
	}
	return it, nil
}

// canEditItem reports whether the caller may administer it.
func (r *Resolver) canEditItem(ctx context.Context, it *ent.CatalogItem) (bool, error) {
	pred, err := catalogItemEditable(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return false, err
	}
	return r.Client.CatalogItem.Query().Where(catalogitem.ID(it.ID), pred).Exist(ctx)
}

// loadItemVersion returns a version of an item: published and superseded
// versions of visible items; drafts and deleted versions only for those
// who may edit the item.
func (r *Resolver) loadItemVersion(ctx context.Context, public string, versionID int, need itemAccess) (*ent.CatalogItem, *ent.CatalogItemVersion, error) {
	it, err := r.loadItem(ctx, public, need)
	if err != nil {
		return nil, nil, err
	}
	v, err := r.itemKind().loadVersion(ctx, it, versionID, need == itemAdmin)
	if err != nil {
		return nil, nil, err
	}
	return it, v, nil
}

// items writes catalog items and their drafts.
func (r *Resolver) items() *catalogitems.Service {
	return &catalogitems.Service{Store: r.Store}
}

// DescriptionHTML renders a dataset description as safe HTML. It is the
// one place the rendering happens: today escaped plain text in
// paragraphs; the lightweight-markup renderer replaces it here.
func DescriptionHTML(s string) string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, "<p>"+strings.ReplaceAll(html.EscapeString(p), "\n", "<br>\n")+"</p>")
		}
	}
	return strings.Join(out, "\n")
}

// itemKind is the catalog items' datasetKind.
func (r *Resolver) itemKind() datasetKind[ent.CatalogItem, ent.CatalogItemVersion] {
	return datasetKind[ent.CatalogItem, ent.CatalogItemVersion]{
		// Items load through loadItem: public ids, and three access needs.
		kind:      access.KindCatalogItem,
		title:     "Catalog item",
		noun:      func(it *ent.CatalogItem) string { return "catalog item " + ItemPublicID(it.ID) },
		canEdit:   r.canEditItem,
		name:      func(it *ent.CatalogItem) string { return "Catalog item " + ItemPublicID(it.ID) },
		ids:       func(it *ent.CatalogItem) (int, *int) { return it.ID, it.PublishedVersionID },
		versionID: func(v *ent.CatalogItemVersion) int { return v.ID },
		current: func(ctx context.Context, id int) (currentOf[*ent.CatalogItemVersion], error) {
			return loadersFrom(ctx).items.itemVersions(ctx, r.Client, id)
		},
		mayEdit: func(ctx context.Context, it *ent.CatalogItem) (bool, error) {
			return loadersFrom(ctx).items.mayEditItem(ctx, r.Client, it.ID)
		},
		get: r.Client.CatalogItemVersion.Get,
		version: func(ctx context.Context, id, versionID int) (*ent.CatalogItemVersion, error) {
			return r.Client.CatalogItemVersion.Query().Where(catalogitemversion.ID(versionID), catalogitemversion.ItemID(id)).Only(ctx)
		},
		released: func(v *ent.CatalogItemVersion) bool {
			return lifecycle.Released(v.State)
		},
		list: func(ctx context.Context, id int, drafts bool) ([]*ent.CatalogItemVersion, error) {
			q := r.Client.CatalogItemVersion.Query().Where(catalogitemversion.ItemID(id), catalogitemversion.StateNEQ(catalogitemversion.StateDeleted))
			if !drafts {
				q.Where(catalogitemversion.StateIn(catalogitemversion.StatePublished, catalogitemversion.StateSuperseded))
			}
			return q.Order(catalogitemversion.ByID(entsql.OrderDesc())).All(ctx)
		},
	}
}
