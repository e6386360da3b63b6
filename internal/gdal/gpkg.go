package gdal

/*
#include <stdlib.h>
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <cpl_error.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"
)

// GPKGWriter writes one layer of a new GeoPackage, feature by feature, a
// transaction every txRows features.
type GPKGWriter struct {
	ds     C.GDALDatasetH
	layer  C.OGRLayerH
	defn   C.OGRFeatureDefnH
	kinds  []string // field types, in layer order
	inTx   bool
	queued int
}

// wkbTypes are the OGR geometry types of Geopub's geometry types.
var wkbTypes = map[string]C.OGRwkbGeometryType{
	"point": C.wkbPoint, "linestring": C.wkbLineString, "polygon": C.wkbPolygon, "multipoint": C.wkbMultiPoint,
	"multilinestring": C.wkbMultiLineString, "multipolygon": C.wkbMultiPolygon, "geometrycollection": C.wkbGeometryCollection,
}

func lastError(what string) error {
	msg := C.GoString(C.CPLGetLastErrorMsg())
	if msg == "" {
		return errors.New(what)
	}
	return fmt.Errorf("%s: %s", what, msg)
}

// CreateGPKG creates path with one layer of geometryType (Geopub's:
// point, multipolygon...; another is any geometry, "" none: a table) in
// dims dimensions (2 or 3), in crs ("EPSG:n" or WKT, "" none), with fields
// names of kinds (integer, double, boolean, date, datetime; another is
// text). Close or Abort the writer.
func CreateGPKG(path, layer, geometryType string, dims int, crs string, names, kinds []string) (*GPKGWriter, error) {
	Init()
	cdrv := C.CString("GPKG")
	defer C.free(unsafe.Pointer(cdrv))
	drv := C.GDALGetDriverByName(cdrv)
	if drv == nil {
		return nil, errors.New("GDAL has no GeoPackage driver")
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	C.CPLErrorReset()
	ds := C.GDALCreate(drv, cpath, 0, 0, 0, C.GDT_Unknown, nil)
	if ds == nil {
		return nil, lastError("creating the GeoPackage")
	}
	w := &GPKGWriter{ds: ds, kinds: kinds}
	gtype := C.OGRwkbGeometryType(C.wkbNone)
	var srs C.OGRSpatialReferenceH
	if geometryType != "" {
		gtype = C.wkbUnknown
		if t, ok := wkbTypes[geometryType]; ok {
			gtype = t
		}
		if dims == 3 {
			gtype = C.OGR_GT_SetZ(gtype)
		}
		if crs != "" {
			srs = C.OSRNewSpatialReference(nil)
			defer C.OSRRelease(srs)
			ccrs := C.CString(crs)
			defer C.free(unsafe.Pointer(ccrs))
			if C.OSRSetFromUserInput(srs, ccrs) != C.OGRERR_NONE {
				w.Abort()
				return nil, fmt.Errorf("the CRS %s is not one GDAL knows", crs)
			}
			C.OSRSetAxisMappingStrategy(srs, C.OAMS_TRADITIONAL_GIS_ORDER)
		}
	}
	clayer := C.CString(layer)
	defer C.free(unsafe.Pointer(clayer))
	w.layer = C.GDALDatasetCreateLayer(ds, clayer, srs, gtype, nil)
	if w.layer == nil {
		w.Abort()
		return nil, lastError("creating the layer")
	}
	for i, name := range names {
		ft, sub := C.OGRFieldType(C.OFTString), C.OGRFieldSubType(C.OFSTNone)
		switch kinds[i] {
		case "integer":
			ft = C.OFTInteger64
		case "double":
			ft = C.OFTReal
		case "boolean":
			ft, sub = C.OFTInteger, C.OFSTBoolean
		case "date":
			ft = C.OFTDate
		case "datetime":
			ft = C.OFTDateTime
		}
		cname := C.CString(name)
		fd := C.OGR_Fld_Create(cname, ft)
		C.free(unsafe.Pointer(cname))
		C.OGR_Fld_SetSubType(fd, sub)
		err := C.OGR_L_CreateField(w.layer, fd, 0)
		C.OGR_Fld_Destroy(fd)
		if err != C.OGRERR_NONE {
			w.Abort()
			return nil, lastError("creating field " + name)
		}
	}
	w.defn = C.OGR_L_GetLayerDefn(w.layer)
	return w, nil
}

// txRows is how many features one GeoPackage transaction holds.
const txRows = 10000

// Write adds a feature: wkb (nil for none) and values in field order
// (int64, float64, bool, time.Time, string or nil; other types are left
// unset).
func (w *GPKGWriter) Write(wkb []byte, values []any) error {
	if !w.inTx {
		if C.GDALDatasetStartTransaction(w.ds, 0) != C.OGRERR_NONE {
			return lastError("starting a GeoPackage transaction")
		}
		w.inTx = true
	}
	f := C.OGR_F_Create(w.defn)
	defer C.OGR_F_Destroy(f)
	if len(wkb) > 0 {
		var g C.OGRGeometryH
		if C.OGR_G_CreateFromWkb(unsafe.Pointer(&wkb[0]), nil, &g, C.int(len(wkb))) != C.OGRERR_NONE {
			return errors.New("a geometry could not be read")
		}
		C.OGR_F_SetGeometryDirectly(f, g)
	}
	for i, v := range values {
		ci := C.int(i)
		switch v := v.(type) {
		case nil:
			C.OGR_F_SetFieldNull(f, ci)
		case int64:
			C.OGR_F_SetFieldInteger64(f, ci, C.GIntBig(v))
		case float64:
			C.OGR_F_SetFieldDouble(f, ci, C.double(v))
		case bool:
			b := 0
			if v {
				b = 1
			}
			C.OGR_F_SetFieldInteger(f, ci, C.int(b))
		case time.Time:
			tz := 100 // UTC
			if w.kinds[i] == "date" {
				tz = 0
			}
			v = v.UTC()
			sec := float64(v.Second()) + float64(v.Nanosecond())/1e9
			C.OGR_F_SetFieldDateTimeEx(f, ci, C.int(v.Year()), C.int(v.Month()), C.int(v.Day()),
				C.int(v.Hour()), C.int(v.Minute()), C.float(sec), C.int(tz))
		case string:
			cs := C.CString(v)
			C.OGR_F_SetFieldString(f, ci, cs)
			C.free(unsafe.Pointer(cs))
		}
	}
	if C.OGR_L_CreateFeature(w.layer, f) != C.OGRERR_NONE {
		return lastError("writing a feature")
	}
	if w.queued++; w.queued >= txRows {
		return w.commit()
	}
	return nil
}

func (w *GPKGWriter) commit() error {
	if !w.inTx {
		return nil
	}
	w.inTx, w.queued = false, 0
	if C.GDALDatasetCommitTransaction(w.ds) != C.OGRERR_NONE {
		return lastError("committing the GeoPackage")
	}
	return nil
}

// Close commits and closes the file.
func (w *GPKGWriter) Close() error {
	err := w.commit()
	C.CPLErrorReset()
	C.GDALClose(w.ds)
	w.ds = nil
	if err == nil && C.CPLGetLastErrorType() >= C.CE_Failure {
		err = lastError("closing the GeoPackage")
	}
	return err
}

// Abort closes the file without committing; after Close it does nothing.
func (w *GPKGWriter) Abort() {
	if w.ds != nil {
		C.GDALClose(w.ds)
		w.ds = nil
	}
}
