package pagefile

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/airbusgeo/godal"

	"github.com/geopub/geopub/internal/gdal"
)

// noNetwork is passed to every open of a page. GDAL cannot fetch what a
// page refers to (schemas, linked geometries): gdal.Init closes its
// ways to the network for the whole process; GML_DOWNLOAD_WFS_SCHEMA=NO
// also keeps it from trying.
var noNetwork = []string{
	"GML_DOWNLOAD_WFS_SCHEMA=NO",
	"GDAL_DISABLE_READDIR_ON_OPEN=EMPTY_DIR",
}

func failuresOnly(ec godal.ErrorCategory, _ int, msg string) error {
	if ec >= godal.CE_Failure {
		return errors.New(msg)
	}
	return nil
}

// Writer gathers features into one GeoJSON file. Coordinates are written
// in the order GDAL reads them (x then y, longitude then latitude); a
// CRS other than EPSG:4326 is named in the file's "crs" member, which GDAL
// reads.
type Writer struct {
	f     *os.File
	w     *bufio.Writer
	first bool
	// Count is the number of features written.
	Count int64
	seen  map[string]bool
}

// Create starts the file at path, a collection named layer in crs
// ("EPSG:n" or "").
func Create(path, layer, crs string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, w: bufio.NewWriterSize(f, 1<<20), first: true, seen: map[string]bool{}}
	name, _ := json.Marshal(layer)
	fmt.Fprintf(w.w, `{"type":"FeatureCollection","name":%s,`, name)
	if crs != "" && crs != "EPSG:4326" {
		if code, ok := strings.CutPrefix(crs, "EPSG:"); ok {
			fmt.Fprintf(w.w, `"crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::%s"}},`, code)
		}
	}
	w.w.WriteString(`"features":[` + "\n")
	return w, nil
}

// Close ends the collection.
func (w *Writer) Close() error {
	w.w.WriteString("\n]}\n")
	err := w.w.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Page says how to read one page file.
type Page struct {
	// Path is the page file; Driver the GDAL driver that reads it.
	Path, Driver string
	// Siblings are other files next to it GDAL may read (a GML page's
	// .xsd).
	Siblings []string
	// Options are the driver's open options.
	Options []string
	// Fields orders the properties; others follow by name.
	Fields []string
	// EpochMillis names fields that hold times as milliseconds since
	// 1970 (Esri JSON dates): they are written as RFC 3339 date-times.
	EpochMillis map[string]bool
}

// Append copies the features of a page into w (when w is not nil) and
// returns how many it held.
func (w *Writer) Append(ctx context.Context, p Page) (int, error) {
	gdal.Init()
	abs, err := filepath.Abs(p.Path)
	if err != nil {
		return 0, err
	}
	opts := []godal.OpenOption{godal.VectorOnly(), godal.Drivers(p.Driver), godal.ErrLogger(failuresOnly),
		godal.ConfigOption(noNetwork...), godal.SiblingFiles(p.Siblings...)}
	if len(p.Options) > 0 {
		opts = append(opts, godal.DriverOpenOption(p.Options...))
	}
	ds, err := godal.Open(abs, opts...)
	if err != nil {
		return 0, fmt.Errorf("the server sent a page GDAL cannot read: %s", oneLine(err.Error(), abs))
	}
	defer ds.Close()
	n := 0
	for _, l := range ds.Layers() {
		l.ResetReading()
		for {
			if n%256 == 0 && ctx.Err() != nil {
				return n, ctx.Err()
			}
			f := l.NextFeature()
			if f == nil {
				break
			}
			n++
			if w != nil {
				err = w.feature(f, p)
			}
			f.Close()
			if err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

func oneLine(msg, abs string) string {
	msg = strings.ReplaceAll(msg, abs, "page")
	return strings.Join(strings.Fields(msg), " ")
}

func (w *Writer) feature(f *godal.Feature, p Page) error {
	order := p.Fields
	if !w.first {
		w.w.WriteString(",\n")
	}
	w.first = false
	w.Count++
	w.w.WriteString(`{"type":"Feature","properties":{`)
	fields := f.Fields()
	names := make([]string, 0, len(fields))
	seen := map[string]bool{}
	for _, n := range order {
		if _, ok := fields[n]; ok && !seen[n] {
			names, seen[n] = append(names, n), true
		}
	}
	var rest []string
	for n := range fields {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	names = append(names, rest...)
	for i, n := range names {
		if i > 0 {
			w.w.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		w.w.Write(k)
		w.w.WriteByte(':')
		if !gdal.FeatureHasValue(f, n) {
			w.w.WriteString("null")
			continue
		}
		w.w.WriteString(value(fields[n], p.EpochMillis[n]))
	}
	w.w.WriteString(`},"geometry":`)
	gj, typ, ok, err := gdal.FeatureGeoJSON(f)
	if err != nil {
		return fmt.Errorf("a feature's geometry cannot be written: %w", err)
	}
	if !ok {
		w.w.WriteString("null}")
		return nil
	}
	w.seen[geometryName(typ)] = true
	w.w.WriteString(gj)
	w.w.WriteByte('}')
	return nil
}

// value is a field's value as JSON; reals keep a decimal point so GDAL
// reads the column back as real.
func value(fl godal.Field, epochMillis bool) string {
	if !fl.IsSet() {
		return "null"
	}
	if epochMillis {
		// GDAL reads Esri dates as numbers, or as strings when the field
		// has a length.
		ms, err := strconv.ParseFloat(strings.TrimSpace(fl.String()), 64)
		if fl.Type() == godal.FTInt || fl.Type() == godal.FTInt64 || fl.Type() == godal.FTReal {
			ms, err = fl.Float(), nil
		}
		if err == nil && !math.IsNaN(ms) && math.Abs(ms) < 1e15 {
			return `"` + time.UnixMilli(int64(ms)).UTC().Format(time.RFC3339Nano) + `"`
		}
	}
	switch fl.Type() {
	case godal.FTInt, godal.FTInt64:
		return strconv.FormatInt(fl.Int(), 10)
	case godal.FTReal:
		v := fl.Float()
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "null"
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	case godal.FTDate:
		if t := fl.DateTime(); t != nil {
			return `"` + t.Format("2006-01-02") + `"`
		}
		return "null"
	case godal.FTDateTime:
		if t := fl.DateTime(); t != nil {
			return `"` + t.Format(time.RFC3339Nano) + `"`
		}
		return "null"
	}
	b, _ := json.Marshal(strings.ToValidUTF8(fl.String(), "\uFFFD"))
	return string(b)
}

// geometryName is Geopub's name of an OGR flat geometry type.
func geometryName(t int) string {
	switch t {
	case 1:
		return "point"
	case 4:
		return "multipoint"
	case 2, 8, 9: // line string, circular string, compound curve
		return "linestring"
	case 5, 11: // multi line string, multi curve
		return "multilinestring"
	case 3, 10, 17: // polygon, curve polygon, triangle
		return "polygon"
	case 6, 12, 15, 16: // multi polygon, multi surface, polyhedral surface, TIN
		return "multipolygon"
	}
	return "geometrycollection"
}

// GeometryType names the geometry type of the features written: the one
// type seen, the multi type when a type and its multi type were both
// seen, "geometrycollection" for a mix, "" when none had a geometry.
func (w *Writer) GeometryType() string {
	switch len(w.seen) {
	case 0:
		return ""
	case 1:
		for n := range w.seen {
			return n
		}
	case 2:
		for _, fam := range []string{"point", "linestring", "polygon"} {
			if w.seen[fam] && w.seen["multi"+fam] {
				return "multi" + fam
			}
		}
	}
	return "geometrycollection"
}
