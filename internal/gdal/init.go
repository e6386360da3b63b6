package gdal

/*
#cgo pkg-config: gdal
#include <errno.h>
#include <stdlib.h>
#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_http.h>
#include <cpl_vsi.h>

// geopubNoHTTP answers every CPLHTTPFetch (GML schema downloads, WFS, WMS,
// GeoJSON or HTTP driver URLs, OAuth, ...) without sending anything. It
// warns rather than fails: a GML file whose schema cannot be downloaded
// is still read, its fields taken from its features.
static CPLHTTPResult *geopubNoHTTP(const char *url, CSLConstList opts, GDALProgressFunc p, void *pa,
                                   CPLHTTPFetchWriteFunc w, void *wa, void *ud) {
	(void)opts; (void)p; (void)pa; (void)w; (void)wa; (void)ud;
	CPLHTTPResult *r = (CPLHTTPResult *)CPLCalloc(1, sizeof(CPLHTTPResult));
	r->nStatus = 1;
	r->pszErrBuf = CPLStrdup("Geopub does not let GDAL reach the network");
	CPLError(CE_Warning, CPLE_HttpResponse, "Geopub does not let GDAL reach the network: %s not fetched", url);
	return r;
}

// geopubNoStat and geopubNoOpen are the whole of the file system that
// replaces each of GDAL's network file systems: nothing exists there and
// nothing opens. pUserData is the prefix, for the message.
static int geopubNoStat(void *u, const char *f, VSIStatBufL *b, int flags) {
	(void)u; (void)f; (void)b; (void)flags;
	errno = EACCES;
	return -1;
}

static void *geopubNoOpen(void *u, const char *f, const char *access) {
	(void)access;
	CPLError(CE_Failure, CPLE_NoWriteAccess, "Geopub does not let GDAL reach the network: %s%s not read", (const char *)u, f);
	return NULL;
}

static int geopubCloseFS(const char *prefix) {
	VSIFilesystemPluginCallbacksStruct *cb = VSIAllocFilesystemPluginCallbacksStruct();
	cb->pUserData = (void *)prefix;
	cb->stat = geopubNoStat;
	cb->open = geopubNoOpen;
	int rc = VSIInstallPluginHandler(prefix, cb);
	VSIFreeFilesystemPluginCallbacksStruct(cb);
	return rc;
}

static void geopubRefuseHTTP(void) { CPLHTTPSetFetchCallback(geopubNoHTTP, NULL); }

static void geopubDropDriver(const char *name) {
	GDALDriverH d = GDALGetDriverByName(name);
	if (d != NULL) {
		GDALDeregisterDriver(d);
	}
}
*/
import "C"

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
	"unsafe"
)

// NetworkFileSystems are GDAL's file systems that read over the network
// (curl, cloud stores, HDFS): Init replaces each with one where nothing
// exists, so a path in a file (a VRT source, an xsd:include, a sidecar)
// cannot make GDAL fetch anything, whatever the scheme after the prefix
// (http, ftp, file, ...).
var NetworkFileSystems = []string{
	"/vsicurl/", "/vsicurl_streaming/",
	"/vsis3/", "/vsis3_streaming/", "/vsigs/", "/vsigs_streaming/",
	"/vsiaz/", "/vsiaz_streaming/", "/vsiadls/", "/vsioss/", "/vsioss_streaming/",
	"/vsiswift/", "/vsiswift_streaming/", "/vsiwebhdfs/", "/vsihdfs/",
}

// NetworkDrivers are GDAL drivers whose datasets live on servers
// (databases, web services): Init removes them, so no file or connection
// string given to GDAL can open a socket through a library of their own
// (libpq, MySQL, ODBC) or a request of their own.
var NetworkDrivers = []string{
	"PostgreSQL", "PostGISRaster", "MySQL", "ODBC", "PGeo", "MSSQLSpatial", "OCI", "MongoDBv3",
	"Elasticsearch", "CouchDB", "Carto", "AmigoCloud", "NGW", "PLSCENES", "PLMOSAIC", "EEDA", "EEDAI",
	"DAAS", "HTTP", "WFS", "OAPIF", "OGCAPI", "CSW", "WMS", "WMTS", "WCS", "GNMDatabase", "TileDB",
}

var (
	initOnce sync.Once
	// RefusingProxy is the address of the loopback proxy every curl
	// request of GDAL's is sent to; it refuses them all.
	RefusingProxy string
)

// Init registers GDAL's drivers and closes every way GDAL has to the
// network, once per process; every package that uses GDAL calls it before
// its first GDAL call, and nothing else registers drivers. Geopub reads
// remote sources with its own clients, through the address guard of
// package fetch; GDAL only ever reads local files, so it is refused the
// network altogether rather than guarded:
//
//   - CPLHTTPFetch, which GML schema downloads (GML_DOWNLOAD_WFS_SCHEMA),
//     xsd:include URLs, xlink resolution and the web-service drivers use,
//     answers at once with an error and sends nothing;
//   - the network file systems (NetworkFileSystems) are replaced by empty
//     ones;
//   - the drivers of servers (NetworkDrivers) are removed;
//   - anything curl might still be asked for goes through GDAL_HTTP_PROXY
//     and GDAL_HTTPS_PROXY to a loopback listener that refuses every
//     request, with NO_PROXY cleared so no host bypasses it;
//   - GML_DOWNLOAD_WFS_SCHEMA=NO and GML_SKIP_RESOLVE_ELEMS=ALL.
//
// Process-wide options set here win over the environment's.
func Init() {
	initOnce.Do(func() {
		C.GDALAllRegister()
		for _, d := range NetworkDrivers {
			cs := C.CString(d)
			C.geopubDropDriver(cs)
			C.free(unsafe.Pointer(cs))
		}
		for _, p := range NetworkFileSystems {
			// The prefix stays allocated: GDAL keeps it as the handler's
			// user data for the life of the process.
			if C.geopubCloseFS(C.CString(p)) != 0 {
				panic("gdal: cannot close GDAL's network file system " + p)
			}
		}
		C.geopubRefuseHTTP()
		RefusingProxy = refusingProxy()
		for _, kv := range [][2]string{
			{"GDAL_HTTP_PROXY", RefusingProxy}, {"GDAL_HTTPS_PROXY", RefusingProxy},
			{"GDAL_HTTP_PROXYUSERPWD", ""}, {"GDAL_HTTP_MAX_RETRY", "0"},
			{"CPL_VSIL_CURL_ALLOWED_FILENAME", "/geopub/gdal-reads-no-network"},
			{"GML_DOWNLOAD_WFS_SCHEMA", "NO"}, {"GML_SKIP_RESOLVE_ELEMS", "ALL"},
			{"PROJ_NETWORK", "OFF"},
		} {
			SetConfig(kv[0], kv[1])
		}
		// curl reads these itself, past GDAL's options.
		for _, k := range []string{"NO_PROXY", "no_proxy"} {
			os.Unsetenv(k)
		}
	})
}

// refusingProxy starts a loopback HTTP listener that answers every
// request, CONNECT included, 403, and returns its address.
func refusingProxy() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("gdal: cannot listen for GDAL's refusing proxy: %v", err))
	}
	srv := &http.Server{
		ReadHeaderTimeout: 5 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			http.Error(w, "Geopub does not let GDAL reach the network", http.StatusForbidden)
		}),
	}
	go srv.Serve(ln) //nolint:errcheck // lives as long as the process
	return "http://" + ln.Addr().String()
}
