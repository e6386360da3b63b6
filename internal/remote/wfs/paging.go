package wfs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/pagefile"
)

// DefaultPageSize is the features asked for per page when the server
// sets no lower limit.
const DefaultPageSize = 1000

// maxCountPages bounds the pages read to count a type whose server caps
// its hit count.
const maxCountPages = 200

// typeInfo is what paging through one type needs.
type typeInfo struct {
	t      featureType
	schema schema
	xsd    []byte
	format string // the OUTPUTFORMAT asked for, "" for the default GML
	json   bool
	code   int // EPSG code of the default CRS, 0 when none
}

func (s *server) typeInfo(ctx context.Context, t featureType) (typeInfo, error) {
	xsd, err := s.document(ctx, s.request("DescribeFeatureType", map[string]string{s.typeParam(): t.Name}))
	if err != nil {
		return typeInfo{}, fmt.Errorf("DescribeFeatureType: %w", err)
	}
	sc, err := parseSchema(xsd, t.Name)
	if err != nil {
		return typeInfo{}, err
	}
	ti := typeInfo{t: t, schema: sc, xsd: xsd, code: epsgCode(t.crs())}
	formats := s.caps.getFeatureFormats(t)
	if f := jsonFormat(formats); f != "" {
		ti.format, ti.json = f, true
	} else {
		ti.format = gmlFormat(s.version, formats)
	}
	return ti, nil
}

// schemaRefs are the parts of a schema that point at other schemas.
var schemaRefs = regexp.MustCompile(`(?s)<(?:[A-Za-z_][\w.-]*:)?(?:include|import|redefine)\b[^>]*?(?:/>|>.*?</(?:[A-Za-z_][\w.-]*:)?(?:include|import|redefine)\s*>)`)

// localSchema drops a server's schema's references to other schemas, so
// that GDAL, reading it beside a GML page, has nothing to fetch: it knows
// GML's own types by name.
func localSchema(xsd []byte) []byte {
	return schemaRefs.ReplaceAll(xsd, nil)
}

var (
	numberMatched  = regexp.MustCompile(`numberMatched\s*=\s*"(\d+)"`)
	numberFeatures = regexp.MustCompile(`numberOfFeatures\s*=\s*"(\d+)"`)
)

// count asks for the type's hit count. A server that caps hits at its
// page size (MapServer without wfs_compute_number_matched, MapServer in
// 1.1.0) is counted by paging instead when byPaging is set, up to
// maxCountPages pages; else the count is -1. exact is false when the
// count is not known or that bound stopped it.
func (s *server) count(ctx context.Context, ti typeInfo, byPaging bool) (n int64, exact bool, err error) {
	body, err := s.document(ctx, s.request("GetFeature", map[string]string{s.typeParam(): ti.t.Name, "RESULTTYPE": "hits"}))
	if err != nil {
		return 0, false, fmt.Errorf("GetFeature (hits): %w", err)
	}
	if err := owsError(body); err != nil {
		return 0, false, fmt.Errorf("GetFeature (hits): %w", err)
	}
	head := body
	if len(head) > 8192 {
		head = head[:8192]
	}
	re := numberMatched
	if s.version == v11 {
		re = numberFeatures
	}
	n = -1
	if m := re.FindSubmatch(head); m != nil {
		n, _ = strconv.ParseInt(string(m[1]), 10, 64)
	}
	if cap := s.caps.pageCap(); n >= 0 && (cap == 0 || n != int64(cap)) {
		return n, true, nil
	}
	if !byPaging {
		return -1, false, nil
	}
	dir, err := os.MkdirTemp("", "geopub-wfs-count-*")
	if err != nil {
		return 0, false, err
	}
	defer os.RemoveAll(dir)
	n, pages, err := s.pages(ctx, ti, dir, nil, -1, maxCountPages, nil)
	return n, pages < maxCountPages, err
}

// sniff reads one feature to learn the geometry type of a type whose
// schema declares only "a geometry".
func (s *server) sniff(ctx context.Context, ti typeInfo) (string, error) {
	dir, err := os.MkdirTemp("", "geopub-wfs-sniff-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	w, err := pagefile.Create(filepath.Join(dir, "sniff.geojson"), "sniff", "")
	if err != nil {
		return "", err
	}
	defer w.Close()
	if _, _, err := s.pages(ctx, ti, dir, w, -1, 1, nil); err != nil {
		return "", err
	}
	return w.GeometryType(), nil
}

// pages reads the type's features page by page into w (nil: only
// count), stopping at an empty page, at total when known (>= 0), or
// after maxPages (0: no bound); it returns the features and the pages
// read.
func (s *server) pages(ctx context.Context, ti typeInfo, dir string, w *pagefile.Writer, total int64, maxPages int, progress func(float64)) (read int64, pages int, err error) {
	size := DefaultPageSize
	if cap := s.caps.pageCap(); cap > 0 && cap < size {
		size = cap
	}
	if maxPages == 1 {
		size = 1
	}
	page := pagefile.Page{Path: filepath.Join(dir, "page.json"), Driver: "GeoJSON", Fields: fieldNames(ti.schema)}
	if !ti.json {
		page.Path, page.Driver = filepath.Join(dir, "page.gml"), "GML"
		page.Siblings = []string{"page.xsd"}
		swap := "NO"
		if ti.code > 0 && gdal.NorthingFirst(ti.code) {
			swap = "YES"
		}
		page.Options = []string{"SWAP_COORDINATES=" + swap}
		if err := os.WriteFile(filepath.Join(dir, "page.xsd"), localSchema(ti.xsd), 0o600); err != nil {
			return 0, 0, err
		}
	}
	var last [32]byte
	for ; maxPages == 0 || pages < maxPages; pages++ {
		params := map[string]string{s.typeParam(): ti.t.Name, s.countParam(): strconv.Itoa(size), "STARTINDEX": strconv.FormatInt(read, 10)}
		if ti.format != "" {
			params["OUTPUTFORMAT"] = ti.format
		}
		if _, err := pagefile.GetFile(ctx, s.hc, s.request("GetFeature", params), pagefile.MaxPage, page.Path); err != nil {
			return read, pages, fmt.Errorf("GetFeature (features %d and on): %w", read, err)
		}
		sum, err := pageCheck(page.Path)
		if err != nil {
			return read, pages, fmt.Errorf("GetFeature (features %d and on): %w", read, err)
		}
		got, err := w.Append(ctx, page)
		if err != nil {
			return read, pages, fmt.Errorf("GetFeature (features %d and on): %w", read, err)
		}
		if got == 0 {
			break
		}
		if pages > 0 && sum == last {
			return read, pages, fmt.Errorf("the server sent the same page twice: it does not page with startIndex")
		}
		last = sum
		read += int64(got)
		if progress != nil && total > 0 {
			progress(min(1, float64(read)/float64(total)))
		}
		if total >= 0 && read >= total {
			pages++
			break
		}
	}
	return read, pages, nil
}

// pageCheck fails for an exception report and digests the page.
func pageCheck(path string) ([32]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return [32]byte{}, err
	}
	defer f.Close()
	head := make([]byte, 4096)
	k, _ := io.ReadFull(f, head)
	if err := owsError(head[:k]); err != nil {
		body, _ := os.ReadFile(path)
		if oerr := owsError(body); oerr != nil {
			err = oerr
		}
		return [32]byte{}, err
	}
	if !bytes.ContainsAny(head[:k], "{<") {
		return [32]byte{}, fmt.Errorf("the server's answer is neither GeoJSON nor GML")
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return [32]byte{}, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return [32]byte{}, err
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

func fieldNames(sc schema) []string {
	out := make([]string, 0, len(sc.Fields))
	for _, f := range sc.Fields {
		out = append(out, f.Name)
	}
	return out
}

// Fetch copies a feature type's features into a GeoJSON file under dir.
func (Kind) Fetch(ctx context.Context, c remote.Conn, path, dir string, progress func(float64)) (string, string, error) {
	s, err := connect(ctx, c)
	if err != nil {
		return "", "", err
	}
	t, ok := s.featureType(path)
	if !ok {
		return "", "", fmt.Errorf("the server no longer offers the feature type %s", clip(path, 200))
	}
	ti, err := s.typeInfo(ctx, t)
	if err != nil {
		return "", "", err
	}
	total, _, err := s.count(ctx, ti, false)
	if err != nil {
		return "", "", err
	}
	work, err := os.MkdirTemp(dir, ".wfs-pages-*")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(work)
	layer := safeName(local(path))
	file := layer + ".geojson"
	w, err := pagefile.Create(filepath.Join(dir, file), layer, crsName(t.crs()))
	if err != nil {
		return "", "", err
	}
	_, _, err = s.pages(ctx, ti, work, w, total, 0, func(f float64) { progress(f * 0.99) })
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", err
	}
	progress(1)
	return file, layer, nil
}

// safeName makes a file and layer name of a type name.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
	if s == "" || len(s) > 100 {
		return "features"
	}
	return s
}
