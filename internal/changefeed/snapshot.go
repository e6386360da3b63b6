package changefeed

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/internal/access"
)

// state is what the feed compares of a dataset before and after a
// transaction.
type state struct {
	exists    bool
	typ       string // layer, table, set, document, item
	vector    bool   // a vector layer or table: its versions hold features
	title     string
	published *int
	grants    string // the grants, sorted, as one string
	public    bool   // everyone may view it
	mark      mark   // its deprecation
}

// mark is a dataset's deprecation as its row holds it.
type mark struct {
	at                   *time.Time // nil when not deprecated
	reason, replacedType string
	replacedID           *int
}

// detail is the detail of a dataset.deprecated event: the reason and
// the replacement (nil when none), named as the API names datasets.
func (m mark) detail() map[string]any {
	var repl any
	if m.replacedID != nil && m.replacedType != "" {
		repl = map[string]any{"type": m.replacedType, "id": PublicID(m.replacedType, *m.replacedID)}
	}
	return map[string]any{"reason": m.reason, "replacement": repl}
}

// snapshot reads ref's state through c (a transaction's client).
func snapshot(ctx context.Context, c *ent.Client, ref Ref) (state, error) {
	var s state
	var err error
	switch ref.Kind {
	case access.KindLayer:
		var l *ent.Layer
		l, err = c.Layer.Query().Where(layer.ID(ref.ID)).
			Select(layer.FieldType, layer.FieldKind, layer.FieldName, layer.FieldPublishedVersionID, layer.FieldDeprecatedAt,
				layer.FieldDeprecationReason, layer.FieldReplacementType, layer.FieldReplacementID).Only(ctx)
		if err == nil {
			s = state{exists: true, typ: string(l.Type), vector: l.Kind == layer.KindVector, title: l.Name, published: l.PublishedVersionID,
				mark: mark{l.DeprecatedAt, l.DeprecationReason, l.ReplacementType, l.ReplacementID}}
		}
	case access.KindSet:
		var x *ent.Set
		x, err = c.Set.Query().Where(set.ID(ref.ID)).Select(set.FieldTitle, set.FieldPublishedVersionID, set.FieldDeprecatedAt,
			set.FieldDeprecationReason, set.FieldReplacementType, set.FieldReplacementID).Only(ctx)
		if err == nil {
			s = state{exists: true, typ: "set", title: x.Title, published: x.PublishedVersionID,
				mark: mark{x.DeprecatedAt, x.DeprecationReason, x.ReplacementType, x.ReplacementID}}
		}
	case access.KindDocument:
		var d *ent.Document
		d, err = c.Document.Query().Where(document.ID(ref.ID)).Select(document.FieldName, document.FieldPublishedVersionID,
			document.FieldDeprecatedAt, document.FieldDeprecationReason, document.FieldReplacementType, document.FieldReplacementID).Only(ctx)
		if err == nil {
			s = state{exists: true, typ: "document", title: d.Name, published: d.PublishedVersionID,
				mark: mark{d.DeprecatedAt, d.DeprecationReason, d.ReplacementType, d.ReplacementID}}
		}
	case access.KindCatalogItem:
		var it *ent.CatalogItem
		it, err = c.CatalogItem.Query().Where(catalogitem.ID(ref.ID)).
			Select(catalogitem.FieldTitle, catalogitem.FieldPublishedVersionID, catalogitem.FieldDeprecatedAt,
				catalogitem.FieldDeprecationReason, catalogitem.FieldReplacementType, catalogitem.FieldReplacementID).Only(ctx)
		if err == nil {
			s = state{exists: true, typ: "item", title: it.Title, published: it.PublishedVersionID,
				mark: mark{it.DeprecatedAt, it.DeprecationReason, it.ReplacementType, it.ReplacementID}}
		}
	default:
		return s, nil
	}
	if ent.IsNotFound(err) {
		return state{}, nil
	}
	if err != nil {
		return s, fmt.Errorf("changefeed: reading %s %d: %w", ref.Kind, ref.ID, err)
	}
	grants, err := c.DatasetPermission.Query().
		Where(datasetpermission.DatasetKindEQ(ref.Kind), datasetpermission.DatasetID(ref.ID)).All(ctx)
	if err != nil {
		return s, fmt.Errorf("changefeed: reading the grants of %s %d: %w", ref.Kind, ref.ID, err)
	}
	keys := make([]string, len(grants))
	for i, g := range grants {
		keys[i] = fmt.Sprintf("%s:%d:%s", g.Subject, g.SubjectID, g.Permission)
		if g.Subject == datasetpermission.SubjectEveryone {
			s.public = true
		}
	}
	slices.Sort(keys)
	s.grants = strings.Join(keys, ",")
	return s, nil
}

// pending is a new version of a vector layer or table, whose events the
// counting job appends.
type pending struct {
	ref   Ref
	after state
	prev  int
}

// events compares a dataset's state before and after a transaction: the
// events to append now, and the new version to count, if any.
func events(ref Ref, before, after state) ([]Event, *pending) {
	switch {
	case !after.exists:
		if before.exists && before.published != nil {
			return []Event{{Type: Deleted, Dataset: ref, DatasetType: before.typ, Title: before.title,
				VersionID: before.published, Public: before.public}}, nil
		}
		return nil, nil
	case after.published == nil:
		return nil, nil
	}
	var out []Event
	var p *pending
	switch {
	case before.published == nil || !before.exists:
		out = append(out, Event{Type: Published, Dataset: ref, DatasetType: after.typ, Title: after.title, VersionID: after.published})
	case *before.published != *after.published:
		if after.vector {
			p = &pending{ref: ref, after: after, prev: *before.published}
		} else {
			out = append(out, Event{Type: NewVersion, Dataset: ref, DatasetType: after.typ, Title: after.title,
				VersionID: after.published, PreviousVersionID: before.published})
		}
	}
	// Only the first marking of a published dataset is news: a new
	// reason or replacement of a deprecated one, and its undeprecation,
	// are not (a dataset marked while unpublished is published marked).
	if before.exists && before.published != nil && before.mark.at == nil && after.mark.at != nil {
		out = append(out, Event{Type: Deprecated, Dataset: ref, DatasetType: after.typ, Title: after.title,
			VersionID: after.published, Detail: after.mark.detail()})
	}
	// Grants set at the first publish are the dataset's first public
	// state, not a change of it.
	if before.exists && before.published != nil && before.grants != after.grants {
		out = append(out, Event{Type: PermissionsChanged, Dataset: ref, DatasetType: after.typ, Title: after.title,
			VersionID: after.published})
	}
	return out, p
}
