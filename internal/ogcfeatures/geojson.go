package ogcfeatures

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/geojson"
	"github.com/twpayne/go-geom/encoding/wkb"
)

// Geometry decodes stored WKB, reprojected by tr unless tr is nil; nil
// WKB gives a nil geometry.
func Geometry(raw []byte, tr *Transformer) (geom.T, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	g, err := wkb.Unmarshal(raw)
	if err != nil {
		return nil, err
	}
	if tr != nil {
		if err := reproject(g, tr); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// reproject transforms g's coordinates in place.
func reproject(g geom.T, tr *Transformer) error {
	if c, ok := g.(*geom.GeometryCollection); ok {
		for _, m := range c.Geoms() {
			if err := reproject(m, tr); err != nil {
				return err
			}
		}
		return nil
	}
	return tr.Forward(g.FlatCoords(), g.Stride())
}

// Properties renders stored attributes as the properties object: the
// collection's fields in order (null where absent), then any other names
// sorted.
func Properties(fields []string, attrs []byte) json.RawMessage {
	var m map[string]json.RawMessage
	if len(attrs) > 0 {
		_ = json.Unmarshal(attrs, &m)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	seen := make(map[string]bool, len(fields))
	write := func(k string, v json.RawMessage) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		enc, _ := json.Marshal(k)
		b.Write(enc)
		b.WriteByte(':')
		if len(v) == 0 {
			b.WriteString("null")
		} else {
			b.Write(v)
		}
	}
	for _, f := range fields {
		seen[f] = true
		write(f, m[f])
	}
	var extra []string
	for k := range m {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		write(k, m[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Feature is a GeoJSON feature.
type Feature struct {
	Type       string          `json:"type"`
	ID         int64           `json:"id"`
	Geometry   json.RawMessage `json:"geometry"`
	Properties json.RawMessage `json:"properties"`
	Links      []Link          `json:"links,omitempty"`
}

// NewFeature renders an item; tr reprojects unless nil.
func NewFeature(it Item, fields []string, tr *Transformer) (Feature, error) {
	f := Feature{Type: "Feature", ID: it.FID, Geometry: json.RawMessage("null"), Properties: Properties(fields, it.Attrs)}
	g, err := Geometry(it.Geom, tr)
	if err != nil {
		return f, err
	}
	if g != nil {
		enc, err := geojson.Marshal(g)
		if err != nil {
			return f, err
		}
		f.Geometry = enc
	}
	return f, nil
}

// FeatureCollection is an items page.
type FeatureCollection struct {
	Type           string    `json:"type"`
	Features       []Feature `json:"features"`
	Links          []Link    `json:"links"`
	TimeStamp      string    `json:"timeStamp"`
	NumberMatched  *int64    `json:"numberMatched,omitempty"`
	NumberReturned int       `json:"numberReturned"`
}

// NewFeatureCollection renders a page.
func NewFeatureCollection(p Page, fields []string, tr *Transformer, links []Link, now time.Time) (FeatureCollection, error) {
	fc := FeatureCollection{Type: "FeatureCollection", Features: make([]Feature, 0, len(p.Items)), Links: links,
		TimeStamp: now.UTC().Format(time.RFC3339), NumberReturned: len(p.Items)}
	if p.Matched >= 0 {
		n := p.Matched
		fc.NumberMatched = &n
	}
	for _, it := range p.Items {
		f, err := NewFeature(it, fields, tr)
		if IsTransformError(err) {
			return fc, &Problem{Status: 400, Code: "InvalidParameterValue",
				Description: "feature " + strconv.FormatInt(it.FID, 10) + " cannot be given in the requested CRS: " + err.Error()}
		}
		if err != nil {
			return fc, fmt.Errorf("ogc features: feature %d: %w", it.FID, err)
		}
		fc.Features = append(fc.Features, f)
	}
	return fc, nil
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
