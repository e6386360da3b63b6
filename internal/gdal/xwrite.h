// xwrite.h: the C side of VectorWriter (xwrite.c), called from
// vectorwrite.go.
#ifndef GEOPUB_XWRITE_H
#define GEOPUB_XWRITE_H

#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>

// Field kinds of a batch record (see vectorwrite.go).
enum { XV_NULL = 0, XV_INT = 1, XV_REAL = 2, XV_STR = 3, XV_DATETIME = 4 };

// xgeo is the geometry work shared by every part of an item: the clip
// polygon (EPSG:4326) prepared for fast tests, a reusable rectangle for
// the fully-inside test of a row's box, and the transformation to the
// target CRS (NULL when the target is EPSG:4326).
typedef struct {
	OGRGeometryH clip;
	OGRPreparedGeometryH pclip;
	OGRGeometryH rect, ring;
	OGRCoordinateTransformationH ct;
	OGRSpatialReferenceH src, dst;
} xgeo;

// xw is one open output dataset and its layer.
typedef struct {
	GDALDatasetH ds;
	OGRLayerH lyr;
	OGRFeatureH feat;
	int nfields;
	int *fidx;          // layer field index of each item field, -1 = left out
	OGRwkbGeometryType gtype; // the layer's type (wkbUnknown = any, wkbNone)
	int intx;           // in a dataset transaction
	// Shapefile parts: bytes of .shp and .dbf so far, .dbf record length
	// and the limit (0 = no split).
	long long shp, dbf, reclen, limit, count;
	// maxCount ends a part after that many features (0 = no limit).
	long long maxCount;
	char err[512];
} xw;

xgeo *xgNew(const unsigned char *clip, int cliplen, int epsg, char *err, size_t errlen);
void xgFree(xgeo *g);
void xgEnvelope(xgeo *g, double *out);
xw *xwOpen(const char *driver, const char *path, const char *layer, char **dsco, char **lco,
                  int gtype, xgeo *g, int nfields, char **names, int *types, int *bools,
                  int noattrs, long long limit, long long maxCount, const char *pragma,
                  char *err, size_t errlen);
int xwTx(xw *w, int begin);
int xwClose(xw *w, int abort, char *err, size_t errlen);
int xwSpatialIndex(xw *w);
int xwWrite(xw *w, xgeo *g, const unsigned char *buf, size_t len, size_t *off, long long *written);

#endif
