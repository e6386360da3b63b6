package exportfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/gdal"
)

// ShapefileSplitBytes is the size a Shapefile's .shp or .dbf may reach
// before the layer continues in a new part (name_2.shp, name_3.shp, ...):
// the format's 2 GB limit. Tests lower it.
var ShapefileSplitBytes int64 = 1<<31 - 1

// FlatGeobufPartFeatures is the most features one FlatGeobuf file takes
// before the layer continues in a new part (name_2.fgb, ...). GDAL's
// writer holds its spatial index in memory until the file closes (about
// 200 bytes a feature), so parts keep memory bounded whatever the layer
// size. Tests lower it.
var FlatGeobufPartFeatures int64 = 300_000

// gpkgCachePragma gives a GeoPackage's SQLite 32 MB of page cache (the
// default is 2 MB): building the R-tree index of a million features
// takes about half the time.
const gpkgCachePragma = "PRAGMA cache_size = -32768"

// XLSXMaxRows is the most rows a spreadsheet holds (Excel's limit, less
// the header). GDAL's XLSX writer keeps a sheet in memory until it
// closes, so the limit also bounds memory.
const XLSXMaxRows = 1_048_575

// Batching: rows are encoded in batches of up to batchBytes or batchRows
// (a few milliseconds of GDAL work, so cancellation is quick), and
// committed every txRows features where the driver has transactions.
const (
	batchBytes = 1 << 20
	batchRows  = 4096
	txRows     = 100_000
	batches    = 3 // buffers in flight between reader and writer
)

// progressEvery is how often Options.Progress is told.
var progressEvery = 250 * time.Millisecond

// WriteVector writes item into dir in format f: one dataset named after
// the item (a folder for a File Geodatabase, several parts for a large
// Shapefile), with its metadata XML and licence text beside it. Rows are
// read in one goroutine and written by GDAL in this one, a batch at a
// time; memory stays bounded whatever the item's size. Rows are clipped
// to o.Clip and reprojected to o.CRS (or the format's fixed CRS); tables
// are neither. A cancelled ctx stops it within a batch and returns
// ctx.Err(); the caller removes dir.
func WriteVector(ctx context.Context, dir string, item VectorItem, f Format, o Options) (Result, error) {
	if f.out.ext == "" {
		return Result{}, fmt.Errorf("exportfile: %s is not a vector or table format", f.Display)
	}
	kind := KindVector
	if item.GeometryType == "" {
		kind = KindTable
	}
	if reason, ok := f.Accepts(kind, item.GeometryType); !ok {
		return Result{}, errors.New(reason)
	}
	if f.Driver == "XLSX" && item.Count > XLSXMaxRows {
		return Result{}, fmt.Errorf("a spreadsheet holds at most %d rows; %s has %d", XLSXMaxRows, item.Name, item.Count)
	}
	epsg, err := epsgCode(o.CRS)
	if err != nil {
		return Result{}, err
	}
	clip := o.Clip
	if kind == KindTable {
		clip, epsg = nil, 4326
	}
	if f.out.fixedCRS != "" {
		epsg = 4326
	}
	geo, err := gdal.NewClip(clip, epsg)
	if err != nil {
		return Result{}, fmt.Errorf("exportfile: %w", err)
	}
	defer geo.Close()
	before, err := listFiles(dir)
	if err != nil {
		return Result{}, err
	}
	n, err := writeRows(ctx, dir, item, f, o, geo, len(clip) > 0)
	if err != nil {
		return Result{}, err
	}
	if f.out.zipAs != "" {
		if err := zipKML(ctx, filepath.Join(dir, item.Name+f.out.ext), filepath.Join(dir, item.Name+f.out.zipAs)); err != nil {
			return Result{}, err
		}
	}
	if err := sideFiles(dir, item.Name, item.MetadataXML, item.LicenseText); err != nil {
		return Result{}, err
	}
	after, err := listFiles(dir)
	if err != nil {
		return Result{}, err
	}
	res := Result{Features: n}
	for p := range after {
		if !before[p] {
			res.Files = append(res.Files, p)
		}
	}
	slices.Sort(res.Files)
	return res, nil
}

// epsgCode reads "EPSG:<code>" ("" is EPSG:4326).
func epsgCode(crs string) (int, error) {
	if crs == "" {
		return 4326, nil
	}
	code, ok := strings.CutPrefix(strings.ToUpper(strings.TrimSpace(crs)), "EPSG:")
	n, err := strconv.Atoi(code)
	if !ok || err != nil || n <= 0 {
		return 0, fmt.Errorf("exportfile: CRS %q is not EPSG:<code>", crs)
	}
	return n, nil
}

// spec is the layer of part k (1 = the first) of item in format f.
func spec(dir string, item VectorItem, f Format, clipped bool, part int) layerSpec {
	base := item.Name
	if part > 1 {
		base += "_" + strconv.Itoa(part)
	}
	layer := base
	if f.out.layerName != nil {
		layer = f.out.layerName(item.GeometryType)
	}
	if m := f.out.maxLayerName; m > 0 && len(layer) > m {
		layer = layer[:m]
	}
	s := layerSpec{
		driver: f.Driver, path: filepath.Join(dir, base+f.out.ext), layer: layer,
		dsco: f.out.dsco, lco: f.out.lco,
		gtype:        layerGeomType(item.GeometryType, clipped, item.HasZ),
		fields:       item.Fields,
		kinds:        kindsFor(item.Fields, f.out),
		noAttributes: f.out.noAttributes,
	}
	if f.out.splitShapefile {
		s.splitAt = ShapefileSplitBytes
	}
	if f.Driver == "FlatGeobuf" {
		s.partFeatures = FlatGeobufPartFeatures
	}
	if f.out.indexAtEnd {
		s.pragma = gpkgCachePragma
	}
	return s
}

// filled is a batch of encoded rows and how many rows the reader had
// seen when it was sent (for progress).
type filled struct {
	buf  []byte
	seen int64
}

// writeRows streams item's rows into the dataset and returns the number
// of features written.
func writeRows(ctx context.Context, dir string, item VectorItem, f Format, o Options, geo *gdal.Clip, clipped bool) (int64, error) {
	part := 1
	s := spec(dir, item, f, clipped, part)
	for _, p := range []string{s.path, filepath.Join(dir, item.Name+f.Extension())} {
		if _, err := os.Stat(p); err == nil {
			return 0, fmt.Errorf("exportfile: %s already exists in the export", filepath.Base(p))
		}
	}
	w, err := openWriter(s, geo)
	if err != nil {
		return 0, fmt.Errorf("exportfile: %s: %w", f.Display, err)
	}
	w.Begin()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	free := make(chan []byte, batches)
	for range batches {
		free <- make([]byte, 0, batchBytes+batchBytes/4)
	}
	full := make(chan filled, batches-1)
	var readErr error
	go func() {
		defer close(full)
		readErr = readRows(rctx, item, s.kinds, geo.Envelope(), clipped, free, full)
	}()
	// closing is the previous part, finishing in the background while
	// this one fills (GDAL's FlatGeobuf close sorts and rewrites the whole
	// part): nil or a channel that yields its close error.
	var closing chan error
	closed := func() error {
		if closing == nil {
			return nil
		}
		err := <-closing
		closing = nil
		return err
	}
	abort := func(err error) (int64, error) {
		cancel()
		for range full {
		}
		_ = closed()
		abandonTemp(spec(dir, item, f, clipped, part).path)
		if w != nil {
			_ = closeWriter(w, true)
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, err
	}
	var written, sinceCommit, inPart int64
	lastProgress := time.Now()
	for b := range full {
		if ctx.Err() != nil {
			return abort(ctx.Err())
		}
		off := 0
		for {
			n, err := w.Write(geo, b.buf, &off)
			written += n
			sinceCommit += n
			inPart += n
			if errors.Is(err, gdal.ErrPartFull) {
				if err := closed(); err != nil {
					return abort(err)
				}
				closing = make(chan error, 1)
				go func(w *gdal.VectorWriter, done chan<- error) { done <- closeWriter(w, false) }(w, closing)
				part++
				inPart = 0
				if w, err = openWriter(spec(dir, item, f, clipped, part), geo); err != nil {
					return abort(fmt.Errorf("exportfile: %s part %d: %w", f.Display, part, err))
				}
				w.Begin()
				sinceCommit = 0
				continue
			}
			if err != nil {
				return abort(fmt.Errorf("exportfile: %s: %w", f.Display, err))
			}
			break
		}
		// A part fills while the one before it closes; once it is half
		// full it waits for that close, so at most one and a half parts'
		// indexes are in memory however slow the close.
		if closing != nil && FlatGeobufPartFeatures > 0 && inPart >= FlatGeobufPartFeatures/2 {
			if err := closed(); err != nil {
				return abort(err)
			}
		}
		if sinceCommit >= txRows {
			if err := w.Commit(); err != nil {
				return abort(fmt.Errorf("exportfile: %s: %w", f.Display, err))
			}
			w.Begin()
			sinceCommit = 0
		}
		if o.Progress != nil && item.Count > 0 && time.Since(lastProgress) >= progressEvery {
			lastProgress = time.Now()
			o.Progress(min(float64(b.seen)/float64(item.Count), 1))
		}
		free <- b.buf[:0]
	}
	if readErr != nil {
		return abort(readErr)
	}
	if ctx.Err() != nil {
		return abort(ctx.Err())
	}
	if f.out.indexAtEnd {
		if err := w.SpatialIndex(); err != nil {
			return abort(fmt.Errorf("exportfile: %s: %w", f.Display, err))
		}
	}
	err = closeWriter(w, false)
	if cerr := closed(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("exportfile: %s: %w", f.Display, err)
	}
	if o.Progress != nil {
		o.Progress(1)
	}
	return written, nil
}

// readRows encodes item's rows into batches from free and sends them on
// full. Rows whose box misses the clip's envelope are left out here, the
// rest are clipped by the writer.
func readRows(ctx context.Context, item VectorItem, kinds []fieldKind, env [4]float64, clipped bool, free <-chan []byte, full chan<- filled) error {
	enc := newEncoder(item.Fields, kinds)
	var (
		buf  []byte
		rows int
		seen int64
	)
	select {
	case buf = <-free:
	case <-ctx.Done():
		return ctx.Err()
	}
	send := func() error {
		select {
		case full <- filled{buf: buf, seen: seen}:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case buf = <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
		rows = 0
		return nil
	}
	table := item.GeometryType == ""
	err := item.Rows(ctx, func(r *featurerows.RawRow) error {
		seen++
		if clipped && !table && (!r.HasBox || r.Box[0] > env[2] || r.Box[2] < env[0] || r.Box[1] > env[3] || r.Box[3] < env[1]) {
			if seen%batchRows == 0 {
				return ctx.Err()
			}
			return nil
		}
		buf = enc.appendRow(buf, r)
		rows++
		if len(buf) >= batchBytes || rows >= batchRows {
			return send()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(buf) > 0 {
		select {
		case full <- filled{buf: buf, seen: seen}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// sideFiles writes an item's metadata XML ("<name>.xml") and licence
// text ("<name>.license.txt") when it has them.
func sideFiles(dir, name string, metadata []byte, license string) error {
	if len(metadata) > 0 {
		if err := os.WriteFile(filepath.Join(dir, name+".xml"), metadata, 0o644); err != nil {
			return fmt.Errorf("exportfile: writing metadata: %w", err)
		}
	}
	if license != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".license.txt"), []byte(license), 0o644); err != nil {
			return fmt.Errorf("exportfile: writing the licence: %w", err)
		}
	}
	return nil
}

// listFiles is the set of files under dir, as slash paths relative to it.
func listFiles(dir string) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("exportfile: listing %s: %w", dir, err)
	}
	return out, nil
}
