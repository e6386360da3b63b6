package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/auth"
)

// usageRoutes serve the usage figures of each dataset (to those who may
// edit it) and of the caller's tokens.
func (a *API) usageRoutes(r chi.Router) {
	for _, b := range datasetBases {
		if b.typ == graph.DatasetTypeSource {
			continue
		}
		r.With(scoped(b.read, b.write)).Get(b.member()+"/usage", a.handle(a.datasetUsage(b)))
	}
	r.With(scoped(auth.ScopeTokensRead, auth.ScopeTokensWrite)).Get("/tokens/{tid:[0-9]+}/usage", a.handle(a.tokenUsage))
}

// usageJSON is a usage report: the period, its totals and the figures by
// day and service.
type usageJSON struct {
	From  string            `json:"from"`
	To    string            `json:"to"`
	Total usageAmountsJSON  `json:"total"`
	Days  []usageFigureJSON `json:"days"`
}

type usageAmountsJSON struct {
	Requests  int64 `json:"requests"`
	Bytes     int64 `json:"bytes"`
	Features  int64 `json:"features"`
	Tiles     int64 `json:"tiles"`
	Exports   int64 `json:"exports"`
	Downloads int64 `json:"downloads"`
}

type usageFigureJSON struct {
	Day     string `json:"day"`
	Service string `json:"service"`
	usageAmountsJSON
}

func usageAmountsOf(a graph.UsageAmounts) usageAmountsJSON {
	return usageAmountsJSON{Requests: a.Requests, Bytes: a.Bytes, Features: a.Features, Tiles: a.Tiles,
		Exports: a.Exports, Downloads: a.Downloads}
}

func renderUsage(u *graph.UsageReport) usageJSON {
	out := usageJSON{From: u.From, To: u.To, Total: usageAmountsOf(*u.Total), Days: make([]usageFigureJSON, len(u.Days))}
	for i, f := range u.Days {
		out.Days[i] = usageFigureJSON{Day: f.Day, Service: f.Service, usageAmountsJSON: usageAmountsOf(f.UsageAmounts)}
	}
	return out
}

// usagePeriod reads ?from= and ?to= (absent: the defaults).
func usagePeriod(r *http.Request) (from, to *string) {
	q := r.URL.Query()
	if v := q.Get("from"); v != "" {
		from = &v
	}
	if v := q.Get("to"); v != "" {
		to = &v
	}
	return from, to
}

func (a *API) datasetUsage(b datasetBase) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := b.id(r)
		if err != nil {
			return err
		}
		from, to := usagePeriod(r)
		u, err := a.res.DatasetUsage(r.Context(), b.typ, id, from, to)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, renderUsage(u))
		return nil
	}
}

func (a *API) tokenUsage(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "tid")
	if err != nil {
		return err
	}
	from, to := usagePeriod(r)
	u, err := a.res.TokenUsage(r.Context(), id, from, to)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, renderUsage(u))
	return nil
}
