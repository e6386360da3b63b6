package ingest

/*
#cgo pkg-config: gdal
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include "gdal.h"

typedef void (*ingestProgressFn)(void *, int, int (*)(void *), void *);

// ingestStopAsked is SQLite's progress handler: a non-zero answer makes
// the running statement, and every later one, fail with SQLITE_INTERRUPT.
static int ingestStopAsked(void *flag) { return __atomic_load_n((int *)flag, __ATOMIC_SEQ_CST); }

// ingestProgress is sqlite3_progress_handler of the SQLite library GDAL
// links, looked up at run time: Geopub itself links no SQLite.
static ingestProgressFn ingestProgress(void) {
	static ingestProgressFn fn;
	if (fn == NULL) fn = (ingestProgressFn)dlsym(RTLD_DEFAULT, "sqlite3_progress_handler");
	return fn;
}

// ingestWatch installs the handler on ds's SQLite connection (GeoPackage,
// SQLite): 1 when ds has one.
static int ingestWatch(GDALDatasetH ds, int *flag) {
	void *db = GDALGetInternalHandle(ds, "SQLITE_HANDLE");
	ingestProgressFn fn = ingestProgress();
	if (db == NULL || fn == NULL) return 0;
	fn(db, 1000, ingestStopAsked, flag);
	return 1;
}

static void ingestUnwatch(GDALDatasetH ds) {
	void *db = GDALGetInternalHandle(ds, "SQLITE_HANDLE");
	ingestProgressFn fn = ingestProgress();
	if (db != NULL && fn != NULL) fn(db, 0, NULL, NULL);
}
*/
import "C"

import (
	"context"
	"sync/atomic"
	"unsafe"

	"github.com/airbusgeo/godal"
)

// watchSQLite makes the end of ctx stop GDAL's work on ds when ds is a
// SQLite database (a GeoPackage): GDAL's calls take no context, and one
// statement, such as a view over a recursive query that never ends, can
// run forever inside a single call; SQLite's progress handler, asked every
// thousand steps, then interrupts it and every later statement. The
// returned release must run before ds is closed.
func watchSQLite(ctx context.Context, ds *godal.Dataset) (release func()) {
	h := datasetHandle(ds)
	flag := (*C.int)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int(0)))))
	if C.ingestWatch(h, flag) == 0 {
		C.free(unsafe.Pointer(flag))
		return func() {}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
			atomic.StoreInt32((*int32)(unsafe.Pointer(flag)), 1)
		case <-done:
		}
	}()
	return func() {
		close(done)
		<-stopped
		C.ingestUnwatch(h)
		C.free(unsafe.Pointer(flag))
	}
}

// datasetHandle is ds's C handle: godal.Dataset holds exactly it (checked
// at init, like godal.Layer in ogr.go).
func datasetHandle(ds *godal.Dataset) C.GDALDatasetH {
	return *(*C.GDALDatasetH)(unsafe.Pointer(ds))
}

func init() {
	if unsafe.Sizeof(godal.Dataset{}) != unsafe.Sizeof(uintptr(0)) {
		panic("ingest: godal.Dataset layout changed; update datasetHandle")
	}
}
