package graph

import (
	"context"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitemattachment"
	"github.com/geopub/geopub/ent/catalogitemgeotag"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/geo/geojson"
)

// documentFilter narrows document queries to the documents the caller may
// see.
func (r *Resolver) documentFilter(ctx context.Context) (func(*ent.DocumentQuery) *ent.DocumentQuery, error) {
	vis, err := documentVisible(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	return func(q *ent.DocumentQuery) *ent.DocumentQuery { return q.Where(vis) }, nil
}

// itemAttachments returns the attached documents the caller may see, in
// the order they were attached.
func (r *Resolver) itemAttachments(ctx context.Context, itemID int) ([]*ent.Document, error) {
	ids, err := r.Client.CatalogItemAttachment.Query().Where(catalogitemattachment.ItemID(itemID)).
		Order(catalogitemattachment.ByID()).Select(catalogitemattachment.FieldDocumentID).Ints(ctx)
	if err != nil || len(ids) == 0 {
		return []*ent.Document{}, err
	}
	vis, err := r.documentFilter(ctx)
	if err != nil {
		return nil, err
	}
	docs, err := vis(r.Client.Document.Query().Where(document.IDIn(ids...))).All(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[int]*ent.Document, len(docs))
	for _, d := range docs {
		byID[d.ID] = d
	}
	out := make([]*ent.Document, 0, len(docs))
	for _, id := range ids {
		if d, ok := byID[id]; ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// ItemAttachment returns one attached document the caller may see, else
// NOT_FOUND.
func (r *Resolver) ItemAttachment(ctx context.Context, itemID string, documentID int) (*ent.Document, error) {
	it, err := r.loadItem(ctx, itemID, itemRead)
	if err != nil {
		return nil, err
	}
	docs, err := r.itemAttachments(ctx, it.ID)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		if d.ID == documentID {
			return d, nil
		}
	}
	return nil, apperr.New(apperr.NotFound, "Document %d is not attached to %s.", documentID, itemID)
}

// attachDocument attaches a document the caller may see; attaching it
// again changes nothing.
func (r *Resolver) attachDocument(ctx context.Context, it *ent.CatalogItem, documentID int) (*ent.Document, error) {
	vis, err := r.documentFilter(ctx)
	if err != nil {
		return nil, err
	}
	d, err := vis(r.Client.Document.Query().Where(document.ID(documentID))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.Field("document", "The document does not exist or you cannot see it.")
	}
	if err != nil {
		return nil, err
	}
	err = r.Client.CatalogItemAttachment.Create().SetItemID(it.ID).SetDocumentID(d.ID).
		OnConflictColumns(catalogitemattachment.FieldItemID, catalogitemattachment.FieldDocumentID).
		DoNothing().Exec(ctx)
	if err != nil && !strings.Contains(err.Error(), "no rows in result set") {
		return nil, err
	}
	return d, nil
}

// detachDocument removes an attachment.
func (r *Resolver) detachDocument(ctx context.Context, it *ent.CatalogItem, documentID int) (bool, error) {
	n, err := r.Client.CatalogItemAttachment.Delete().
		Where(catalogitemattachment.ItemID(it.ID), catalogitemattachment.DocumentID(documentID)).Exec(ctx)
	if err == nil && n == 0 {
		err = apperr.New(apperr.NotFound, "Document %d is not attached to %s.", documentID, ItemPublicID(it.ID))
	}
	return err == nil, err
}

// itemGeotags returns an item's named places in the order they were added.
func (r *Resolver) itemGeotags(ctx context.Context, itemID int) ([]*ent.CatalogItemGeotag, error) {
	return r.Client.CatalogItemGeotag.Query().Where(catalogitemgeotag.ItemID(itemID)).
		Order(catalogitemgeotag.ByID()).All(ctx)
}

// ItemGeotag returns one named place of an item the caller may see.
func (r *Resolver) ItemGeotag(ctx context.Context, itemID string, geotagID int) (*ent.CatalogItemGeotag, error) {
	it, err := r.loadItem(ctx, itemID, itemRead)
	if err != nil {
		return nil, err
	}
	g, err := r.Client.CatalogItemGeotag.Query().
		Where(catalogitemgeotag.ID(geotagID), catalogitemgeotag.ItemID(it.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Geotag %d not found.", geotagID)
	}
	return g, err
}

// addGeotag validates and adds a named place.
func (r *Resolver) addGeotag(ctx context.Context, it *ent.CatalogItem, in GeotagInput) (*ent.CatalogItemGeotag, error) {
	fe := apperr.FieldErrors{}
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		fe.Add("name", "This field is required.")
	case len(name) > 200:
		fe.Add("name", "Ensure this field has no more than 200 characters.")
	}
	if err := geojson.Validate(in.Geometry); err != nil {
		fe.Add("geometry", "Enter a GeoJSON geometry in EPSG:4326: "+err.Error()+".")
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	g, err := inTx(ctx, r, func(ctx context.Context, tx *ent.Client) (*ent.CatalogItemGeotag, error) {
		return tx.CatalogItemGeotag.Create().SetItemID(it.ID).SetName(name).SetGeometry(in.Geometry).Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	// Read back through r.Client: g belongs to the ended transaction.
	return r.Client.CatalogItemGeotag.Get(ctx, g.ID)
}

// removeGeotag removes a named place.
func (r *Resolver) removeGeotag(ctx context.Context, it *ent.CatalogItem, geotagID int) (bool, error) {
	n, err := inTx(ctx, r, func(ctx context.Context, tx *ent.Client) (int, error) {
		return tx.CatalogItemGeotag.Delete().Where(catalogitemgeotag.ID(geotagID), catalogitemgeotag.ItemID(it.ID)).Exec(ctx)
	})
	if err == nil && n == 0 {
		err = apperr.New(apperr.NotFound, "Geotag %d not found.", geotagID)
	}
	return err == nil, err
}
