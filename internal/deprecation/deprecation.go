package deprecation

import (
	"context"
	"database/sql"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/textrules"
)

// MaxReason is the most characters a reason may have (the MaxLen of
// deprecation_reason in ent/schema).
const MaxReason = 1000

// Dataset names a dataset by its type as the API names it (layer, table,
// set, document, item) and its id.
type Dataset struct {
	Type string
	ID   int
}

// kinds are the dataset types and the permission kind of each.
var kinds = map[string]access.Kind{
	"layer": access.KindLayer, "table": access.KindLayer, "set": access.KindSet,
	"document": access.KindDocument, "item": access.KindCatalogItem,
}

// Types lists the dataset types a replacement may have.
var Types = []string{"layer", "table", "set", "document", "item"}

// Request is a marking asked for: why, and what replaces the dataset.
type Request struct {
	Reason      string
	Replacement *Dataset
}

// Notice is a dataset's deprecation.
type Notice struct {
	At          time.Time
	Reason      string
	Replacement *Dataset
}

// Of is the notice a dataset's deprecation fields hold, nil when it is
// not deprecated.
func Of(at *time.Time, reason, replacementType string, replacementID *int) *Notice {
	if at == nil {
		return nil
	}
	n := &Notice{At: *at, Reason: reason}
	if replacementType != "" && replacementID != nil {
		n.Replacement = &Dataset{Type: replacementType, ID: *replacementID}
	}
	return n
}

// Service marks datasets deprecated and clears the mark.
type Service struct {
	Store *store.Store
}

// Check validates req for dataset d as the caller v asks it, returning it
// with the reason trimmed: an Invalid error naming the field otherwise.
func Check(ctx context.Context, c *ent.Client, v *access.Viewer, d Dataset, req Request) (Request, error) {
	reason, err := textrules.Required("reason", req.Reason, "Give the reason the dataset should no longer be used.")
	if err != nil {
		return req, err
	}
	if err := textrules.Check("reason", reason); err != nil {
		return req, err
	}
	if n := utf8.RuneCountInString(reason); n > MaxReason {
		return req, apperr.Field("reason", fmt.Sprintf("Ensure this field has no more than %d characters (it has %d).", MaxReason, n))
	}
	req.Reason = reason
	r := req.Replacement
	if r == nil {
		return req, nil
	}
	if _, ok := kinds[r.Type]; !ok {
		return req, apperr.Field("replacement", fmt.Sprintf("%q is not a dataset type: give layer, table, set, document or item.", r.Type))
	}
	if kinds[r.Type] == kinds[d.Type] && r.ID == d.ID {
		return req, apperr.Field("replacement", "A dataset cannot replace itself: give another dataset, or none.")
	}
	ok, err := visible(ctx, c, v, *r)
	if err != nil {
		return req, err
	}
	if !ok {
		return req, apperr.Field("replacement", fmt.Sprintf("No %s %d exists that you may see: give a dataset you can see.", r.Type, r.ID))
	}
	return req, nil
}

// visible reports whether d exists and v may see it.
func visible(ctx context.Context, c *ent.Client, v *access.Viewer, d Dataset) (bool, error) {
	var ok bool
	var err error
	switch d.Type {
	case "layer", "table":
		ok, err = c.Layer.Query().Where(layer.ID(d.ID), layer.TypeEQ(layer.Type(d.Type)), v.Visible(access.KindLayer)).Exist(ctx)
	case "set":
		ok, err = c.Set.Query().Where(set.ID(d.ID), v.Visible(access.KindSet)).Exist(ctx)
	case "document":
		ok, err = c.Document.Query().Where(document.ID(d.ID), v.Visible(access.KindDocument)).Exist(ctx)
	case "item":
		ok, err = c.CatalogItem.Query().Where(catalogitem.ID(d.ID), v.Visible(access.KindCatalogItem)).Exist(ctx)
	}
	if err != nil {
		return false, fmt.Errorf("deprecation: finding %s %d: %w", d.Type, d.ID, err)
	}
	return ok, nil
}

// Deprecate marks d deprecated as req asks (see Check), for the caller v,
// who the door has checked may edit d. A deprecated d keeps the time it
// was first marked.
func (s *Service) Deprecate(ctx context.Context, v *access.Viewer, d Dataset, req Request) error {
	req, err := Check(ctx, s.Store.Client, v, d, req)
	if err != nil {
		return err
	}
	return s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		was, err := read(ctx, c, d)
		if err != nil {
			return err
		}
		at := time.Now().UTC()
		if was != nil {
			at = was.At
		}
		return write(ctx, c, d, &Notice{At: at, Reason: req.Reason, Replacement: req.Replacement})
	})
}

// Read returns d's deprecation, nil when it is not deprecated.
func (s *Service) Read(ctx context.Context, d Dataset) (*Notice, error) {
	return read(ctx, s.Store.Client, d)
}

// Undeprecate clears d's deprecation (idempotent), for a caller the door
// has checked may edit d.
func (s *Service) Undeprecate(ctx context.Context, d Dataset) error {
	return s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		return write(ctx, c, d, nil)
	})
}
