package ogc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/datatable"
	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/usage"
)

// DataTablePath is where the data-table service answers:
//
//	/services/data-table/v1/layer={id}/columns    the table: columns, count, limits, links
//	/services/data-table/v1/layer={id}/rows       a page of rows (JSON; ?format=csv for CSV)
//	/services/data-table/v1/layer={id}/rows.csv   the whole view as CSV (attachment)
//
// Tables are layers: layer={id} names either (table={id} is taken too).
const DataTablePath = "/services/data-table/v1"

// DataTable is the JSON and CSV door of the data-table service.
type DataTable struct {
	svc     *datatable.Service
	baseURL string
	logger  *slog.Logger
}

// NewDataTable returns the door over svc; baseURL, when set, is the
// public origin of the links its documents give (else the request's own).
func NewDataTable(svc *datatable.Service, baseURL string, logger *slog.Logger) *DataTable {
	if logger == nil {
		logger = slog.Default()
	}
	return &DataTable{svc: svc, baseURL: strings.TrimRight(baseURL, "/"), logger: logger}
}

var dataTableScopes = []string{datatable.Scope}

// Mount adds the routes to r, which must run the auth middleware that
// accepts ?key=.
func (d *DataTable) Mount(r chi.Router) {
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		r.MethodFunc(m, DataTablePath+"/{owner}/columns", d.serve(d.columns))
		r.MethodFunc(m, DataTablePath+"/{owner}/rows", d.serve(d.rows))
		r.MethodFunc(m, DataTablePath+"/{owner}/rows.csv", d.serve(d.csv))
	}
}

// tableCall is one request being answered.
type tableCall struct {
	w http.ResponseWriter
	r *http.Request
	p auth.Principal
	t *datatable.Table
}

// serve checks the owner segment and the scope and opens the table before
// fn runs; refusals are {"detail": ...} as the REST API's.
func (d *DataTable) serve(fn func(c *tableCall) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		auth.SetAcceptedScopes(w.Header(), dataTableScopes)
		id, ok := tableOwner(chi.URLParam(r, "owner"))
		if !ok {
			fail(w, http.StatusNotFound, "Not found: data tables are at "+DataTablePath+"/layer={id}/rows.")
			return
		}
		ctx := r.Context()
		c := &tableCall{w: w, r: r, p: auth.FromContext(ctx)}
		if !c.p.HasScope(datatable.Scope) {
			fail(w, http.StatusUnauthorized, "This API key lacks the "+datatable.Scope+" scope.")
			return
		}
		var err error
		if c.t, err = d.svc.OpenAs(ctx, c.p, id); err != nil {
			d.refuse(c, id, err)
			return
		}
		if err := fn(c); err != nil {
			d.refuse(c, id, err)
		}
	}
}

// refuse answers an error: a table the caller may not use is 404 (401
// to anonymous callers, who may see more once authenticated), as the
// tile services answer; a bad view is 400.
func (d *DataTable) refuse(c *tableCall, id int, err error) {
	var p *datatable.Problem
	switch {
	case errors.As(err, &p):
		fail(c.w, http.StatusBadRequest, p.Message)
	case errors.Is(err, datatable.ErrNotFound):
		if !c.p.Authenticated() {
			fail(c.w, http.StatusUnauthorized, "Authentication credentials were not provided.")
			return
		}
		fail(c.w, http.StatusNotFound, "Layer "+strconv.Itoa(id)+" was not found or is not available as a data table.")
	default:
		internalError(c.w, c.r, d.logger, "data table failed", err)
	}
}

// tableOwner parses layer={id} (or table={id}).
func tableOwner(s string) (int, bool) {
	kind, num, found := strings.Cut(s, "=")
	if !found || (kind != "layer" && kind != "table") {
		return 0, false
	}
	id, err := strconv.Atoi(num)
	if err != nil || id <= 0 || strconv.Itoa(id) != num {
		return 0, false
	}
	return id, true
}

// tableURL is the absolute URL of a table's resource with query q
// (credentials are never written into links).
func (d *DataTable) tableURL(c *tableCall, resource string, q url.Values) string {
	origin := d.baseURL
	if origin == "" {
		origin = forwarded.Origin(c.r)
	}
	u := origin + DataTablePath + "/layer=" + strconv.Itoa(c.t.LayerID) + "/" + resource
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// viewQuery is the request's query as links repeat it: without paging,
// format and credentials.
func viewQuery(r *http.Request) url.Values {
	q := url.Values{}
	for k, vs := range r.URL.Query() {
		switch k {
		case "cursor", "offset", "format", "key", "token":
			continue
		}
		q[k] = vs
	}
	return q
}

// tableDoc is the columns document.
type tableDoc struct {
	Layer        int                `json:"layer"`
	Table        bool               `json:"table"`
	Title        string             `json:"title"`
	Version      int                `json:"version"`
	GeometryType string             `json:"geometry_type,omitempty"`
	Count        int64              `json:"count"`
	Columns      []datatable.Column `json:"columns"`
	Limits       map[string]int     `json:"limits"`
	Links        map[string]string  `json:"links"`
}

func (d *DataTable) columns(c *tableCall) error {
	doc := tableDoc{Layer: c.t.LayerID, Table: c.t.IsTable, Title: c.t.Title, Version: c.t.VersionID,
		GeometryType: c.t.GeometryType, Count: c.t.Count, Columns: c.t.Columns,
		Limits: map[string]int{"default_limit": datatable.DefaultLimit, "max_limit": datatable.MaxLimit,
			"max_sorted_or_filtered_rows": datatable.MaxOrdered, "max_csv_rows": datatable.MaxCSVRows},
		Links: map[string]string{"rows": d.tableURL(c, "rows", nil), "csv": d.tableURL(c, "rows.csv", nil)}}
	if doc.Columns == nil {
		doc.Columns = []datatable.Column{}
	}
	return d.sendJSON(c, doc)
}

func (d *DataTable) sendJSON(c *tableCall, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	h := c.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", cacheControl(c.p))
	c.w.WriteHeader(http.StatusOK)
	if c.r.Method != http.MethodHead {
		_, _ = c.w.Write(b.Bytes())
	}
	return nil
}

func (d *DataTable) rows(c *tableCall) error {
	switch f := c.r.URL.Query().Get("format"); f {
	case "", "json":
	case "csv":
		return d.csv(c)
	default:
		return &datatable.Problem{Message: "format must be json or csv, not " + strconv.Quote(clipText(f))}
	}
	q, err := datatable.ParseQuery(c.r.URL.Query(), c.t)
	if err != nil {
		return err
	}
	page, err := d.svc.Rows(c.r.Context(), c.t, q)
	if err != nil {
		return err
	}
	// The rows, written by hand so that each row's properties keep the
	// view's field order.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	put := func(v any) {
		_ = enc.Encode(v)
		b.Truncate(b.Len() - 1) // the encoder's newline
	}
	b.WriteString(`{"layer":`)
	put(c.t.LayerID)
	b.WriteString(`,"fields":`)
	put(q.Fields)
	b.WriteString(`,"sort":`)
	sorts := []string{}
	for _, s := range q.Sort {
		if s.Desc {
			sorts = append(sorts, "-"+s.Field)
		} else {
			sorts = append(sorts, s.Field)
		}
	}
	put(sorts)
	b.WriteString(`,"matched":`)
	put(page.Matched)
	b.WriteString(`,"returned":`)
	put(len(page.Rows))
	offset := -1
	if q.Ordered() {
		offset = q.Offset
		b.WriteString(`,"offset":`)
		put(q.Offset)
	}
	view := viewQuery(c.r)
	links := map[string]*string{"next": nil, "prev": nil}
	if page.Next != nil {
		nq := cloneValues(view)
		nq.Set("cursor", page.Next.String())
		s := d.tableURL(c, "rows", nq)
		links["next"] = &s
	}
	if page.NextOffset >= 0 {
		nq := cloneValues(view)
		nq.Set("offset", strconv.Itoa(page.NextOffset))
		s := d.tableURL(c, "rows", nq)
		links["next"] = &s
	}
	if offset > 0 {
		pq := cloneValues(view)
		pq.Set("offset", strconv.Itoa(max(0, offset-q.Limit)))
		s := d.tableURL(c, "rows", pq)
		links["prev"] = &s
	}
	cq := cloneValues(view)
	cq.Del("limit")
	csvURL := d.tableURL(c, "rows.csv", cq)
	links["csv"] = &csvURL
	b.WriteString(`,"links":`)
	put(links)
	b.WriteString(`,"rows":[`)
	for i, r := range page.Rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"fid":`)
		put(r.FID)
		b.WriteString(`,"properties":{`)
		for j, f := range q.Fields {
			if j > 0 {
				b.WriteByte(',')
			}
			put(f)
			b.WriteByte(':')
			b.Write(r.Values[j])
		}
		b.WriteByte('}')
		if q.WKT {
			b.WriteString(`,"geometry":`)
			if r.WKT == "" {
				b.WriteString("null")
			} else {
				put(r.WKT)
			}
		}
		b.WriteByte('}')
	}
	b.WriteString("]}\n")
	h := c.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", cacheControl(c.p))
	c.w.WriteHeader(http.StatusOK)
	if c.r.Method != http.MethodHead {
		usage.Served(c.w, usage.Layer, c.t.LayerID, usage.DataTable, usage.Amounts{Features: int64(len(page.Rows))})
		_, _ = c.w.Write(b.Bytes())
	}
	return nil
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// csv streams the whole view (from its offset; the limit is not applied)
// as an attachment, refused before anything is written when it holds
// more than datatable.MaxCSVRows rows.
func (d *DataTable) csv(c *tableCall) error {
	v := c.r.URL.Query()
	if f := v.Get("format"); f != "" && f != "csv" {
		return &datatable.Problem{Message: "rows.csv is CSV: leave out format or give format=csv"}
	}
	v.Del("format")
	q, err := datatable.ParseQuery(v, c.t)
	if err != nil {
		return err
	}
	n, err := d.svc.Count(c.r.Context(), c.t, q)
	if err != nil {
		return err
	}
	if n-int64(q.Offset) > datatable.MaxCSVRows {
		return &datatable.Problem{Message: "this view holds " + strconv.FormatInt(n, 10) + " rows and a CSV download gives at most " +
			strconv.Itoa(datatable.MaxCSVRows) + ": narrow it with a filter"}
	}
	h := c.w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8; header=present")
	h.Set("Content-Disposition", `attachment; filename="layer-`+strconv.Itoa(c.t.LayerID)+`.csv"`)
	h.Set("Cache-Control", cacheControl(c.p))
	c.w.WriteHeader(http.StatusOK)
	if c.r.Method == http.MethodHead {
		return nil
	}
	cw, err := datatable.NewCSVWriter(c.w, q)
	var rows int64
	if err == nil {
		err = d.svc.Each(c.r.Context(), c.t, q, datatable.MaxCSVRows, func(r datatable.Row) error {
			rows++
			return cw.Write(r)
		})
	}
	// A download, with the rows it held (those written, if it ended short).
	usage.Served(c.w, usage.Layer, c.t.LayerID, usage.DataTable, usage.Amounts{Features: rows, Downloads: 1})
	if err == nil {
		err = cw.Flush()
	}
	if err != nil {
		// The status is sent: the download ends short.
		d.logger.ErrorContext(c.r.Context(), "data table CSV failed", "path", c.r.URL.Path, "err", err)
	}
	return nil
}

// clipText shortens what a caller sent for a message.
func clipText(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// jsonEncoder is a JSON encoder that leaves <, > and & as they are.
func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
