package htmlview

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
)

// Usage is a dataset's usage figures as its page shows them to those
// who may edit it: the last 30 days, by day and service.
type Usage struct {
	From, To string
	Rows     []UsageRow
	Total    UsageRow
}

// UsageRow is one day's figures of one service, as text.
type UsageRow struct {
	Day, Service                                         string
	Requests, Bytes, Features, Tiles, Exports, Downloads string
}

func usageRow(day, service string, a graph.UsageAmounts) UsageRow {
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	return UsageRow{Day: day, Service: service, Requests: n(a.Requests), Bytes: n(a.Bytes), Features: n(a.Features),
		Tiles: n(a.Tiles), Exports: n(a.Exports), Downloads: n(a.Downloads)}
}

// addUsage gives the page of dataset id of type t its usage table when
// the caller may read its figures (those who may edit it); for the other
// readers the page has none.
func (v *Views) addUsage(ctx context.Context, p *Page, t graph.DatasetType, id int) error {
	u, err := v.res.DatasetUsage(ctx, t, id, nil, nil)
	if err != nil {
		switch apperr.As(err).Code {
		case apperr.PermissionDenied, apperr.NotFound, apperr.Unauthenticated:
			return nil
		}
		return err
	}
	p.Usage = &Usage{From: u.From, To: u.To, Total: usageRow("", "", *u.Total)}
	for _, f := range u.Days {
		p.Usage.Rows = append(p.Usage.Rows, usageRow(f.Day, f.Service, f.UsageAmounts))
	}
	return nil
}
