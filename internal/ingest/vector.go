package ingest

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

// describeVector opens a vector file and describes each of its layers by
// reading every feature (headers are not trusted: a truncated file shows up
// here as a Problem).
func describeVector(ctx context.Context, root string, c candidate) ([]Datasource, []Problem) {
	abs := filepath.Join(root, filepath.FromSlash(c.rel))
	var openOpts []string
	isCSV := c.kind.format == "text/csv"
	if isCSV {
		o, err := csvOpenOptions(abs)
		if err != nil {
			return nil, []Problem{{Path: c.rel, Message: "cannot read CSV header: " + relMsg(root, err.Error())}}
		}
		openOpts = o
	}
	ds, err := openLocal(abs, true, c.kind.drivers, c.siblings(), openOpts)
	if err != nil {
		if lowerExt(c.rel) == ".json" { // plain JSON, not GeoJSON
			return []Datasource{documentOf(c, "application/json")}, nil
		}
		return nil, []Problem{{Path: c.rel, Message: "cannot open as " + c.kind.drivers[0] + ": " + relMsg(root, err.Error())}}
	}
	defer ds.Close()
	defer gdal.WatchSQLite(ctx, ds)()
	layers := ds.Layers()
	if len(layers) == 0 {
		return nil, []Problem{{Path: c.rel, Message: "no layers found"}}
	}
	var out []Datasource
	var probs []Problem
	for _, l := range layers {
		d := Datasource{
			Path:         c.rel,
			Layer:        l.Name(),
			Files:        c.files,
			MetadataPath: c.metadata,
			Title:        title(c.rel),
			DataType:     TypeVector,
			Format:       c.kind.format,
			Driver:       ds.Driver().ShortName(),
		}
		if len(layers) > 1 {
			d.Title = l.Name()
		}
		where := "" // prefix naming the layer in problem messages
		if len(layers) > 1 {
			where = "layer " + l.Name() + ": "
		}
		fields, geomName := layerSchema(l)
		fields, key := withDeclaredKey(l, d.Driver, fields)
		if key != "" {
			d.PrimaryKey = []string{key}
		}
		hasGeom := gdal.LayerHasGeometry(l)

		st, err := layerStats(ctx, l)
		if err != nil {
			if ctx.Err() != nil {
				return out, probs
			}
			probs = append(probs, Problem{Path: c.rel, Message: where + relMsg(root, err.Error())})
			continue
		}
		d.FeatureCount, d.EmptyGeometryCount = st.count, st.empty

		lflat, lz := gdal.LayerGeomType(l)
		if !hasGeom || (lflat == 100 /* wkbNone */) || (lflat == 0 && st.count > 0 && st.count == st.empty && c.kind.dataType == TypeTable) {
			hasGeom = false
		}
		if !hasGeom || c.kind.dataType == TypeTable {
			d.DataType = TypeTable
			if c.kind.format == "application/x-zipped-shp" {
				d.Format = "application/dbf"
			}
		} else {
			d.GeometryType = geometryTypeName(lflat, st.types)
			d.GeometryField = geomName
			if d.GeometryField == "" {
				d.GeometryField = "GEOMETRY"
			}
			d.NumDims = 2
			if lz || st.hasZ {
				d.NumDims = 3
			}
			d.Fields = append(d.Fields, Field{Name: d.GeometryField, Type: "geometry"})
			d.CRS = crsOf(gdal.LayerSRSWKT(l))
			if d.CRS == "" && isCSV && st.haveEnv && inLonLat(st.env) {
				d.CRS, d.CRSAssumed = EPSG4326, true
			}
			if d.CRS != "" && st.haveEnv {
				if ext, err := toLonLat(d.CRS, st.env); err == nil {
					d.Extent = &ext
				} else {
					probs = append(probs, Problem{Path: c.rel, Message: where + "extent: " + err.Error()})
				}
			}
		}
		for _, f := range fields {
			d.Fields = append(d.Fields, Field{Name: f.name, Type: f.typ})
		}
		out = append(out, d)
	}
	return out, probs
}

func documentOf(c candidate, format string) Datasource {
	return Datasource{Path: c.rel, Files: c.files, MetadataPath: c.metadata, Title: title(c.rel), DataType: TypeDocument, Format: format}
}

type layerStatistics struct {
	count, empty int64
	types        map[int]bool
	hasZ         bool
	env          [4]float64
	haveEnv      bool
}

// layerStats reads every feature of the layer.
func layerStats(ctx context.Context, gl godal.Layer) (layerStatistics, error) {
	st := layerStatistics{types: map[int]bool{}, env: [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
	gl.ResetReading()
	for {
		if st.count%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return st, err
			}
		}
		f, err := gdal.NextFeature(gl)
		if err != nil {
			return st, fmt.Errorf("feature #%d: %w", st.count+1, err)
		}
		if f == nil {
			return st, nil
		}
		g := f.Geometry()
		f.Close()
		st.count++
		if !g.Present || g.Empty {
			st.empty++
			continue
		}
		st.types[g.Flat] = true
		st.hasZ = st.hasZ || g.HasZ
		st.haveEnv = true
		st.env[0], st.env[1] = math.Min(st.env[0], g.Env[0]), math.Min(st.env[1], g.Env[1])
		st.env[2], st.env[3] = math.Max(st.env[2], g.Env[2]), math.Max(st.env[3], g.Env[3])
	}
}

// OGR flat geometry type codes.
var geomNames = map[int]string{
	1: "point", 2: "linestring", 3: "polygon", 4: "multipoint", 5: "multilinestring", 6: "multipolygon",
	7: "geometrycollection", 8: "linestring", 9: "linestring", 10: "polygon", 11: "multilinestring", 12: "multipolygon",
	15: "multipolygon", 16: "multipolygon", 17: "polygon",
}

// geometryTypeName names the layer's geometry type: the declared one when
// specific, else the one seen in the features (single and multi of one
// family give the multi type).
func geometryTypeName(declared int, seen map[int]bool) string {
	if n, ok := geomNames[declared]; ok && declared != 7 {
		return n
	}
	names := map[string]bool{}
	for t := range seen {
		if n, ok := geomNames[t]; ok {
			names[n] = true
		} else {
			names["geometry"] = true
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		for n := range names {
			return n
		}
	case 2:
		for _, fam := range []string{"point", "linestring", "polygon"} {
			if names[fam] && names["multi"+fam] {
				return "multi" + fam
			}
		}
	}
	return "geometrycollection"
}

func inLonLat(b [4]float64) bool {
	return b[0] >= -180 && b[2] <= 180 && b[1] >= -90 && b[3] <= 90
}

// toLonLat reprojects a box from crs to EPSG:4326 (lon/lat).
func toLonLat(crs string, b [4]float64) ([4]float64, error) {
	if strings.EqualFold(crs, EPSG4326) {
		return b, nil
	}
	t, err := NewTransformer(crs, EPSG4326)
	if err != nil {
		return b, err
	}
	defer t.Close()
	return t.Bounds(b)
}
