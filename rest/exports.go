package rest

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/export"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/exportfile"
	"github.com/geopub/geopub/internal/exports"
	"github.com/geopub/geopub/internal/usage"
)

// exportRoutes serves /exports/ (api-shapes §7). Each route is registered
// on its own, never as a sub-router, so the crop-layer routes under
// /exports/croplayers/ coexist with them.
func (a *API) exportRoutes(r chi.Router) {
	r.Use(scoped(exports.ScopeRead, exports.ScopeWrite))
	r.Get("/exports", a.handle(a.listExports))
	// OPTIONS /exports/ lists the formats (api-shapes §7.3) rather than
	// the view's expansions: registered after the GET, it replaces them.
	r.Options("/exports", a.handle(a.exportOptions))
	r.Post("/exports", a.handle(a.createExport))
	r.Post("/exports/validate", a.handle(a.validateExport))
	r.Get("/exports/{eid:[0-9]+}", a.handle(a.getExport))
	r.Delete("/exports/{eid:[0-9]+}", a.handle(a.cancelExport))
	r.Get("/exports/{eid:[0-9]+}/download", a.handle(a.downloadExport))
}

// exportJSON is the export resource (api-shapes §7.1).
type exportJSON struct {
	ID                 int               `json:"id"`
	URL                string            `json:"url"`
	Name               string            `json:"name"`
	CreatedAt          time.Time         `json:"created_at"`
	CreatedVia         string            `json:"created_via"`
	State              string            `json:"state"`
	DownloadURL        *string           `json:"download_url"`
	Extent             any               `json:"extent"`
	Delivery           map[string]string `json:"delivery"`
	Formats            map[string]string `json:"formats"`
	Items              []map[string]any  `json:"items"`
	CRS                *string           `json:"crs"`
	Options            map[string]any    `json:"options"`
	SizeEstimateZipped int64             `json:"size_estimate_zipped"`
	Progress           *float64          `json:"progress"`
	FeatureCount       int64             `json:"feature_count"`
	FileSize           *int64            `json:"file_size"`
	CompletedAt        *time.Time        `json:"completed_at"`
	ExpiresAt          *time.Time        `json:"expires_at"`
	Error              *string           `json:"error"`
}

// exportListJSON is an export in a list (api-shapes §7.1).
type exportListJSON struct {
	ID          int       `json:"id"`
	Name        string    `json:"name"`
	CreatedAt   time.Time `json:"created_at"`
	CreatedVia  string    `json:"created_via"`
	State       string    `json:"state"`
	URL         string    `json:"url"`
	DownloadURL *string   `json:"download_url"`
}

func (l links) exportDownload(e *ent.Export) *string {
	if e.State != export.StateComplete {
		return nil
	}
	u := l.api("exports/%d/download/", e.ID)
	return &u
}

func (l links) export(e *ent.Export) exportJSON {
	js := exportJSON{
		ID: e.ID, URL: l.api("exports/%d/", e.ID), Name: e.Name, CreatedAt: e.CreatedAt, CreatedVia: string(e.CreatedVia),
		State: string(e.State), DownloadURL: l.exportDownload(e), Delivery: map[string]string{"method": "download"},
		Formats: e.Formats, CRS: nullable(e.Crs), Options: e.Options, SizeEstimateZipped: e.SizeEstimateZipped,
		Progress: e.Progress, FeatureCount: e.FeatureCount, CompletedAt: e.CompletedAt, ExpiresAt: e.ExpiresAt,
		Error: nullable(e.Error), Items: make([]map[string]any, 0, len(e.Items)),
	}
	switch {
	case e.CropFeature != "":
		js.Extent = e.CropFeature
	case e.Extent != nil:
		js.Extent = e.Extent
	}
	if js.Options == nil {
		js.Options = map[string]any{}
	}
	if e.State == export.StateComplete {
		js.FileSize = &e.FileSize
	}
	for _, it := range e.Items {
		m := map[string]any{}
		for k, v := range it.Options {
			m[k] = v
		}
		m["item"] = it.Item
		js.Items = append(js.Items, m)
	}
	return js
}

// exportRequestJSON is the body of POST /exports/ and /exports/validate/.
type exportRequestJSON struct {
	Name    *string          `json:"name"`
	CRS     *string          `json:"crs"`
	Formats map[string]any   `json:"formats"`
	Items   []map[string]any `json:"items"`
	// Extent is a GeoJSON (Multi)Polygon or a crop-feature URL.
	Extent  json.RawMessage `json:"extent"`
	Options map[string]any  `json:"options"`
}

// input turns the body into the resolvers' input.
func (b exportRequestJSON) input() (graph.ExportInput, error) {
	in := graph.ExportInput{Name: b.Name, Crs: b.CRS, Formats: b.Formats, Options: b.Options}
	if in.Formats == nil {
		in.Formats = map[string]any{}
	}
	for _, it := range b.Items {
		item, _ := it["item"].(string)
		opts := map[string]any{}
		for k, v := range it {
			if k != "item" {
				opts[k] = v
			}
		}
		if len(opts) == 0 {
			opts = nil
		}
		in.Items = append(in.Items, &graph.ExportItemInput{Item: item, Options: opts})
	}
	if len(b.Extent) == 0 || string(b.Extent) == "null" {
		return in, nil
	}
	var s string
	if json.Unmarshal(b.Extent, &s) == nil {
		in.CropFeature = &s
		return in, nil
	}
	var m map[string]any
	if err := json.Unmarshal(b.Extent, &m); err != nil {
		return in, apperr.Field("extent", "Give a GeoJSON Polygon or MultiPolygon, or a crop-feature URL.")
	}
	in.Extent = m
	return in, nil
}

// exportValidationJSON is the validation body (api-shapes §7.4).
// invalid_reasons holds the reasons' codes, which clients compare
// (["outside-extent"]); invalid_reasons_detail their prose, in the same
// order.
type exportValidationJSON struct {
	IsValid              bool                 `json:"is_valid"`
	InvalidReasons       []string             `json:"invalid_reasons"`
	InvalidReasonsDetail []string             `json:"invalid_reasons_detail"`
	SizeEstimateZipped   int                  `json:"size_estimate_zipped"`
	Items                []exportItemValidity `json:"items"`
}

type exportItemValidity struct {
	Item                 string       `json:"item"`
	License              *licenseJSON `json:"license"`
	Price                string       `json:"price"`
	IsValid              bool         `json:"is_valid"`
	InvalidReasons       []string     `json:"invalid_reasons"`
	InvalidReasonsDetail []string     `json:"invalid_reasons_detail"`
	FeatureCount         int          `json:"feature_count"`
	Kind                 *string      `json:"kind"`
}

func (l links) exportValidation(v *graph.ExportValidation) exportValidationJSON {
	js := exportValidationJSON{IsValid: v.IsValid, InvalidReasons: v.InvalidReasons, InvalidReasonsDetail: v.InvalidReasonsDetail, SizeEstimateZipped: v.SizeEstimateZipped,
		Items: make([]exportItemValidity, 0, len(v.Items))}
	for _, it := range v.Items {
		iv := exportItemValidity{Item: it.Item, Price: it.Price, IsValid: it.IsValid, InvalidReasons: it.InvalidReasons, InvalidReasonsDetail: it.InvalidReasonsDetail,
			FeatureCount: it.FeatureCount, Kind: it.Kind}
		if it.License != nil {
			lic := l.license(it.License)
			iv.License = &lic
		}
		js.Items = append(js.Items, iv)
	}
	return js
}

func (a *API) listExports(w http.ResponseWriter, r *http.Request) error {
	q := queryOf(r)
	page, size, err := q.paging()
	if err != nil {
		return err
	}
	all, err := q.boolPtr("all")
	if err != nil {
		return err
	}
	ex, err := expandOf(r, expandList)
	if err != nil {
		return err
	}
	p, err := a.res.Exports.List(r.Context(), all != nil && *all, page, size)
	if err != nil {
		return err
	}
	l := a.links(r)
	res := pageResult{page: p.Number, size: p.Size, total: p.Total, count: len(p.Items)}
	if ex["list"] {
		out := make([]exportJSON, 0, len(p.Items))
		for _, e := range p.Items {
			out = append(out, l.export(e))
		}
		a.writePage(w, r, res, nil, out)
		return nil
	}
	out := make([]exportListJSON, 0, len(p.Items))
	for _, e := range p.Items {
		out = append(out, exportListJSON{ID: e.ID, Name: e.Name, CreatedAt: e.CreatedAt, CreatedVia: string(e.CreatedVia),
			State: string(e.State), URL: l.api("exports/%d/", e.ID), DownloadURL: l.exportDownload(e)})
	}
	a.writePage(w, r, res, nil, out)
	return nil
}

func (a *API) decodeExportRequest(r *http.Request) (graph.ExportInput, error) {
	var body exportRequestJSON
	if err := decodeJSON(r, &body); err != nil {
		return graph.ExportInput{}, err
	}
	return body.input()
}

// createExport answers 201 with the export's URL in Location and an empty
// body, or 400 with the validation body (api-shapes §7.2).
func (a *API) createExport(w http.ResponseWriter, r *http.Request) error {
	in, err := a.decodeExportRequest(r)
	if err != nil {
		return err
	}
	out, err := a.res.Mutation().CreateExport(r.Context(), in)
	if err != nil {
		return err
	}
	l := a.links(r)
	if out.Export == nil {
		writeJSON(w, http.StatusBadRequest, l.exportValidation(out.Validation))
		return nil
	}
	w.Header().Set("Location", l.api("exports/%d/", out.Export.ID))
	markExport(w, out.Export, usage.Amounts{Exports: 1})
	w.WriteHeader(http.StatusCreated)
	return nil
}

func (a *API) validateExport(w http.ResponseWriter, r *http.Request) error {
	in, err := a.decodeExportRequest(r)
	if err != nil {
		return err
	}
	v, err := a.res.Mutation().ValidateExport(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).exportValidation(v))
	return nil
}

func (a *API) getExport(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "eid")
	if err != nil {
		return err
	}
	e, err := a.res.Query().Export(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).export(e))
	return nil
}

// cancelExport answers 202 with the cancelled export, or 409
// {"errors": ["Can't cancel"]} when it is not processing.
func (a *API) cancelExport(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "eid")
	if err != nil {
		return err
	}
	e, err := a.res.Mutation().CancelExport(r.Context(), id)
	if errors.Is(err, exports.ErrCantCancel) {
		writeJSON(w, http.StatusConflict, map[string][]string{"errors": {"Can't cancel"}})
		return nil
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, a.links(r).export(e))
	return nil
}

// downloadExport serves the zip: Content-Disposition names {name}.zip,
// and http.ServeContent gives Content-Length and answers Range requests
// (blob.Store.OpenSeekable: the file itself, or range reads).
func (a *API) downloadExport(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "eid")
	if err != nil {
		return err
	}
	ctx := r.Context()
	e, err := a.res.Exports.Download(ctx, id)
	if err != nil {
		return err
	}
	content, err := a.res.Blobs.OpenSeekable(ctx, e.BlobKey)
	if err != nil {
		return err
	}
	defer content.Close()
	if r.Header.Get("Range") == "" || r.Header.Get("Range") == "bytes=0-" {
		a.res.Exports.Downloaded(e)
		markExport(w, e, usage.Amounts{Downloads: 1})
	} else {
		markExport(w, e, usage.Amounts{})
	}
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	// Names are slugs: no quoting needed (api-shapes §7.2's exact form).
	h.Set("Content-Disposition", "attachment; filename="+e.Name+".zip")
	modified := e.CreatedAt
	if e.CompletedAt != nil {
		modified = *e.CompletedAt
	}
	http.ServeContent(w, r, e.Name+".zip", modified, content)
	return nil
}

// exportOptions is the framework metadata body of OPTIONS /exports/ with
// the format choices per data kind (api-shapes §7.3).
func (a *API) exportOptions(w http.ResponseWriter, r *http.Request) error {
	children := map[string]any{}
	for _, k := range exportfile.Kinds {
		choices := []map[string]string{}
		for _, f := range exportfile.Formats(k) {
			choices = append(choices, map[string]string{"value": f.MIME, "display_name": f.Display})
		}
		children[string(k)] = map[string]any{"type": "choice", "required": false, "read_only": false,
			"label": titleWord(string(k)), "choices": choices}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"name":        "Export List",
		"expansions":  []string{}, // as every view's OPTIONS (the list has none)
		"description": "Bulk exports of layers, tables, grids and rasters, cropped and reprojected, in the formats below.",
		"renders":     []string{"application/json", "text/html"},
		"parses":      []string{"application/json"},
		"actions": map[string]any{"POST": map[string]any{"formats": map[string]any{
			"type": "nested object", "required": true, "read_only": false, "label": "Formats", "children": children,
		}}},
	})
	return nil
}

// markExport counts a for each layer of an export, under the export
// service, in the usage figures.
func markExport(w http.ResponseWriter, e *ent.Export, a usage.Amounts) {
	for _, p := range e.Parts {
		usage.Served(w, usage.Layer, p.LayerID, usage.Export, a)
	}
}
