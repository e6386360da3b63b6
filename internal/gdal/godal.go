package gdal

/*
#include <gdal.h>
#include <ogr_api.h>
*/
import "C"

import (
	"unsafe"

	"github.com/airbusgeo/godal"
)

// godal v0.0.18 hides its C handles and lacks calls Geopub needs (a layer's
// schema, a feature read's error, a geometry's absence without GDAL
// printing errors, a dataset's SQLite connection), so the binding reads
// the handles out of godal's values. Each of godal.Dataset, godal.Layer
// and godal.Feature is a struct holding exactly its C handle; this is the
// one place that relies on it, and the check below fails loudly at start
// if a godal upgrade changes any of them.
func init() {
	for name, size := range map[string]uintptr{
		"Dataset": unsafe.Sizeof(godal.Dataset{}),
		"Layer":   unsafe.Sizeof(godal.Layer{}),
		"Feature": unsafe.Sizeof(godal.Feature{}),
	} {
		if size != unsafe.Sizeof(uintptr(0)) {
			panic("gdal: godal." + name + " layout changed; update godal.go")
		}
	}
}

func datasetHandle(ds *godal.Dataset) C.GDALDatasetH {
	return *(*C.GDALDatasetH)(unsafe.Pointer(ds))
}

func layerHandle(l godal.Layer) C.OGRLayerH {
	return *(*C.OGRLayerH)(unsafe.Pointer(&l))
}

func featureHandle(f *godal.Feature) C.OGRFeatureH {
	return *(*C.OGRFeatureH)(unsafe.Pointer(f))
}
