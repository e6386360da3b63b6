package ingest

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/geopub/geopub/internal/gdal"
)

// Feature is one record of a vector layer or table.
type Feature struct {
	FID int64
	// Geometry is little-endian ISO WKB in the datasource's CRS; nil when
	// the feature has no geometry or an empty one.
	Geometry []byte
	// Attributes maps field names to values: int64 (integer), float64
	// (double), string, bool (boolean), time.Time (date, datetime) or nil
	// (null / unset).
	Attributes map[string]any
}

// ReadFeatures streams every feature of a vector or table datasource found
// by Scan under dir, in file order. It stops at the first error from fn
// (returned as is), on ctx cancellation, or when GDAL fails to read a
// feature (the error names the feature).
func ReadFeatures(ctx context.Context, dir string, ds Datasource, fn func(Feature) error) error {
	_, err := ReadKeyedFeatures(ctx, dir, ds, fn)
	return err
}

// ReadKeyedFeatures is ReadFeatures that also returns the key the
// datasource declares: a GeoPackage's primary-key column, which Scan
// lists as an integer field and the features carry as that attribute
// (GDAL's default name, fid, excepted; see withDeclaredKey); nil when it
// declares none.
func ReadKeyedFeatures(ctx context.Context, dir string, ds Datasource, fn func(Feature) error) (declared []string, err error) {
	if ds.DataType != TypeVector && ds.DataType != TypeTable {
		return nil, fmt.Errorf("ingest: %s is a %s, not a vector layer or table", ds.Path, ds.DataType)
	}
	k, ok := kinds[lowerExt(ds.Path)]
	if !ok {
		return nil, fmt.Errorf("ingest: %s: unknown format", ds.Path)
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	c := candidate{rel: ds.Path, kind: k, files: ds.Files}
	if len(c.files) == 0 {
		c.files = []string{ds.Path}
	}
	abs := filepath.Join(root, filepath.FromSlash(ds.Path))
	var openOpts []string
	if k.format == "text/csv" {
		if openOpts, err = csvOpenOptions(abs); err != nil {
			return nil, fmt.Errorf("ingest: %s: %w", ds.Path, err)
		}
	}
	gds, err := openLocal(abs, true, k.drivers, c.siblings(), openOpts)
	if err != nil {
		return nil, fmt.Errorf("ingest: open %s: %w", ds.Path, err)
	}
	defer gds.Close()
	defer gdal.WatchSQLite(ctx, gds)()
	layers := gds.Layers()
	if len(layers) == 0 {
		return nil, fmt.Errorf("ingest: %s has no layers", ds.Path)
	}
	l := layers[0]
	if ds.Layer != "" {
		found := gds.LayerByName(ds.Layer)
		if found == nil {
			return nil, fmt.Errorf("ingest: %s has no layer %q", ds.Path, ds.Layer)
		}
		l = *found
	}
	fields, _ := layerSchema(l)
	fields, key := withDeclaredKey(l, gds.Driver().ShortName(), fields)
	if key != "" {
		declared = []string{key}
	}
	l.ResetReading()
	r := gdal.NewRecordReader(l, packFields(fields))
	defer r.Close()
	for n := int64(0); ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("ingest: %s: reading feature #%d: %w", where(ds), n+1, err)
		}
		if rec == nil {
			return declared, nil
		}
		if err := fn(convertRecord(rec, fields)); err != nil {
			return nil, err
		}
	}
}

// packFields says how a RecordReader reads each of fields.
func packFields(fields []ogrField) []gdal.PackField {
	out := make([]gdal.PackField, len(fields))
	for i, fd := range fields {
		as := gdal.PackText
		switch {
		case fd.fid:
			as = gdal.PackFID
		case fd.typ == "boolean" || fd.typ == "integer":
			as = gdal.PackInt
		case fd.typ == "double":
			as = gdal.PackReal
		case fd.typ == "date" || fd.typ == "datetime" || fd.typ == "time":
			as = gdal.PackDateTime
		}
		out[i] = gdal.PackField{Index: fd.idx, As: as}
	}
	return out
}

// convertRecord is a Feature of its own (nothing in it points into the
// reader's buffer) holding rec, whose values were read by packFields.
func convertRecord(rec *gdal.Record, fields []ogrField) Feature {
	feat := Feature{FID: rec.FID, Attributes: make(map[string]any, len(fields))}
	if rec.WKB != nil {
		feat.Geometry = bytes.Clone(rec.WKB)
	}
	for i, fd := range fields {
		feat.Attributes[fd.name] = recordValue(rec.Values[i], fd.typ)
	}
	return feat
}

func where(ds Datasource) string {
	if ds.Layer != "" {
		return ds.Path + " layer " + ds.Layer
	}
	return ds.Path
}
