package graph

import (
	"context"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/usage"
)

// UsageReport is the usage figures of one dataset or token over a period
// of UTC days: the period's totals and the figures by day and service.
type UsageReport struct {
	// From and To are the period's first and last days, YYYY-MM-DD.
	From, To string
	Total    *UsageAmounts
	Days     []*UsageFigure
}

// UsageAmounts are what was served or made.
type UsageAmounts struct {
	Requests, Bytes, Features, Tiles, Exports, Downloads int64
}

// UsageFigure is one day's figures of one service.
type UsageFigure struct {
	Day, Service string
	UsageAmounts
}

func amountsOf(a usage.Amounts) UsageAmounts {
	return UsageAmounts{Requests: a.Requests, Bytes: a.Bytes, Features: a.Features, Tiles: a.Tiles,
		Exports: a.Exports, Downloads: a.Downloads}
}

func usageReport(p usage.Period, fs []usage.Figure) *UsageReport {
	total := amountsOf(usage.Total(fs))
	out := &UsageReport{From: p.From.Format(time.DateOnly), To: p.To.Format(time.DateOnly), Total: &total,
		Days: make([]*UsageFigure, len(fs))}
	for i, f := range fs {
		out.Days[i] = &UsageFigure{Day: f.Day, Service: f.Service, UsageAmounts: amountsOf(f.Amounts)}
	}
	return out
}

// usagePeriod reads a period's bounds (either nil or empty for the
// defaults), refusing bad ones as invalid input.
func usagePeriod(from, to *string) (usage.Period, error) {
	var f, t string
	if from != nil {
		f = *from
	}
	if to != nil {
		t = *to
	}
	p, err := usage.ParsePeriod(f, t, time.Now())
	if err != nil {
		return usage.Period{}, apperr.New(apperr.Invalid, "%s", err.Error())
	}
	return p, nil
}

// datasetUsage returns the figures of dataset id of kind k to those who
// may edit it (its administrators and editors, site administrators):
// not found to those who may not see it, permission denied to the other
// readers.
func datasetUsage[D, V any](ctx context.Context, r *Resolver, k datasetKind[D, V], kind usage.Kind, id int, from, to *string) (*UsageReport, error) {
	p, err := usagePeriod(from, to)
	if err != nil {
		return nil, err
	}
	d, err := k.load(ctx, r.Client, id, false)
	if err != nil {
		return nil, err
	}
	if ok, err := k.canEdit(ctx, d); err != nil {
		return nil, err
	} else if !ok {
		return nil, apperr.New(apperr.PermissionDenied, "Only those who may edit %s see its usage figures.", k.noun(d))
	}
	fs, err := usage.DatasetFigures(ctx, r.Store, kind, id, p)
	if err != nil {
		return nil, err
	}
	return usageReport(p, fs), nil
}

// LayerUsage is the usage figures of a layer or table.
func (r *Resolver) LayerUsage(ctx context.Context, id int, from, to *string) (*UsageReport, error) {
	return datasetUsage(ctx, r, r.layerKind(), usage.Layer, id, from, to)
}

// SetUsage is the usage figures of a set.
func (r *Resolver) SetUsage(ctx context.Context, id int, from, to *string) (*UsageReport, error) {
	return datasetUsage(ctx, r, r.setKind(), usage.Set, id, from, to)
}

// DocumentUsage is the usage figures of a document.
func (r *Resolver) DocumentUsage(ctx context.Context, id int, from, to *string) (*UsageReport, error) {
	return datasetUsage(ctx, r, r.documentKind(), usage.Document, id, from, to)
}

// CatalogItemUsage is the usage figures of a catalog item. Items load
// through loadItem (public ids, the catalogue scope), then need edit as
// the other kinds do.
func (r *Resolver) CatalogItemUsage(ctx context.Context, id int, from, to *string) (*UsageReport, error) {
	p, err := usagePeriod(from, to)
	if err != nil {
		return nil, err
	}
	it, err := r.loadItem(ctx, ItemPublicID(id), itemRead)
	if err != nil {
		return nil, err
	}
	if ok, err := r.canEditItem(ctx, it); err != nil {
		return nil, err
	} else if !ok {
		return nil, apperr.New(apperr.PermissionDenied, "Only those who may edit catalog item %s see its usage figures.", ItemPublicID(it.ID))
	}
	fs, err := usage.DatasetFigures(ctx, r.Store, usage.CatalogItem, it.ID, p)
	if err != nil {
		return nil, err
	}
	return usageReport(p, fs), nil
}

// TokenUsage is the usage figures of one of the caller's tokens: what
// requests made with it were served. Others' tokens are not found.
func (r *Resolver) TokenUsage(ctx context.Context, id int, from, to *string) (*UsageReport, error) {
	p, err := usagePeriod(from, to)
	if err != nil {
		return nil, err
	}
	u, err := access.RequireUser(ctx, auth.ScopeTokensRead)
	if err != nil {
		return nil, err
	}
	if _, err := r.Auth.UserToken(ctx, u, id); err != nil {
		return nil, err
	}
	fs, err := usage.TokenFigures(ctx, r.Store, id, p)
	if err != nil {
		return nil, err
	}
	return usageReport(p, fs), nil
}

// MayReadUsage reports whether the caller may read the usage figures of
// a layer, set, document or catalog item they can see (the dataset pages
// show them only then).
func (r *Resolver) MayReadUsage(ctx context.Context, d any) (bool, error) {
	switch d := d.(type) {
	case *ent.Layer:
		return r.canEdit(ctx, d)
	case *ent.Set:
		return r.canEditSet(ctx, d)
	case *ent.Document:
		return r.canEditDocument(ctx, d)
	case *ent.CatalogItem:
		return r.canEditItem(ctx, d)
	}
	return false, nil
}

// DatasetUsage is the usage figures of a dataset of type t (layers and
// tables each through their own type: a table is not a layer here).
func (r *Resolver) DatasetUsage(ctx context.Context, t DatasetType, id int, from, to *string) (*UsageReport, error) {
	switch t {
	case DatasetTypeLayer, DatasetTypeTable:
		want := layer.TypeLayer
		if t == DatasetTypeTable {
			want = layer.TypeTable
		}
		k := r.layerKind()
		query := k.query
		k.query = func(ctx context.Context, id int, visible func(*entsql.Selector)) (*ent.Layer, error) {
			return query(ctx, id, func(s *entsql.Selector) {
				visible(s)
				s.Where(entsql.EQ(s.C(layer.FieldType), want))
			})
		}
		return datasetUsage(ctx, r, k, usage.Layer, id, from, to)
	case DatasetTypeSet:
		return r.SetUsage(ctx, id, from, to)
	case DatasetTypeDocument:
		return r.DocumentUsage(ctx, id, from, to)
	case DatasetTypeCatalogItem:
		return r.CatalogItemUsage(ctx, id, from, to)
	}
	return nil, apperr.New(apperr.NotFound, "No usage figures for %s.", t)
}
