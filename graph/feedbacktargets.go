package graph

import (
	"context"
	"fmt"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/feedback"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// ticketedKinds are the kinds of dataset the specification lets feedback
// be about, as ticketed_object.type says them; feedbackKindOf gives each
// its rules.
var ticketedKinds = []string{"layer", "table", "document", "set", ticketedItem}

// ticketedItem is how ticketed_object.type names catalog items.
const ticketedItem = "catalog item"

// feedbackKind is what feedback needs to know of one kind of ticketed
// object: predicates, over the kind's own table, selecting the objects a
// principal may see and those they may edit.
type feedbackKind struct {
	table             string
	visible, editable func(*entsql.Selector)
}

// feedbackKindOf returns the rules of kind typ for p, or nil when feedback
// cannot be attached to that kind. This is the one place a kind of dataset
// joins feedback: a case giving its visibility and edit predicates.
func (r *Resolver) feedbackKindOf(ctx context.Context, typ string, p auth.Principal) (*feedbackKind, error) {
	switch typ {
	case "layer", "table":
		vis, err := layerVisible(ctx, r.Client, p)
		if err != nil {
			return nil, err
		}
		edit, err := layerEditable(ctx, r.Client, p)
		if err != nil {
			return nil, err
		}
		is := layer.TypeEQ(layer.Type(typ))
		return &feedbackKind{table: layer.Table, visible: layer.And(is, vis), editable: layer.And(is, edit)}, nil
	case "document":
		vis, err := documentVisible(ctx, r.Client, p)
		if err != nil {
			return nil, err
		}
		edit, err := documentEditable(ctx, r.Client, p)
		if err != nil {
			return nil, err
		}
		return &feedbackKind{table: document.Table, visible: vis, editable: edit}, nil
	case "set":
		vis, err := setVisible(ctx, r.Client, p)
		if err != nil {
			return nil, err
		}
		edit, err := setEditable(ctx, r.Client, p)
		if err != nil {
			return nil, err
		}
		return &feedbackKind{table: set.Table, visible: vis, editable: edit}, nil
	case ticketedItem:
		vis, err := catalogItemVisible(ctx, r.Client, p)
		if err != nil {
			return nil, err
		}
		edit, err := catalogItemEditable(ctx, r.Client, p)
		if err != nil {
			return nil, err
		}
		return &feedbackKind{table: catalogitem.Table, visible: vis, editable: edit}, nil
	}
	return nil, nil
}

// ids selects the ids of the kind's objects the principal may see (edit,
// when edit is set).
func (k *feedbackKind) ids(edit bool) *entsql.Selector {
	t := entsql.Table(k.table)
	sel := entsql.Select(t.C("id")).From(t)
	if edit {
		k.editable(sel)
	} else {
		k.visible(sel)
	}
	return sel
}

// targetIn narrows feedback to items about an object of kind typ selected
// by ids.
func targetIn(typ string, ids *entsql.Selector) predicate.Feedback {
	return func(s *entsql.Selector) {
		s.Where(entsql.And(entsql.EQ(s.C(feedback.FieldTargetType), typ), entsql.In(s.C(feedback.FieldTargetID), ids)))
	}
}

// unsupportedTarget is the error for a ticketed_object kind feedback
// cannot be attached to.
func unsupportedTarget(field, typ string) error {
	return apperr.Field(field, fmt.Sprintf("unsupported ticketed_object type %q: feedback can be about a layer, table, document, set or catalog item.", typ))
}

// targetAccess says whether p may see, and edit, object id of kind typ.
// An unsupported kind is a 400 naming field.
func (r *Resolver) targetAccess(ctx context.Context, field, typ string, id int, p auth.Principal) (see, edit bool, err error) {
	k, err := r.feedbackKindOf(ctx, typ, p)
	if err != nil {
		return false, false, err
	}
	if k == nil {
		return false, false, unsupportedTarget(field, typ)
	}
	if see, err = r.selectsID(ctx, k.ids(false), id); err != nil || !see {
		return false, false, err
	}
	edit, err = r.selectsID(ctx, k.ids(true), id)
	return see, edit, err
}

// selectsID reports whether the id-selecting query sel returns id.
func (r *Resolver) selectsID(ctx context.Context, sel *entsql.Selector, id int) (bool, error) {
	sel.SetDialect(r.Store.Dialect)
	sel.Where(entsql.EQ(sel.C("id"), id)).Limit(1)
	query, args := sel.Query()
	rows, err := r.Store.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}

// feedbackTarget checks the ticketed object of a new item: a supported
// kind, an id, and an object the caller may see. Objects that do not exist
// and those hidden from the caller get the same answer.
func (r *Resolver) feedbackTarget(ctx context.Context, typ string, id int) error {
	if typ == "" {
		return apperr.Field("ticketed_object.type", "This field is required.")
	}
	if id < 1 {
		return apperr.Field("ticketed_object.id", "A valid id is required.")
	}
	see, _, err := r.targetAccess(ctx, "ticketed_object.type", typ, id, auth.FromContext(ctx))
	if err != nil {
		return err
	}
	if !see {
		return apperr.Field("ticketed_object", fmt.Sprintf("There is no %s %d that you can see.", typ, id))
	}
	return nil
}
