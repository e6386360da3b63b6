package ingest

import "context"

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
	r, err := OpenRecords(ctx, dir, ds)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err != nil || rec == nil {
			return r.Declared(), err
		}
		if err := fn(r.feature(rec)); err != nil {
			return nil, err
		}
	}
}

func where(ds Datasource) string {
	if ds.Layer != "" {
		return ds.Path + " layer " + ds.Layer
	}
	return ds.Path
}
