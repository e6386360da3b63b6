package ingest

import (
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
	for n := int64(0); ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := gdal.NextFeature(l)
		if err != nil {
			return nil, fmt.Errorf("ingest: %s: reading feature #%d: %w", where(ds), n+1, err)
		}
		if f == nil {
			return declared, nil
		}
		feat, err := convertFeature(f, fields)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("ingest: %s: feature FID %d: %w", where(ds), feat.FID, err)
		}
		if err := fn(feat); err != nil {
			return nil, err
		}
	}
}

func convertFeature(f *gdal.Feature, fields []ogrField) (Feature, error) {
	feat := Feature{FID: f.FID(), Attributes: make(map[string]any, len(fields))}
	wkb, err := f.WKB()
	if err != nil {
		return feat, err
	}
	feat.Geometry = wkb
	for _, fd := range fields {
		feat.Attributes[fd.name] = value(f, fd)
	}
	return feat, nil
}

func where(ds Datasource) string {
	if ds.Layer != "" {
		return ds.Path + " layer " + ds.Layer
	}
	return ds.Path
}
