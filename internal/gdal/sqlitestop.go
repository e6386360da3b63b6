package gdal

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <gdal.h>

typedef void (*sqliteProgressFn)(void *, int, int (*)(void *), void *);

// sqliteStopAsked is SQLite's progress handler: a non-zero answer makes
// the running statement, and every later one, fail with SQLITE_INTERRUPT.
static int sqliteStopAsked(void *flag) { return __atomic_load_n((int *)flag, __ATOMIC_SEQ_CST); }

// sqliteProgress is sqlite3_progress_handler of the SQLite library GDAL
// links, looked up at run time: Geopub itself links no SQLite.
static sqliteProgressFn sqliteProgress(void) {
	static sqliteProgressFn fn;
	if (fn == NULL) fn = (sqliteProgressFn)dlsym(RTLD_DEFAULT, "sqlite3_progress_handler");
	return fn;
}

// sqliteWatch installs the handler on ds's SQLite connection (GeoPackage,
// SQLite): 1 when ds has one.
static int sqliteWatch(GDALDatasetH ds, int *flag) {
	void *db = GDALGetInternalHandle(ds, "SQLITE_HANDLE");
	sqliteProgressFn fn = sqliteProgress();
	if (db == NULL || fn == NULL) return 0;
	fn(db, 1000, sqliteStopAsked, flag);
	return 1;
}

static void sqliteUnwatch(GDALDatasetH ds) {
	void *db = GDALGetInternalHandle(ds, "SQLITE_HANDLE");
	sqliteProgressFn fn = sqliteProgress();
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

// WatchSQLite makes the end of ctx stop GDAL's work on ds when ds is a
// SQLite database (a GeoPackage): GDAL's calls take no context, and one
// statement, such as a view over a recursive query that never ends, can
// run forever inside a single call; SQLite's progress handler, asked every
// thousand steps, then interrupts it and every later statement. The
// returned release must run before ds is closed.
func WatchSQLite(ctx context.Context, ds *godal.Dataset) (release func()) {
	h := datasetHandle(ds)
	flag := (*C.int)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int(0)))))
	if C.sqliteWatch(h, flag) == 0 {
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
		C.sqliteUnwatch(h)
		C.free(unsafe.Pointer(flag))
	}
}
