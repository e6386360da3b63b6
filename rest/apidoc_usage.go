package rest

import (
	"net/http"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/auth"
)

// usagePeriodParams are the query parameters of the usage reports.
var usagePeriodParams = []apidoc.Param{
	{Name: "from", Description: "The first UTC day, YYYY-MM-DD (default: 29 days before to)."},
	{Name: "to", Description: "The last UTC day, YYYY-MM-DD (default: 29 days after from, or today). At most 366 days in all."},
}

// usageOps documents the usage figures of datasets and tokens.
func usageOps(ops *[]*apidoc.Operation) {
	for _, b := range datasetBases {
		if b.typ == graph.DatasetTypeSource {
			continue
		}
		d := docs{ops: ops, tag: "Usage", read: b.read, write: b.write}
		d.op(http.MethodGet, b.member()+"/usage", "Usage figures of the "+noun(b)).Private().
			Describe("Requests, bytes, features and tiles served, exports made and files downloaded, by UTC day and data "+
				"service (wfs, tiles, wmts, spatial-query-vector, spatial-query-grid, spatial-query-set, data-table, export, "+
				"download, small-data, esri-rest-api, esri-map, tile-archive). Figures are written every few seconds. "+
				"Needs edit permission on it; other readers get 403.").
			WithQuery(usagePeriodParams...).
			ReturnsJSON(200, "The period, its totals and the figures by day and service.", usageJSON{}).
			Fails(http.StatusBadRequest, "A malformed date, to before from, or more than 366 days.")
	}
	t := docs{ops: ops, tag: "Usage", read: auth.ScopeTokensRead, write: auth.ScopeTokensWrite}
	t.op(http.MethodGet, "/tokens/{tid:[0-9]+}/usage", "Usage figures of one of the caller's tokens").Private().
		Describe("What requests made with the token were served, by UTC day and data service, over all datasets.").
		WithQuery(usagePeriodParams...).
		ReturnsJSON(200, "The period, its totals and the figures by day and service.", usageJSON{}).
		Fails(http.StatusBadRequest, "A malformed date, to before from, or more than 366 days.")
}
