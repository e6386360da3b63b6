package exportfile

import (
	"fmt"

	"github.com/geopub/geopub/internal/gdal"
)

// layerSpec is what a dataset's layer is created with.
type layerSpec struct {
	driver, path, layer string
	dsco, lco           []string
	gtype               gdal.GeomType // gdal.GeomNone for tables
	fields              []Field
	kinds               []fieldKind
	noAttributes        bool
	// splitAt is the Shapefile part limit in bytes (0 = no split).
	splitAt int64
	// partFeatures ends a part after that many features (0 = no limit).
	partFeatures int64
	// pragma is SQL run on the new dataset (SQLite-based formats).
	pragma string
}

// openWriter creates the dataset and layer of s.
func openWriter(s layerSpec, g *gdal.Clip) (*gdal.VectorWriter, error) {
	l := gdal.VectorLayer{
		Driver: s.driver, Path: s.path, Layer: s.layer, DSCO: s.dsco, LCO: s.lco, GeomType: s.gtype,
		Names: make([]string, len(s.fields)), Types: make([]int, len(s.fields)), Booleans: make([]bool, len(s.fields)),
		NoAttributes: s.noAttributes, SplitAt: s.splitAt, PartFeatures: s.partFeatures, Pragma: s.pragma,
	}
	for i, f := range s.fields {
		l.Names[i], l.Types[i], l.Booleans[i] = f.Name, s.kinds[i].ogr, s.kinds[i].boolean
	}
	return gdal.OpenVectorWriter(l, g)
}

// closeWriter finishes w's dataset (abort rolls back an open
// transaction).
func closeWriter(w *gdal.VectorWriter, abort bool) error {
	if err := w.Close(abort); err != nil {
		return fmt.Errorf("exportfile: %w", err)
	}
	return nil
}

// OGR geometry types of the layer version vocabulary.
var ogrGeomTypes = map[string]gdal.GeomType{
	"point": gdal.GeomPoint, "linestring": gdal.GeomLineString, "polygon": gdal.GeomPolygon,
	"multipoint": gdal.GeomMultiPoint, "multilinestring": gdal.GeomMultiLineString, "multipolygon": gdal.GeomMultiPolygon,
}

// layerGeomType is the OGR type of a layer of geometry type g: the multi
// type when clipped (a cut can split a line or polygon), GeomUnknown for
// mixed layers, GeomNone for tables; Z when hasZ.
func layerGeomType(g string, clipped, hasZ bool) gdal.GeomType {
	if g == "" {
		return gdal.GeomNone
	}
	t, ok := ogrGeomTypes[g]
	if !ok {
		t = gdal.GeomUnknown
	}
	if clipped {
		switch t {
		case gdal.GeomLineString:
			t = gdal.GeomMultiLineString
		case gdal.GeomPolygon:
			t = gdal.GeomMultiPolygon
		}
	}
	if hasZ {
		t = t.WithZ()
	}
	return t
}
