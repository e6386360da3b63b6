package exports

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/export"
	"github.com/geopub/geopub/ent/license"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/exportfile"
)

// Request is what a caller asks to export (api-shapes §7.2).
type Request struct {
	Name string
	// CRS is the target, EPSG:<code>; "" keeps the data's own.
	CRS string
	// Formats maps a data kind (vector, table, raster, grid) to the MIME
	// value of its format.
	Formats map[string]string
	Items   []schematype.ExportItem
	// Extent is the crop area: a GeoJSON (Multi)Polygon in EPSG:4326, a
	// crop-feature URL (a JSON string), or empty/null for none.
	Extent  json.RawMessage
	Options map[string]any
}

// Validation is the validation body (api-shapes §7.4).
type Validation struct {
	Valid bool
	// Reasons are the top-level reasons (PC files them under "__all__").
	Reasons            []string
	SizeEstimateZipped int64
	Items              []ItemResult

	// What Create stores: the request normalised and its parts.
	crs   string
	area  *area
	parts []schematype.ExportPart
	name  string
}

// ItemResult is one item of a validation body. Reasons start with a
// stable word (not-found, no-permission, export-service-disabled,
// not-ready, outside-extent, format-missing, format-unsupported,
// limit-features, limit-size, limit-pixels), then a colon and a detail.
type ItemResult struct {
	Item    string
	License *ent.License
	Valid   bool
	Reasons []string
	// FeatureCount is the estimated features of a vector or table item
	// (within the crop area's bounding box).
	FeatureCount int64
	// Kind is the item's data kind ("" when it could not be resolved).
	Kind exportfile.Kind
	// SizeEstimateZipped is the item's share of the export's estimate.
	SizeEstimateZipped int64
}

// Validate checks a request for the caller without writing anything.
func (s *Service) Validate(ctx context.Context, req Request) (*Validation, error) {
	if _, err := access.RequireUser(ctx, ScopeWrite); err != nil {
		return nil, err
	}
	val, err := s.validate(ctx, req)
	if val != nil {
		val.area.close()
		val.area = nil
	}
	return val, err
}

// validate is Validate keeping the crop area open for Create; the caller
// closes val.area.
func (s *Service) validate(ctx context.Context, req Request) (*Validation, error) {
	p := auth.FromContext(ctx)
	lim := s.limits()
	c := s.Store.Client
	viewer, err := access.NewViewer(ctx, c, p)
	if err != nil {
		return nil, err
	}
	val := &Validation{}
	top := func(format string, a ...any) { val.Reasons = append(val.Reasons, fmt.Sprintf(format, a...)) }

	formats := map[exportfile.Kind]exportfile.Format{}
	kinds := make([]string, 0, len(req.Formats))
	for k := range req.Formats {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		mime := req.Formats[k]
		kind := exportfile.Kind(k)
		if !knownKind(kind) {
			top("format-unsupported: %q is not a data kind (vector, table, raster, grid)", clip(k))
			continue
		}
		f, ok := exportfile.FormatByMIME(kind, mime)
		if !ok {
			// A format of another kind (DXF for a table) makes each item
			// of this kind invalid, with the format's own reason.
			if other, found := formatOfAnyKind(mime); found {
				formats[kind] = other
				continue
			}
			top("format-unsupported: %q is not a format for kind %s", clip(mime), k)
			continue
		}
		formats[kind] = f
	}

	crs, problem := normaliseCRS(req.CRS)
	if problem != "" {
		top("crs-invalid: %s", problem)
	}
	val.crs = crs

	var a *area
	if len(req.Extent) > 0 && string(req.Extent) != "null" {
		if err := checkExtentSize(req.Extent); err != nil {
			return nil, err
		}
		var why extentProblem
		a, why, err = s.parseExtent(ctx, req.Extent)
		if err != nil {
			return nil, err
		}
		if why != "" {
			top("extent-invalid: %s", why)
		}
	}
	val.area = a

	switch {
	case len(req.Items) == 0:
		top("items-missing: give at least one item")
	case len(req.Items) > lim.MaxItems:
		top("limit-items: %s items exceed the limit of %s", thousands(int64(len(req.Items))), thousands(int64(lim.MaxItems)))
		req.Items = req.Items[:lim.MaxItems]
	}

	r := &resolver{c: c, v: viewer}
	var totalFeatures int64
	var titles []string
	var cands []candidate
	for _, it := range req.Items {
		got, err := r.resolve(ctx, strings.TrimSpace(it.Item))
		if err != nil {
			return nil, err
		}
		cands = append(cands, got...)
	}
	licences, err := s.licences(ctx, cands)
	if err != nil {
		return nil, err
	}
	for _, cand := range cands {
		res := ItemResult{Item: cand.url, Reasons: cand.reasons}
		if cand.version != nil {
			if cand.version.LicenseID != nil {
				res.License = licences[*cand.version.LicenseID]
			}
			res.Kind = kindOf(cand.layer)
		}
		var part schematype.ExportPart
		if cand.version != nil && len(cand.reasons) == 0 {
			part, err = s.check(ctx, &res, cand, formats, a, crs, lim)
			if err != nil {
				return nil, err
			}
		}
		res.Valid = len(res.Reasons) == 0
		if res.Valid {
			totalFeatures += part.FeatureCount
			titles = append(titles, part.Title)
			val.parts = append(val.parts, part)
		}
		val.Items = append(val.Items, res)
	}
	for i, n := range uniqueNames(titles) {
		val.parts[i].Name = n
	}
	for _, it := range val.Items {
		val.SizeEstimateZipped += it.SizeEstimateZipped
	}
	if totalFeatures > lim.MaxFeatures {
		top("limit-features: %s features exceed the limit of %s", thousands(totalFeatures), thousands(lim.MaxFeatures))
	}
	if val.SizeEstimateZipped > lim.MaxZippedBytes {
		top("limit-size: about %s zipped exceeds the limit of %s", byteSize(val.SizeEstimateZipped), byteSize(lim.MaxZippedBytes))
	}
	running, err := c.Export.Query().Where(export.UserID(p.User.ID), export.StateEQ(export.StateProcessing)).Count(ctx)
	if err != nil {
		return nil, err
	}
	if running >= lim.MaxRunning {
		top("limit-running-exports: you have %d exports processing; the limit is %d", running, lim.MaxRunning)
	}
	val.name = Name(req.Name, titles)
	val.Valid = len(val.Reasons) == 0
	for _, it := range val.Items {
		val.Valid = val.Valid && it.Valid
	}
	if val.Reasons == nil {
		val.Reasons = []string{}
	}
	return val, nil
}

// check applies the rules that need the version: the format of its kind,
// the crop area, the estimate and the per-item limits. It fills res and
// returns the part to write.
func (s *Service) check(ctx context.Context, res *ItemResult, cand candidate, formats map[exportfile.Kind]exportfile.Format,
	a *area, crs string, lim Limits) (schematype.ExportPart, error) {
	v, kind := cand.version, res.Kind
	part := schematype.ExportPart{Item: cand.url, Kind: string(kind), LayerID: cand.layer.ID, VersionID: v.ID, Title: v.Name}
	f, ok := formats[kind]
	if !ok {
		res.Reasons = append(res.Reasons, fmt.Sprintf("format-missing: no format given for kind %s", kind))
	} else if why, accepts := f.Accepts(kind, v.GeometryType); !accepts || f.Kind != kind {
		if why == "" {
			why = fmt.Sprintf("%s cannot hold a %s", f.Display, kind)
		}
		res.Reasons = append(res.Reasons, "format-unsupported: "+why)
		ok = false
	}
	part.Format = f.MIME
	var box *[4]float64
	if a != nil && kind != exportfile.KindTable {
		if len(v.Extent) != 4 {
			res.Reasons = append(res.Reasons, "outside-extent: the dataset has no extent")
			return part, nil
		}
		in, err := a.intersectsBox([4]float64{v.Extent[0], v.Extent[1], v.Extent[2], v.Extent[3]})
		if err != nil {
			return part, err
		}
		if !in {
			res.Reasons = append(res.Reasons, "outside-extent: the crop area does not meet the dataset's extent")
			return part, nil
		}
		box = &a.box
	}
	if crs != "" && kind != exportfile.KindTable && len(v.Extent) == 4 {
		why, err := crsProblem(crs, regionOf(v.Extent, box))
		if err != nil {
			return part, err
		}
		if why != "" {
			res.Reasons = append(res.Reasons, why)
			return part, nil
		}
	}
	var stats exportfile.Stats
	switch kind {
	case exportfile.KindGrid, exportfile.KindRaster:
		stats = rasterStats(v, box)
		if cells := stats.Pixels; cells > lim.MaxRasterPixels {
			res.Reasons = append(res.Reasons, fmt.Sprintf("limit-pixels: %s cells exceed the limit of %s", thousands(cells), thousands(lim.MaxRasterPixels)))
		}
	default:
		var err error
		if stats, err = vectorStats(ctx, s.Store, v, box); err != nil {
			return part, err
		}
		if stats.Rows > lim.MaxFeatures {
			res.Reasons = append(res.Reasons, fmt.Sprintf("limit-features: %s features exceed the limit of %s", thousands(stats.Rows), thousands(lim.MaxFeatures)))
		}
	}
	res.FeatureCount, part.FeatureCount = stats.Rows, stats.Rows
	if ok {
		res.SizeEstimateZipped = f.EstimateZipped(stats)
	}
	return part, nil
}

// licences loads the licences of the candidates' versions at once.
func (s *Service) licences(ctx context.Context, cands []candidate) (map[int]*ent.License, error) {
	var ids []int
	for _, c := range cands {
		if c.version != nil && c.version.LicenseID != nil {
			ids = append(ids, *c.version.LicenseID)
		}
	}
	out := map[int]*ent.License{}
	if len(ids) == 0 {
		return out, nil
	}
	ls, err := s.Store.Client.License.Query().Where(license.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		out[l.ID] = l
	}
	return out, nil
}

// parseExtent reads the crop area: GeoJSON, or a crop-feature URL.
func (s *Service) parseExtent(ctx context.Context, raw json.RawMessage) (*area, extentProblem, error) {
	u, ok := isURL(raw)
	if !ok {
		return parseGeoJSONArea(raw)
	}
	if s.CropFeature == nil {
		return nil, "crop features are not available; give a GeoJSON Polygon or MultiPolygon", nil
	}
	wkb, found, err := s.CropFeature(ctx, u)
	if err != nil {
		return nil, "", err
	}
	if !found {
		return nil, extentProblem(fmt.Sprintf("%q is not the URL of a crop feature", clip(u))), nil
	}
	a, why := areaFromWKB(wkb, u)
	return a, why, nil
}

// formatOfAnyKind finds a format by MIME value among every kind's.
func formatOfAnyKind(mime string) (exportfile.Format, bool) {
	for _, k := range exportfile.Kinds {
		if f, ok := exportfile.FormatByMIME(k, mime); ok {
			return f, true
		}
	}
	return exportfile.Format{}, false
}

func knownKind(k exportfile.Kind) bool {
	for _, x := range exportfile.Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// byteSize writes a size for people.
func byteSize(n int64) string { return apperr.ByteSize(n) }
