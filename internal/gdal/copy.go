package gdal

/*
#cgo pkg-config: gdal
#include <stdlib.h>
#include <gdal.h>
#include <gdal_utils.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>

// geopubCopy is what Go and GDAL's thread share during a copy: stop, set
// from Go when the context ends, and done, the share of the copy done in
// millionths, set by GDAL.
typedef struct { int stop; int done; } geopubCopy;

// geopubStop is the progress callback of a cancellable copy: GDAL calls it
// as the copy advances, and gives up when it returns FALSE, which it does
// once stop is set.
static int geopubStop(double done, const char *msg, void *arg) {
	geopubCopy *c = (geopubCopy *)arg;
	(void)msg;
	__atomic_store_n(&c->done, (int)(done * 1000000.0), __ATOMIC_SEQ_CST);
	return __atomic_load_n(&c->stop, __ATOMIC_SEQ_CST) == 0;
}

static void geopubSetConfig(char **config, int set) {
	char **c;
	for (c = config; c && *c; c++) {
		char *key = NULL;
		const char *val = CPLParseNameValue(*c, &key);
		if (key) { CPLSetThreadLocalConfigOption(key, set ? val : NULL); CPLFree(key); }
	}
}

static char *geopubLastError(const char *fallback) {
	return CPLStrdup(CPLGetLastErrorMsg()[0] ? CPLGetLastErrorMsg() : fallback);
}

// geopubRun opens src read-only as a raster and runs gdal_translate (warp
// = 0) or gdalwarp (warp = 1) to dst with argv, stopping when copy->stop
// is set. The config options (NAME=VALUE) are set for this thread only,
// for the call. It returns NULL on success, else a message to free.
static char *geopubRun(int warp, const char *src, const char *dst, char **argv, char **config, geopubCopy *copy) {
	char *err = NULL;
	geopubSetConfig(config, 1);
	CPLPushErrorHandler(CPLQuietErrorHandler);
	CPLErrorReset();
	GDALDatasetH in = GDALOpenEx(src, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
	if (in == NULL) {
		err = geopubLastError("cannot open the raster");
	} else {
		GDALDatasetH out = NULL;
		int usage = 0;
		if (warp) {
			GDALWarpAppOptions *opts = GDALWarpAppOptionsNew(argv, NULL);
			if (opts == NULL) {
				err = geopubLastError("bad warp options");
			} else {
				GDALWarpAppOptionsSetProgress(opts, geopubStop, copy);
				out = GDALWarp(dst, NULL, 1, &in, opts, &usage);
				GDALWarpAppOptionsFree(opts);
			}
		} else {
			GDALTranslateOptions *opts = GDALTranslateOptionsNew(argv, NULL);
			if (opts == NULL) {
				err = geopubLastError("bad translate options");
			} else {
				GDALTranslateOptionsSetProgress(opts, geopubStop, copy);
				out = GDALTranslate(dst, in, opts, &usage);
				GDALTranslateOptionsFree(opts);
			}
		}
		if (err == NULL && out == NULL) {
			err = geopubLastError("the copy failed");
		} else if (out != NULL) {
			CPLErrorReset();
			GDALClose(out);
			if (CPLGetLastErrorType() >= CE_Failure) {
				err = CPLStrdup(CPLGetLastErrorMsg());
			}
		}
		GDALClose(in);
	}
	CPLPopErrorHandler();
	geopubSetConfig(config, 0);
	return err;
}
*/
import "C"

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
	"unsafe"
)

// ProgressPoll is how often a copy's progress is passed on.
const ProgressPoll = 200 * time.Millisecond

// Translate runs gdal_translate's copy of src to dst with switches (the
// command line's, e.g. "-of", "COG"). config holds GDAL config options
// (NAME=VALUE) for the copy only. When ctx ends the copy stops within one
// progress step and Translate returns ctx's error; dst may then be partly
// written. progress, when not nil, is told the share of the copy done (0
// to 1) about every ProgressPoll while it runs.
func Translate(ctx context.Context, src, dst string, switches, config []string, progress func(float64)) error {
	return run(ctx, false, src, dst, switches, config, progress)
}

// Warp runs gdalwarp from src to dst with switches (the command line's,
// e.g. "-t_srs", "EPSG:2193"), with the same config, cancellation and
// progress as Translate.
func Warp(ctx context.Context, src, dst string, switches, config []string, progress func(float64)) error {
	return run(ctx, true, src, dst, switches, config, progress)
}

func run(ctx context.Context, warp bool, src, dst string, switches, config []string, progress func(float64)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	Init()
	cSrc, cDst := C.CString(src), C.CString(dst)
	defer C.free(unsafe.Pointer(cSrc))
	defer C.free(unsafe.Pointer(cDst))
	argv, freeArgv := cStrings(switches)
	defer freeArgv()
	conf, freeConf := cStrings(config)
	defer freeConf()
	// The shared state lives in C memory: GDAL's thread and Go both touch
	// it.
	cp := (*C.geopubCopy)(C.calloc(1, C.size_t(unsafe.Sizeof(C.geopubCopy{}))))
	defer C.free(unsafe.Pointer(cp))
	stop := (*int32)(unsafe.Pointer(&cp.stop))
	doneShare := (*int32)(unsafe.Pointer(&cp.done))
	done := make(chan struct{})
	watched := make(chan struct{})
	defer func() { close(done); <-watched }()
	go func() {
		defer close(watched)
		tick := time.NewTicker(ProgressPoll)
		defer tick.Stop()
		last := int32(-1)
		for {
			select {
			case <-ctx.Done():
				atomic.StoreInt32(stop, 1)
				return
			case <-done:
				return
			case <-tick.C:
				if d := atomic.LoadInt32(doneShare); progress != nil && d != last {
					last = d
					progress(float64(d) / 1e6)
				}
			}
		}
	}()
	w := C.int(0)
	if warp {
		w = 1
	}
	msg := C.geopubRun(w, cSrc, cDst, argv, conf, cp)
	if ctxErr := ctx.Err(); ctxErr != nil {
		if msg != nil {
			C.CPLFree(unsafe.Pointer(msg))
		}
		return ctxErr
	}
	if msg != nil {
		defer C.CPLFree(unsafe.Pointer(msg))
		return errors.New(C.GoString(msg))
	}
	return nil
}

// SetConfig sets a GDAL config option for the whole process.
func SetConfig(key, value string) {
	k, v := C.CString(key), C.CString(value)
	defer C.free(unsafe.Pointer(k))
	defer C.free(unsafe.Pointer(v))
	C.CPLSetConfigOption(k, v)
}
