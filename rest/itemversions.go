package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
)

// writeItemVersion renders the item as of v with status; with location
// the Location header points at the version.
func (a *API) writeItemVersion(w http.ResponseWriter, r *http.Request, v *ent.CatalogItemVersion, status int, location bool) error {
	it, err := a.res.CatalogItemOf(r.Context(), v.ItemID)
	if err != nil {
		return err
	}
	js, err := a.renderItem(r, it, v)
	if err != nil {
		return err
	}
	writeAsOf(w, js, js.ThisVersion, status, location)
	return nil
}

func (a *API) updateItemVersion(w http.ResponseWriter, r *http.Request) error {
	vid, err := pathID(r, "vid")
	if err != nil {
		return err
	}
	var body itemBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	v, err := a.res.Mutation().UpdateCatalogItemVersion(r.Context(), chi.URLParam(r, "cid"), vid, graph.UpdateCatalogItemVersionInput{
		Title: body.Title, Description: body.Description, LinkURL: body.LinkURL, Tags: body.Tags, Categories: body.Categories})
	if err != nil {
		return err
	}
	return a.writeItemVersion(w, r, v, http.StatusOK, false)
}

// publishItemVersion publishes at once: 201 with the item as of the
// published version, Location pointing at that version (catalog items
// have no import for a publish group to wait for).
func (a *API) publishItemVersion(w http.ResponseWriter, r *http.Request) error {
	vid, err := pathID(r, "vid")
	if err != nil {
		return err
	}
	v, err := a.res.Mutation().PublishCatalogItemVersion(r.Context(), chi.URLParam(r, "cid"), vid)
	if err != nil {
		return err
	}
	return a.writeItemVersion(w, r, v, http.StatusCreated, true)
}

// itemMetadataRoutes serves the metadata of catalog item versions.
func (a *API) itemMetadataRoutes(r chi.Router) {
	a.metadataRoutes(r, itemPath+"/versions/{vid:[0-9]+}",
		func(r *http.Request) (*ent.MetadataDocument, string, error) {
			vid, err := pathID(r, "vid")
			if err != nil {
				return nil, "", err
			}
			v, err := a.res.Query().CatalogItemVersion(r.Context(), chi.URLParam(r, "cid"), vid)
			if err != nil {
				return nil, "", err
			}
			d, err := a.res.CatalogItemVersion().Metadata(r.Context(), v)
			return d, itemVersionPath(&ent.CatalogItem{ID: v.ItemID}, v.ID), err
		},
		func(r *http.Request, xml string) (*ent.MetadataDocument, string, error) {
			vid, err := pathID(r, "vid")
			if err != nil {
				return nil, "", err
			}
			d, err := a.res.Mutation().UploadCatalogItemMetadata(r.Context(), chi.URLParam(r, "cid"), vid, xml)
			if err != nil {
				return nil, "", err
			}
			return d, itemVersionPath(&ent.CatalogItem{ID: d.DatasetID}, d.VersionID), nil
		})
}

// itemVersions is the version routes of catalog items, keyed by public id.
func (a *API) itemVersions() datasetRoutes[string, ent.CatalogItem, ent.CatalogItemVersion, itemVersionJSON] {
	return datasetRoutes[string, ent.CatalogItem, ent.CatalogItemVersion, itemVersionJSON]{
		key:       func(r *http.Request) (string, error) { return chi.URLParam(r, "cid"), nil },
		noun:      func(cid string) string { return "Catalog item " + cid },
		load:      a.res.Query().CatalogItem,
		draft:     a.res.CatalogItem().DraftVersion,
		published: a.res.CatalogItem().PublishedVersion,
		byID:      a.res.Query().CatalogItemVersion,
		list:      a.res.Query().CatalogItemVersions,
		listed: func(r *http.Request, it *ent.CatalogItem, v *ent.CatalogItemVersion) (itemVersionJSON, error) {
			return a.links(r).itemVersion(it, v), nil
		},
		create:  a.res.Mutation().CreateCatalogItemDraft,
		restore: a.res.Mutation().RestoreCatalogItemVersion,
		write:   a.writeItemVersion,
		// Views are counted for layers, sets and documents only
		// (internal/popularity keeps no counters for catalog items).
		show: func(r *http.Request, cid string) (any, error) {
			it, err := a.res.Query().CatalogItem(r.Context(), cid)
			if err != nil {
				return nil, err
			}
			return a.renderItem(r, it, nil)
		},
		remove:        a.res.Mutation().DeleteCatalogItem,
		removeVersion: a.res.Mutation().DeleteCatalogItemVersion,
	}
}
