// xwrite.c: the C side of VectorWriter: one call writes a batch of rows
// (see vectorwrite.go for the record layout) into an OGR layer, clipping
// with GEOS and reprojecting on the way, so that the per-row work makes
// no cgo crossing.
#include "xwrite.h"

static void xwSetErr(xw *w, const char *what) {
	const char *m = CPLGetLastErrorMsg();
	snprintf(w->err, sizeof w->err, "%s%s%s", what, (m && *m) ? ": " : "", (m && *m) ? m : "");
}

static OGRSpatialReferenceH xgSRS(int epsg) {
	OGRSpatialReferenceH s = OSRNewSpatialReference(NULL);
	if (OSRImportFromEPSG(s, epsg) != OGRERR_NONE) {
		OSRDestroySpatialReference(s);
		return NULL;
	}
	OSRSetAxisMappingStrategy(s, OAMS_TRADITIONAL_GIS_ORDER);
	return s;
}

void xgFree(xgeo *g) {
	if (g->pclip) OGRDestroyPreparedGeometry(g->pclip);
	if (g->clip) OGR_G_DestroyGeometry(g->clip);
	if (g->rect) OGR_G_DestroyGeometry(g->rect);
	if (g->ct) OCTDestroyCoordinateTransformation(g->ct);
	if (g->src) OSRDestroySpatialReference(g->src);
	if (g->dst) OSRDestroySpatialReference(g->dst);
	free(g);
}

// xgNew prepares the clip (ISO WKB, may be NULL) and the transformation
// to epsg. On failure it returns NULL and fills err.
xgeo *xgNew(const unsigned char *clip, int cliplen, int epsg, char *err, size_t errlen) {
	xgeo *g = calloc(1, sizeof *g);
	CPLPushErrorHandler(CPLQuietErrorHandler);
	CPLErrorReset();
	g->src = xgSRS(4326);
	g->dst = xgSRS(epsg);
	if (g->src == NULL || g->dst == NULL) {
		snprintf(err, errlen, "unknown CRS EPSG:%d", epsg);
		goto fail;
	}
	if (epsg != 4326) {
		g->ct = OCTNewCoordinateTransformation(g->src, g->dst);
		if (g->ct == NULL) {
			snprintf(err, errlen, "no transformation from EPSG:4326 to EPSG:%d: %s", epsg, CPLGetLastErrorMsg());
			goto fail;
		}
	}
	if (clip != NULL && cliplen > 0) {
		if (OGR_G_CreateFromWkbEx(clip, NULL, &g->clip, cliplen) != OGRERR_NONE || g->clip == NULL) {
			snprintf(err, errlen, "the crop area is not valid WKB");
			goto fail;
		}
		if (!OGR_G_IsValid(g->clip)) {
			OGRGeometryH v = OGR_G_MakeValid(g->clip);
			if (v == NULL) {
				snprintf(err, errlen, "the crop area is not a valid polygon");
				goto fail;
			}
			OGR_G_DestroyGeometry(g->clip);
			g->clip = v;
		}
		g->pclip = OGRCreatePreparedGeometry(g->clip);
		g->rect = OGR_G_CreateGeometry(wkbPolygon);
		g->ring = OGR_G_CreateGeometry(wkbLinearRing);
		int i;
		for (i = 0; i < 5; i++) OGR_G_SetPoint_2D(g->ring, i, 0, 0);
		OGR_G_AddGeometryDirectly(g->rect, g->ring);
		g->ring = OGR_G_GetGeometryRef(g->rect, 0);
	}
	CPLPopErrorHandler();
	return g;
fail:
	CPLPopErrorHandler();
	xgFree(g);
	return NULL;
}

// xgEnvelope is the clip's envelope (minx, miny, maxx, maxy); the whole
// world without a clip.
void xgEnvelope(xgeo *g, double *out) {
	if (g->clip == NULL) {
		out[0] = -1e308; out[1] = -1e308; out[2] = 1e308; out[3] = 1e308;
		return;
	}
	OGREnvelope e;
	OGR_G_GetEnvelope(g->clip, &e);
	out[0] = e.MinX; out[1] = e.MinY; out[2] = e.MaxX; out[3] = e.MaxY;
}

// xwOpen creates the dataset path with driver and its layer with the
// item's fields. types are our field kinds per field; bools marks
// boolean fields. It returns NULL and fills err on failure.
xw *xwOpen(const char *driver, const char *path, const char *layer, char **dsco, char **lco,
                  int gtype, xgeo *g, int nfields, char **names, int *types, int *bools,
                  int noattrs, long long limit, long long maxCount, const char *pragma,
                  char *err, size_t errlen) {
	CPLPushErrorHandler(CPLQuietErrorHandler);
	CPLErrorReset();
	xw *w = calloc(1, sizeof *w);
	w->gtype = (OGRwkbGeometryType)gtype;
	w->limit = limit;
	w->maxCount = maxCount;
	w->nfields = nfields;
	w->fidx = calloc(nfields > 0 ? nfields : 1, sizeof(int));
	GDALDriverH drv = GDALGetDriverByName(driver);
	if (drv == NULL) {
		snprintf(err, errlen, "GDAL has no %s driver", driver);
		goto fail;
	}
	w->ds = GDALCreate(drv, path, 0, 0, 0, GDT_Unknown, dsco);
	if (w->ds == NULL) {
		snprintf(err, errlen, "cannot create %s: %s", path, CPLGetLastErrorMsg());
		goto fail;
	}
	if (pragma != NULL && *pragma) {
		OGRLayerH r = GDALDatasetExecuteSQL(w->ds, pragma, NULL, NULL);
		if (r != NULL) GDALDatasetReleaseResultSet(w->ds, r);
	}
	w->lyr = GDALDatasetCreateLayer(w->ds, layer, gtype == wkbNone ? NULL : g->dst, (OGRwkbGeometryType)gtype, lco);
	if (w->lyr == NULL) {
		snprintf(err, errlen, "cannot create layer %s: %s", layer, CPLGetLastErrorMsg());
		goto fail;
	}
	OGRFeatureDefnH defn = OGR_L_GetLayerDefn(w->lyr);
	int i;
	for (i = 0; i < nfields; i++) {
		w->fidx[i] = -1;
		if (noattrs) continue;
		OGRFieldType t = OFTString;
		switch (types[i]) {
		case 1: t = bools[i] ? OFTInteger : OFTInteger64; break;
		case 2: t = OFTReal; break;
		case 4: t = OFTDate; break;
		case 5: t = OFTDateTime; break;
		case 6: t = OFTTime; break;
		}
		OGRFieldDefnH fd = OGR_Fld_Create(names[i], t);
		if (bools[i]) OGR_Fld_SetSubType(fd, OFSTBoolean);
		int before = OGR_FD_GetFieldCount(defn);
		OGRErr e = OGR_L_CreateField(w->lyr, fd, TRUE);
		OGR_Fld_Destroy(fd);
		if (e != OGRERR_NONE) {
			snprintf(err, errlen, "cannot create field %s: %s", names[i], CPLGetLastErrorMsg());
			goto fail;
		}
		int idx = OGR_FD_GetFieldIndex(defn, names[i]);
		if (OGR_FD_GetFieldCount(defn) > before) idx = OGR_FD_GetFieldCount(defn) - 1;
		w->fidx[i] = idx;
	}
	if (limit > 0) {
		w->shp = 100;
		w->dbf = 32 + 32 * (long long)OGR_FD_GetFieldCount(defn) + 1;
		w->reclen = 1;
		for (i = 0; i < OGR_FD_GetFieldCount(defn); i++) {
			int wd = OGR_Fld_GetWidth(OGR_FD_GetFieldDefn(defn, i));
			w->reclen += wd > 0 ? wd : 255;
		}
	}
	w->feat = OGR_F_Create(defn);
	CPLPopErrorHandler();
	return w;
fail:
	CPLPopErrorHandler();
	if (w->ds) GDALClose(w->ds);
	free(w->fidx);
	free(w);
	return NULL;
}

// xwTx starts (begin != 0) or commits a dataset transaction where the
// driver has them; it returns 0 or -1 with w->err.
int xwTx(xw *w, int begin) {
	int rc = 0;
	CPLPushErrorHandler(CPLQuietErrorHandler);
	CPLErrorReset();
	if (begin) {
		w->intx = GDALDatasetStartTransaction(w->ds, FALSE) == OGRERR_NONE;
	} else if (w->intx) {
		w->intx = 0;
		if (GDALDatasetCommitTransaction(w->ds) != OGRERR_NONE) {
			xwSetErr(w, "commit failed");
			rc = -1;
		}
	}
	CPLPopErrorHandler();
	return rc;
}

// xwClose rolls back an open transaction when abort is set (commits it
// otherwise), closes the dataset and frees w. It returns 0 or -1 with
// err filled.
int xwClose(xw *w, int abort, char *err, size_t errlen) {
	int rc = 0;
	CPLPushErrorHandler(CPLQuietErrorHandler);
	CPLErrorReset();
	if (w->intx) {
		OGRErr e = abort ? GDALDatasetRollbackTransaction(w->ds) : GDALDatasetCommitTransaction(w->ds);
		if (e != OGRERR_NONE && !abort) {
			snprintf(err, errlen, "commit failed: %s", CPLGetLastErrorMsg());
			rc = -1;
		}
	}
	if (w->feat) OGR_F_Destroy(w->feat);
	CPLErrorReset();
	GDALClose(w->ds);
	if (rc == 0 && !abort && CPLGetLastErrorType() >= CE_Failure) {
		snprintf(err, errlen, "closing the file failed: %s", CPLGetLastErrorMsg());
		rc = -1;
	}
	CPLPopErrorHandler();
	free(w->fidx);
	free(w);
	return rc;
}

// xwSpatialIndex builds a GeoPackage's spatial index (the layer was
// created without one, so that an aborted export closes at once). It
// returns 0 or -1 with w->err.
int xwSpatialIndex(xw *w) {
	if (w->gtype == wkbNone) return 0;
	int rc = 0;
	CPLPushErrorHandler(CPLQuietErrorHandler);
	CPLErrorReset();
	if (w->intx) {
		w->intx = 0;
		if (GDALDatasetCommitTransaction(w->ds) != OGRERR_NONE) {
			xwSetErr(w, "commit failed");
			CPLPopErrorHandler();
			return -1;
		}
	}
	const char *table = OGR_L_GetName(w->lyr), *col = OGR_L_GetGeometryColumn(w->lyr);
	char *sql = CPLStrdup(CPLSPrintf("SELECT CreateSpatialIndex('%s', '%s')", table, col));
	OGRLayerH r = GDALDatasetExecuteSQL(w->ds, sql, NULL, NULL);
	if (r != NULL) GDALDatasetReleaseResultSet(w->ds, r);
	if (CPLGetLastErrorType() >= CE_Failure) {
		xwSetErr(w, "building the spatial index failed");
		rc = -1;
	}
	CPLFree(sql);
	CPLPopErrorHandler();
	return rc;
}

static int xgDim(OGRwkbGeometryType t) {
	switch (wkbFlatten(t)) {
	case wkbPoint: case wkbMultiPoint: return 0;
	case wkbLineString: case wkbMultiLineString: case wkbCircularString: case wkbCompoundCurve:
	case wkbMultiCurve: return 1;
	case wkbPolygon: case wkbMultiPolygon: case wkbCurvePolygon: case wkbMultiSurface:
	case wkbTriangle: case wkbTIN: case wkbPolyhedralSurface: return 2;
	default: return -1;
	}
}

// xgCollect adds the parts of g of dimension dim to multi, recursing into
// collections; it takes ownership of nothing.
static void xgCollect(OGRGeometryH g, int dim, OGRGeometryH multi) {
	OGRwkbGeometryType t = wkbFlatten(OGR_G_GetGeometryType(g));
	if (t == wkbGeometryCollection || t == wkbMultiPoint || t == wkbMultiLineString || t == wkbMultiPolygon) {
		int i, n = OGR_G_GetGeometryCount(g);
		for (i = 0; i < n; i++) xgCollect(OGR_G_GetGeometryRef(g, i), dim, multi);
		return;
	}
	if (xgDim(t) == dim && !OGR_G_IsEmpty(g)) OGR_G_AddGeometry(multi, g);
}

// xgKeepDim returns r's parts of dimension dim (r is consumed), NULL
// when none is left: a cut of lower dimension is dropped.
static OGRGeometryH xgKeepDim(OGRGeometryH r, int dim) {
	if (r == NULL) return NULL;
	if (OGR_G_IsEmpty(r)) { OGR_G_DestroyGeometry(r); return NULL; }
	OGRwkbGeometryType t = wkbFlatten(OGR_G_GetGeometryType(r));
	if (t != wkbGeometryCollection) {
		if (xgDim(t) == dim) return r;
		OGR_G_DestroyGeometry(r);
		return NULL;
	}
	OGRwkbGeometryType mt = dim == 0 ? wkbMultiPoint : dim == 1 ? wkbMultiLineString : wkbMultiPolygon;
	if (OGR_G_Is3D(r)) mt = OGR_GT_SetZ(mt);
	OGRGeometryH m = OGR_G_CreateGeometry(mt);
	xgCollect(r, dim, m);
	OGR_G_DestroyGeometry(r);
	if (OGR_G_GetGeometryCount(m) == 0) { OGR_G_DestroyGeometry(m); return NULL; }
	if (OGR_G_GetGeometryCount(m) == 1) {
		OGRGeometryH one = OGR_G_Clone(OGR_G_GetGeometryRef(m, 0));
		OGR_G_DestroyGeometry(m);
		return one;
	}
	return m;
}

// xgCut clips geom (consumed) to the clip area; box is its envelope.
// It returns NULL when nothing of geom's dimension is left.
static OGRGeometryH xgCut(xgeo *g, OGRGeometryH geom, const double *box) {
	if (g->clip == NULL) return geom;
	OGRwkbGeometryType t = wkbFlatten(OGR_G_GetGeometryType(geom));
	if (t == wkbPoint) {
		if (OGRPreparedGeometryIntersects(g->pclip, geom)) return geom;
		OGR_G_DestroyGeometry(geom);
		return NULL;
	}
	if (box[2] > box[0] && box[3] > box[1]) {
		OGR_G_SetPoint_2D(g->ring, 0, box[0], box[1]);
		OGR_G_SetPoint_2D(g->ring, 1, box[2], box[1]);
		OGR_G_SetPoint_2D(g->ring, 2, box[2], box[3]);
		OGR_G_SetPoint_2D(g->ring, 3, box[0], box[3]);
		OGR_G_SetPoint_2D(g->ring, 4, box[0], box[1]);
		if (OGRPreparedGeometryContains(g->pclip, g->rect)) return geom;
	}
	if (!OGRPreparedGeometryIntersects(g->pclip, geom)) {
		OGR_G_DestroyGeometry(geom);
		return NULL;
	}
	int dim = OGR_G_GetDimension(geom);
	OGRGeometryH r = OGR_G_Intersection(geom, g->clip);
	if (r == NULL && !OGR_G_IsValid(geom)) {
		OGRGeometryH v = OGR_G_MakeValid(geom);
		if (v != NULL) {
			r = OGR_G_Intersection(v, g->clip);
			OGR_G_DestroyGeometry(v);
		}
	}
	OGR_G_DestroyGeometry(geom);
	return xgKeepDim(r, dim);
}

// shpRecord bounds the bytes a geometry takes in a .shp: record header
// and content (WKB size plus the shape header; Z shapes also carry Z and
// M ranges and arrays).
static long long shpRecord(OGRGeometryH geom) {
	if (geom == NULL) return 12;
	long long gs = (long long)OGR_G_WkbSize(geom);
	return 8 + (OGR_G_Is3D(geom) ? gs * 2 + 96 : gs + 44);
}

static long long rdI64(const unsigned char *p) { long long v; memcpy(&v, p, 8); return v; }
static double rdF64(const unsigned char *p) { double v; memcpy(&v, p, 8); return v; }
static int rdI32(const unsigned char *p) { int v; memcpy(&v, p, 4); return v; }

// xwWrite writes the records of buf (see vectorwrite.go) from *off on. It
// returns 0 when the buffer is done, 1 when a Shapefile part is full (the
// record at *off is not written yet), -1 on error (w->err). *written
// counts the features written.
int xwWrite(xw *w, xgeo *g, const unsigned char *buf, size_t len, size_t *off, long long *written) {
	int rc = 0;
	CPLPushErrorHandler(CPLQuietErrorHandler);
	CPLErrorReset();
	OGRwkbGeometryType lflat = wkbFlatten(w->gtype);
	int lmulti = lflat == wkbMultiPoint || lflat == wkbMultiLineString || lflat == wkbMultiPolygon;
	while (*off < len) {
		if (w->maxCount > 0 && w->count >= w->maxCount) {
			rc = 1;
			break;
		}
		const unsigned char *p = buf + *off;
		size_t reclen = (size_t)rdI32(p);
		int glen = rdI32(p + 4);
		double box[4];
		memcpy(box, p + 8, 32);
		const unsigned char *q = p + 40;
		OGRGeometryH geom = NULL;
		if (glen > 0 && w->gtype != wkbNone) {
			if (OGR_G_CreateFromWkbEx(q, NULL, &geom, glen) != OGRERR_NONE) geom = NULL;
			if (geom != NULL) {
				geom = xgCut(g, geom, box);
				if (geom == NULL) { *off += reclen; continue; }
				OGRwkbGeometryType gf = wkbFlatten(OGR_G_GetGeometryType(geom));
				if (lmulti && gf != lflat) {
					geom = OGR_G_ForceTo(geom, OGR_G_Is3D(geom) ? OGR_GT_SetZ(lflat) : lflat, NULL);
				}
				if (g->ct != NULL && OGR_G_Transform(geom, g->ct) != OGRERR_NONE) {
					OGR_G_DestroyGeometry(geom);
					xwSetErr(w, "reprojection failed");
					rc = -1;
					break;
				}
			}
		} else if (g->clip != NULL && w->gtype != wkbNone) {
			*off += reclen;
			continue;
		}
		q += glen;
		if (w->limit > 0) {
			long long rec = shpRecord(geom);
			if (w->count > 0 && (w->shp + rec > w->limit || w->dbf + w->reclen > w->limit)) {
				if (geom) OGR_G_DestroyGeometry(geom);
				rc = 1;
				break;
			}
			w->shp += rec;
			w->dbf += w->reclen;
		}
		OGR_F_SetGeometryDirectly(w->feat, geom);
		int i;
		for (i = 0; i < w->nfields; i++) {
			int kind = *q++;
			int idx = w->fidx[i];
			switch (kind) {
			case XV_NULL:
				if (idx >= 0) OGR_F_SetFieldNull(w->feat, idx);
				break;
			case XV_INT:
				if (idx >= 0) OGR_F_SetFieldInteger64(w->feat, idx, rdI64(q));
				q += 8;
				break;
			case XV_REAL:
				if (idx >= 0) OGR_F_SetFieldDouble(w->feat, idx, rdF64(q));
				q += 8;
				break;
			case XV_STR: {
				int n = rdI32(q);
				if (idx >= 0) OGR_F_SetFieldString(w->feat, idx, (const char *)(q + 4));
				q += 4 + n + 1;
				break;
			}
			case XV_DATETIME: {
				int y = rdI32(q), mo = q[4], d = q[5], h = q[6], mi = q[7], tz = q[8];
				double s = rdF64(q + 9);
				if (idx >= 0) OGR_F_SetFieldDateTimeEx(w->feat, idx, y, mo, d, h, mi, (float)s, tz);
				q += 17;
				break;
			}
			}
		}
		OGR_F_SetFID(w->feat, OGRNullFID);
		if (OGR_L_CreateFeature(w->lyr, w->feat) != OGRERR_NONE) {
			xwSetErr(w, "writing a feature failed");
			rc = -1;
			break;
		}
		w->count++;
		(*written)++;
		*off += reclen;
	}
	CPLPopErrorHandler();
	return rc;
}
