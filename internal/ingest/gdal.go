package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

var cacheOnce sync.Once

// registerGDAL registers GDAL's drivers once, and bounds GDAL's block
// cache, shared by every read in the process, to DefaultGDALCacheMB
// unless the operator set GDAL_CACHEMAX (GDAL's own default is 5% of the
// machine's memory per process).
func registerGDAL() {
	cacheOnce.Do(func() {
		gdal.Init()
		if os.Getenv("GDAL_CACHEMAX") == "" {
			setConfig("GDAL_CACHEMAX", strconv.Itoa(DefaultGDALCacheMB))
		}
	})
}

// failuresOnly makes GDAL failures errors but lets warnings pass. godal's
// default handler turns warnings into errors too, which would reject many
// valid files (e.g. a shapefile without .prj, a CSV with odd widths).
func failuresOnly(ec godal.ErrorCategory, code int, msg string) error {
	if ec >= godal.CE_Failure {
		return errors.New(msg)
	}
	return nil
}

// noNetwork is passed to every open. GDAL has no way to the network at
// all (gdal.Init closes it for the whole process); this only keeps it
// from listing the file's folder on open, which it needs no more than the
// siblings it is given.
var noNetwork = []string{
	"GDAL_DISABLE_READDIR_ON_OPEN=EMPTY_DIR",
}

// errNotLocal refuses a path that is not a local file's.
var errNotLocal = errors.New("ingest: refusing non-local path")

// openLocal opens a local file with an explicit driver list. siblings are
// base names of files GDAL may probe next to it; everything else in the
// directory is invisible to it.
func openLocal(abs string, vector bool, drivers []string, siblings []string, openOpts []string) (*godal.Dataset, error) {
	registerGDAL()
	if strings.HasPrefix(abs, "/vsi") || !filepath.IsAbs(abs) {
		return nil, fmt.Errorf("%w %s", errNotLocal, abs)
	}
	if slices.Contains(drivers, "GML") {
		if err := checkGMLSchema(abs, siblings); err != nil {
			return nil, err
		}
	}
	opts := []godal.OpenOption{
		godal.Drivers(drivers...),
		godal.ErrLogger(failuresOnly),
		godal.ConfigOption(noNetwork...),
	}
	if vector {
		opts = append(opts, godal.VectorOnly())
	} else {
		opts = append(opts, godal.RasterOnly())
	}
	if len(siblings) > 0 {
		opts = append(opts, godal.SiblingFiles(siblings...))
	}
	if len(openOpts) > 0 {
		opts = append(opts, godal.DriverOpenOption(openOpts...))
	}
	return godal.Open(abs, opts...)
}

// relMsg removes the scan root from GDAL messages so problems show paths
// relative to the upload, not server paths, on one line.
func relMsg(root, msg string) string {
	msg = strings.ReplaceAll(msg, root+string(filepath.Separator), "")
	return strings.Join(strings.Fields(msg), " ")
}
