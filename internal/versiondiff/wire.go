package versiondiff

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/twpayne/go-geom/encoding/geojson"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/featurerows"
)

// The JSON forms every door shows a diff in: a feature as GeoJSON, a
// change as one object (a line of the JSON-lines stream, an element of a
// page), and Kart's GeoJSON ids for a diff as a feature collection.

// Feature is a stored row as a GeoJSON feature (EPSG:4326): its FID as
// id, its attributes as properties.
type Feature struct {
	Type       string          `json:"type"`
	ID         any             `json:"id"`
	Geometry   json.RawMessage `json:"geometry"`
	Properties map[string]any  `json:"properties"`
}

// FeatureOf renders r; ID is its FID unless id is given.
func FeatureOf(r *featurerows.Row, id any) (*Feature, error) {
	f := &Feature{Type: "Feature", ID: id, Geometry: json.RawMessage("null"), Properties: r.Attrs}
	if id == nil {
		f.ID = r.FID
	}
	if f.Properties == nil {
		f.Properties = map[string]any{}
	}
	if len(r.Geom) > 0 {
		g, err := wkb.Unmarshal(r.Geom)
		if err != nil {
			return nil, fmt.Errorf("versiondiff: FID %d: %w", r.FID, err)
		}
		if f.Geometry, err = geojson.Marshal(g); err != nil {
			return nil, fmt.Errorf("versiondiff: FID %d: %w", r.FID, err)
		}
	}
	return f, nil
}

// ChangeJSON is one change as the doors write it: "-" is the feature
// before, "+" after (Kart's diff notation), key its key values.
type ChangeJSON struct {
	Type string         `json:"type"`
	Op   Op             `json:"op"`
	Key  map[string]any `json:"key,omitempty"`
	//lint:ignore SA5008 "-" is the key, as in Kart's diffs: the feature before.
	Old             *Feature `json:"-,omitempty"`
	New             *Feature `json:"+,omitempty"`
	Changed         []string `json:"changed,omitempty"`
	GeometryChanged bool     `json:"geometry_changed,omitempty"`
}

// JSON renders c, its key values taken from its rows' attributes of
// fields (none when matched by content).
func (c Change) JSON(fields []string) (*ChangeJSON, error) {
	out := &ChangeJSON{Type: "feature", Op: c.Op, Changed: c.Changed, GeometryChanged: c.GeometryChanged, Key: c.KeyValues(fields)}
	var err error
	if c.Old != nil {
		if out.Old, err = FeatureOf(c.Old, nil); err != nil {
			return nil, err
		}
	}
	if c.New != nil {
		if out.New, err = FeatureOf(c.New, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// KeyValues is the feature's key as field: value (the FID as "FID"), nil
// without one.
func (c Change) KeyValues(fields []string) map[string]any {
	if len(fields) == 0 || c.Key == nil {
		return nil
	}
	r := c.New
	if r == nil {
		r = c.Old
	}
	if Unstable(fields) {
		return map[string]any{"FID": r.FID}
	}
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		out[f] = r.Attrs[f]
	}
	return out
}

// GeoJSONFeatures renders c as Kart renders a diff as GeoJSON: an insert
// is one feature with id "I::<key>", a delete "D::<key>", an update two,
// "U-::<key>" (before) and "U+::<key>" (after); the key is the key values
// joined by commas, or the FID when matched by content.
func (c Change) GeoJSONFeatures() ([]*Feature, error) {
	key := strings.Join(c.Key, ",")
	if c.Key == nil {
		r := c.New
		if r == nil {
			r = c.Old
		}
		key = strconv.FormatInt(r.FID, 10)
	}
	one := func(r *featurerows.Row, prefix string) (*Feature, error) {
		return FeatureOf(r, prefix+"::"+key)
	}
	switch c.Op {
	case Insert:
		f, err := one(c.New, "I")
		return []*Feature{f}, err
	case Delete:
		f, err := one(c.Old, "D")
		return []*Feature{f}, err
	}
	before, err := one(c.Old, "U-")
	if err != nil {
		return nil, err
	}
	after, err := one(c.New, "U+")
	return []*Feature{before, after}, err
}

// String is the cursor as the doors carry it: URL-safe base64 of its
// JSON.
func (c Cursor) String() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseCursor reads a cursor String wrote.
func ParseCursor(s string) (*Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not a diff cursor")
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil || c.N < 0 {
		return nil, fmt.Errorf("not a diff cursor")
	}
	return &c, nil
}
