// xrecords.c: packs features of an OGR layer into one buffer per batch,
// so that reading a layer costs one cgo call per batch rather than a
// dozen per feature (records.go).
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <stdint.h>
#include <cpl_error.h>
#include "xrecords.h"

static void xrecordsQuiet(CPLErr e, CPLErrorNum n, const char *msg) {
	(void)e; (void)n; (void)msg;
}

// packer appends to a bounded buffer; ok turns 0 when something did not
// fit, after which nothing more is written.
typedef struct {
	unsigned char *buf;
	size_t cap, len;
	int ok;
} packer;

static void put(packer *p, const void *v, size_t n) {
	if (!p->ok || p->cap - p->len < n) {
		p->ok = 0;
		return;
	}
	memcpy(p->buf + p->len, v, n);
	p->len += n;
}

static void putTag(packer *p, unsigned char tag) { put(p, &tag, 1); }

static void putI32(packer *p, int32_t v) { put(p, &v, sizeof v); }

// packFeature writes one feature: 1 when written, 0 when it did not fit,
// -1 when its geometry could not be exported as WKB.
static int packFeature(xrecords *r, OGRFeatureH f, packer *p) {
	int64_t fid = OGR_F_GetFID(f);
	put(p, &fid, sizeof fid);
	OGRGeometryH g = OGR_F_GetGeometryRef(f);
	int wkb = -1;
	if (g != NULL && !OGR_G_IsEmpty(g)) {
		wkb = OGR_G_WkbSize(g);
		if (wkb <= 0) {
			wkb = -1;
		}
	}
	putI32(p, wkb);
	if (wkb > 0) {
		if (!p->ok || p->cap - p->len < (size_t)wkb) {
			p->ok = 0;
		} else if (OGR_G_ExportToIsoWkb(g, wkbNDR, p->buf + p->len) != OGRERR_NONE) {
			return -1;
		} else {
			p->len += (size_t)wkb;
		}
	}
	for (int i = 0; i < r->n && p->ok; i++) {
		int k = r->kind[i], idx = r->idx[i];
		if (k == XR_FID) {
			if (fid == OGRNullFID) {
				putTag(p, XRV_NULL);
			} else {
				putTag(p, XRV_INT);
				put(p, &fid, sizeof fid);
			}
			continue;
		}
		if (!OGR_F_IsFieldSetAndNotNull(f, idx)) {
			putTag(p, XRV_NULL);
			continue;
		}
		switch (k) {
		case XR_INT: {
			int64_t v = OGR_F_GetFieldAsInteger64(f, idx);
			putTag(p, XRV_INT);
			put(p, &v, sizeof v);
			break;
		}
		case XR_REAL: {
			double v = OGR_F_GetFieldAsDouble(f, idx);
			putTag(p, XRV_REAL);
			put(p, &v, sizeof v);
			break;
		}
		case XR_DATETIME: {
			int y, mo, d, h, mi, tz;
			float s;
			if (!OGR_F_GetFieldAsDateTimeEx(f, idx, &y, &mo, &d, &h, &mi, &s, &tz)) {
				putTag(p, XRV_NULL);
				break;
			}
			putTag(p, XRV_DATETIME);
			putI32(p, y);
			putI32(p, mo);
			putI32(p, d);
			putI32(p, h);
			putI32(p, mi);
			putI32(p, tz);
			put(p, &s, sizeof s);
			break;
		}
		default: {
			const char *s = OGR_F_GetFieldAsString(f, idx);
			size_t n = s == NULL ? 0 : strlen(s);
			putTag(p, XRV_TEXT);
			putI32(p, (int32_t)n);
			put(p, s, n);
		}
		}
	}
	return p->ok;
}

int xrecordsPack(xrecords *r, unsigned char *buf, size_t cap, size_t *used, int max, int *failed, char *msg, size_t msglen) {
	packer p = {buf, cap, 0, 1};
	int count = 0;
	*failed = 0;
	CPLPushErrorHandler(xrecordsQuiet);
	while (count < max) {
		OGRFeatureH f = r->pending;
		r->pending = NULL;
		if (f == NULL) {
			CPLErrorReset();
			f = OGR_L_GetNextFeature(r->layer);
			if (CPLGetLastErrorType() >= CE_Failure) {
				if (f != NULL) {
					OGR_F_Destroy(f);
				}
				*failed = 1;
				snprintf(msg, msglen, "%s", CPLGetLastErrorMsg());
				break;
			}
			if (f == NULL) {
				break;
			}
		}
		size_t start = p.len;
		int packed = packFeature(r, f, &p);
		if (packed < 0) {
			p.len = start;
			*failed = 1;
			snprintf(msg, msglen, "cannot export the geometry of FID %lld as WKB", (long long)OGR_F_GetFID(f));
			OGR_F_Destroy(f);
			break;
		}
		if (packed == 0) {
			p.len = start;
			r->pending = f;
			if (count == 0) {
				count = -1;
			}
			break;
		}
		OGR_F_Destroy(f);
		count++;
	}
	CPLPopErrorHandler();
	*used = p.len;
	return count;
}

void xrecordsFree(xrecords *r) {
	if (r->pending != NULL) {
		OGR_F_Destroy(r->pending);
		r->pending = NULL;
	}
	free(r->idx);
	free(r->kind);
	r->idx = NULL;
	r->kind = NULL;
}
