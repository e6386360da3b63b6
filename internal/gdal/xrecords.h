// xrecords.h: the C side of RecordReader (xrecords.c), called from
// records.go.
#ifndef GEOPUB_XRECORDS_H
#define GEOPUB_XRECORDS_H

#include <stddef.h>
#include <ogr_api.h>

// What a packed field holds, chosen by the reader per field (records.go).
enum { XR_TEXT = 0, XR_INT = 1, XR_REAL = 2, XR_DATETIME = 3, XR_FID = 4 };

// Tags of packed values; NULL for an unset or null field.
enum { XRV_NULL = 0, XRV_INT = 1, XRV_REAL = 2, XRV_TEXT = 3, XRV_DATETIME = 4 };

// xrecords is a RecordReader's C state: the layer, the fields it packs
// and the feature that did not fit into the last batch.
typedef struct {
	OGRLayerH layer;
	int n;
	int *idx;  // OGR field index per packed field
	int *kind; // XR_* per packed field
	OGRFeatureH pending;
} xrecords;

// xrecordsPack packs up to max features into buf (cap bytes), each as
//
//	int64 fid, int32 WKB length (-1: no geometry), the ISO WKB (NDR),
//	then per field a tag byte and its value: int64, double, int32 length
//	and bytes, or int32 year, month, day, hour, minute, tz and a float
//	second;
//
// all in the machine's byte order, unaligned. It returns the number of
// features packed and sets *used; 0 means the layer is done. When the
// next feature alone does not fit into cap bytes it returns -1 and keeps
// the feature for the next call. A read failure, or a geometry that
// cannot be exported as WKB, stops the batch: *failed is set and msg
// filled, after the features packed before it.
int xrecordsPack(xrecords *r, unsigned char *buf, size_t cap, size_t *used, int max, int *failed, char *msg, size_t msglen);

// xrecordsFree frees the pending feature and the field arrays.
void xrecordsFree(xrecords *r);

#endif
