package arcgis

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/pagefile"
)

// Page sizes: the layer's maxRecordCount, within these bounds; object-id
// batches are at most maxBatch ids (they travel in the URL).
const (
	defaultPageSize = 1000
	maxPageSize     = 5000
	maxBatch        = 250
)

// copier pages one layer into a writer.
type copier struct {
	s        *server
	r        layerRef
	li       *layerInfo
	w        *pagefile.Writer
	page     pagefile.Page
	outSR    string
	total    int64
	progress func(float64)
	read     int64
}

// Fetch copies a layer's or table's features into a GeoJSON file under
// dir.
func (Kind) Fetch(ctx context.Context, c remote.Conn, p, dir string, progress func(float64)) (string, string, error) {
	r, err := parseRef(p)
	if err != nil {
		return "", "", err
	}
	s, err := connect(ctx, c)
	if err != nil {
		return "", "", err
	}
	li, err := s.layer(ctx, r)
	if err != nil {
		return "", "", err
	}
	if !li.queryable() {
		return "", "", fmt.Errorf("%s is not a feature layer or table that allows queries", clip(p, 200))
	}
	total, err := s.count(ctx, r)
	if err != nil {
		return "", "", err
	}
	work, err := os.MkdirTemp(dir, ".arcgis-pages-*")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(work)
	cp := &copier{s: s, r: r, li: li, total: total, progress: progress,
		page: pagefile.Page{Path: filepath.Join(work, "page.json"), Driver: "ESRIJSON"}}
	cp.page.EpochMillis = map[string]bool{}
	for _, f := range li.Fields {
		cp.page.Fields = append(cp.page.Fields, f.Name)
		if f.Type == "esriFieldTypeDate" {
			cp.page.EpochMillis[f.Name] = true
		}
	}
	crs := li.crs()
	if li.GeometryType != "" && !strings.HasPrefix(crs, "EPSG:") {
		cp.outSR, crs = "4326", "EPSG:4326" // a CRS the GeoJSON file can name
	}
	layer := "layer_" + strconv.Itoa(r.id)
	if n := safeName(li.Name); n != "" {
		layer = n
	}
	file := layer + ".geojson"
	if cp.w, err = pagefile.Create(filepath.Join(dir, file), layer, crs); err != nil {
		return "", "", err
	}
	if li.Advanced != nil && li.Advanced.Pagination {
		err = cp.byOffset(ctx)
	} else {
		err = cp.byObjectIDs(ctx)
	}
	if cerr := cp.w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", err
	}
	progress(1)
	return file, layer, nil
}

func (cp *copier) pageSize() int {
	n := cp.li.MaxRecords
	if n <= 0 {
		n = defaultPageSize
	}
	return min(n, maxPageSize)
}

func (cp *copier) query(extra url.Values) url.Values {
	q := url.Values{"outFields": {"*"}, "returnGeometry": {"true"}}
	if cp.outSR != "" {
		q.Set("outSR", cp.outSR)
	}
	for k, v := range extra {
		q[k] = v
	}
	return q
}

// fetchPage asks for one page and appends it, returning its features and
// whether the server says more remain.
func (cp *copier) fetchPage(ctx context.Context, q url.Values) (int, bool, [32]byte, error) {
	what := fmt.Sprintf("query (features %d and on)", cp.read)
	if _, err := pagefile.GetFile(ctx, cp.s.hc, cp.s.at(cp.r.path()+"/query", q), pagefile.MaxPage, cp.page.Path); err != nil {
		return 0, false, [32]byte{}, fmt.Errorf("%s: %w", what, err)
	}
	more, sum, err := pageCheck(cp.page.Path)
	if err != nil {
		return 0, false, sum, fmt.Errorf("%s: %w", what, err)
	}
	n, err := cp.w.Append(ctx, cp.page)
	if err != nil {
		return 0, false, sum, fmt.Errorf("%s: %w", what, err)
	}
	cp.read += int64(n)
	if cp.total > 0 {
		cp.progress(min(0.99, float64(cp.read)/float64(cp.total)))
	}
	return n, more, sum, nil
}

// byOffset pages with resultOffset and resultRecordCount, until an empty
// page, or a short one when the server says no more remain and the count
// is reached.
func (cp *copier) byOffset(ctx context.Context) error {
	size := cp.pageSize()
	var last [32]byte
	for pages := 0; ; pages++ {
		q := cp.query(url.Values{"where": {"1=1"}, "resultOffset": {strconv.FormatInt(cp.read, 10)}, "resultRecordCount": {strconv.Itoa(size)}})
		if cp.li.ObjectID != "" {
			q.Set("orderByFields", cp.li.ObjectID)
		}
		n, more, sum, err := cp.fetchPage(ctx, q)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if pages > 0 && sum == last {
			return errors.New("the server sent the same page twice: it does not page with resultOffset")
		}
		last = sum
		if !more && cp.read >= cp.total {
			return nil
		}
	}
}

// byObjectIDs lists the object ids, then asks for them in batches.
func (cp *copier) byObjectIDs(ctx context.Context) error {
	var ids struct {
		IDs []int64 `json:"objectIds"`
	}
	if err := cp.s.getJSON(ctx, cp.s.at(cp.r.path()+"/query", url.Values{"where": {"1=1"}, "returnIdsOnly": {"true"}}), &ids); err != nil {
		return fmt.Errorf("object ids: %w", err)
	}
	slices.Sort(ids.IDs)
	ids.IDs = slices.Compact(ids.IDs)
	cp.total = int64(len(ids.IDs))
	batch := min(cp.pageSize(), maxBatch)
	for i := 0; i < len(ids.IDs); i += batch {
		part := ids.IDs[i:min(i+batch, len(ids.IDs))]
		list := make([]string, len(part))
		for j, id := range part {
			list[j] = strconv.FormatInt(id, 10)
		}
		if _, _, _, err := cp.fetchPage(ctx, cp.query(url.Values{"objectIds": {strings.Join(list, ",")}})); err != nil {
			return err
		}
	}
	if cp.read != cp.total {
		return fmt.Errorf("the server sent %d of the %d features it listed", cp.read, cp.total)
	}
	return nil
}

// pageCheck reads a page's top-level members: an error becomes one, and
// exceededTransferLimit says whether more remain. It also digests the
// page.
func pageCheck(path string) (more bool, sum [32]byte, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, sum, err
	}
	defer f.Close()
	h := sha256.New()
	dec := json.NewDecoder(io.TeeReader(f, h))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return false, sum, errors.New("the server's answer is not a JSON object")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false, sum, fmt.Errorf("the server's answer is not readable JSON: %s", clip(err.Error(), 200))
		}
		switch key {
		case "error":
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return false, sum, errors.New("the server answered with an unreadable error")
			}
			if aerr := errorOf(append(append([]byte(`{"error":`), raw...), '}')); aerr != nil {
				return false, sum, aerr
			}
		case "exceededTransferLimit":
			var b bool
			if err := dec.Decode(&b); err != nil {
				return false, sum, errors.New("the server's exceededTransferLimit is not a boolean")
			}
			more = b
		default:
			if err := skip(dec); err != nil {
				return false, sum, fmt.Errorf("the server's answer is not readable JSON: %s", clip(err.Error(), 200))
			}
		}
	}
	if _, err := io.Copy(h, f); err != nil {
		return false, sum, err
	}
	copy(sum[:], h.Sum(nil))
	return more, sum, nil
}

// skip reads past one value, token by token, holding none of it.
func skip(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// safeName makes a file and layer name of a layer name.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
	if len(s) > 100 || strings.Trim(s, "_") == "" {
		return ""
	}
	return s
}
