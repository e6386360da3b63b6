package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/catalogterms"
	"github.com/geopub/geopub/internal/popularity"
)

// Licenses returns every licence in the catalogue's order, read once per
// request.
func (r *Resolver) Licenses(ctx context.Context) ([]*ent.License, error) {
	return loadersFrom(ctx).catalogue.Licenses(ctx, r.Client)
}

// LicenseByID returns a licence, NOT_FOUND when there is none.
func (r *Resolver) LicenseByID(ctx context.Context, id int) (*ent.License, error) {
	return loadersFrom(ctx).catalogue.License(ctx, r.Client, id)
}

// CreativeCommonsLicense finds a Creative Commons licence by slug, version
// (empty: the newest) and jurisdiction (empty: unported), as
// catalogterms.Cache.CreativeCommons does.
func (r *Resolver) CreativeCommonsLicense(ctx context.Context, slug, version, jurisdiction string) (*ent.License, error) {
	return loadersFrom(ctx).catalogue.CreativeCommons(ctx, r.Client, slug, version, jurisdiction)
}

// Categories returns every category ordered by key, so parents come before
// their children.
func (r *Resolver) Categories(ctx context.Context) ([]*ent.Category, error) {
	return loadersFrom(ctx).catalogue.Categories(ctx, r.Client)
}

// CategoryByKey returns the category of a key, nil when there is none.
func (r *Resolver) CategoryByKey(ctx context.Context, key string) (*ent.Category, error) {
	return loadersFrom(ctx).catalogue.Category(ctx, r.Client, key)
}

// checkCatalogue checks new tags, categories and licence of a version
// (catalogterms.Cache.Check); nil slices and an unset licence leave a
// field unchanged, a null licence removes it.
func (r *Resolver) checkCatalogue(ctx context.Context, tags, categories []string, lic graphql.Omittable[*int]) (catalogterms.Edit, error) {
	v, set := lic.ValueOK()
	return loadersFrom(ctx).catalogue.Check(ctx, r.Client,
		catalogterms.Change{Tags: tags, Categories: categories, SetLicense: set, License: v})
}

// checkNewDataset checks what a new dataset takes from its creator's
// input besides its own fields: the owning group, which inGroup checks
// the caller may put data in, and the catalogue terms.
func (r *Resolver) checkNewDataset(ctx context.Context, inGroup func(context.Context, int) error, groupID *int, tags, categories []string, license *int) (catalogterms.Edit, error) {
	if groupID != nil {
		if err := inGroup(ctx, *groupID); err != nil {
			return catalogterms.Edit{}, err
		}
	}
	return r.checkCatalogue(ctx, tags, categories, createLicense(license))
}

// createLicense is a create input's licence as an edit: unset when none
// is given.
func createLicense(id *int) graphql.Omittable[*int] {
	if id == nil {
		return graphql.Omittable[*int]{}
	}
	return graphql.OmittableOf(id)
}

// countView counts a view of a dataset's detail when the GraphQL field
// being resolved is a root query field (REST handlers count their own
// detail reads; resolvers called from elsewhere do not count).
func (r *Resolver) countView(ctx context.Context, kind popularity.Kind, id int) {
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Object == "Query" {
		r.Popularity.View(kind, id)
	}
}
