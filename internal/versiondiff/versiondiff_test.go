package versiondiff

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// parcel is the generated feature with id in version v, nil when that
// version has none. From version 1 (ids 1..200) to 2: ids 1..10 deleted,
// the names of 11..20 and the geometries of 21..25 changed, 201..215
// inserted. From 2 to 3: a status field added (set on 30..34, null
// elsewhere), 5 and 7 back as in version 1, 201 deleted, the area of 40
// changed and then back in version 4, which also changes 41 and 42.
func parcel(v, id int) map[string]any {
	switch {
	case v == 0, id < 1 || id > 215:
		return nil
	case id > 200 && v < 2:
		return nil
	case id <= 10 && v == 2, id <= 10 && v >= 3 && id != 5 && id != 7:
		return nil
	case id == 201 && v >= 3:
		return nil
	}
	p := map[string]any{
		"id":   id,
		"name": fmt.Sprintf("Parcel %d", id),
		"area": float64(id) + 0.5,
		"lon":  170 + float64(id)/1000,
	}
	if v >= 2 && id >= 11 && id <= 20 {
		p["name"] = fmt.Sprintf("Parcel %d (renamed)", id)
	}
	if v >= 2 && id >= 21 && id <= 25 {
		p["lon"] = 171 + float64(id)/1000
	}
	if v >= 3 {
		p["status"] = nil
		if id >= 30 && id <= 34 {
			p["status"] = "surveyed"
		}
	}
	if v == 3 && id == 40 {
		p["area"] = 1000.5
	}
	if v == 4 && (id == 41 || id == 42) {
		p["name"] = "Merged parcel"
	}
	return p
}

// geojsonOf is version v as a GeoJSON file.
func geojsonOf(v int) []byte {
	type feature struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Geometry   map[string]any `json:"geometry"`
	}
	var fs []feature
	for id := 1; id <= 215; id++ {
		p := parcel(v, id)
		if p == nil {
			continue
		}
		props := map[string]any{}
		for k, val := range p {
			if k != "lon" {
				props[k] = val
			}
		}
		fs = append(fs, feature{Type: "Feature", Properties: props,
			Geometry: map[string]any{"type": "Point", "coordinates": []float64{p["lon"].(float64), -41}}})
	}
	b, _ := json.Marshal(map[string]any{"type": "FeatureCollection", "features": fs})
	return b
}

// importVersion writes version v's file, reads it with GDAL and stores
// its features as version v, as an import does; it returns the version.
func importVersion(t *testing.T, st *store.Store, v int, key []string) Version {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "parcels.geojson"), geojsonOf(v), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := ingest.Scan(ctx, dir)
	if err != nil || len(res.Datasources) != 1 {
		t.Fatalf("scan: %v %+v", err, res)
	}
	ds := res.Datasources[0]
	out := Version{ID: v, PrimaryKey: key, CRS: ds.CRS, GeometryType: ds.GeometryType}
	for _, f := range ds.Fields {
		out.Fields = append(out.Fields, schematype.Field{Name: f.Name, Type: f.Type})
	}
	err = st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		w, err := featurerows.NewWriter(ctx, st, tx, v)
		if err != nil {
			return err
		}
		if err := ingest.ReadFeatures(ctx, dir, ds, func(f ingest.Feature) error {
			return w.Write(featurerows.Row{FID: f.FID, Geom: f.Geometry, Attrs: f.Attributes})
		}); err != nil {
			return err
		}
		_, err = w.Close()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// want is the diff from version a to b by id, from the generator: in the
// order of the ids' text.
func want(a, b int) []Change {
	var ids []string
	for id := 1; id <= 215; id++ {
		ids = append(ids, strconv.Itoa(id))
	}
	slices.Sort(ids)
	var out []Change
	for _, s := range ids {
		id, _ := strconv.Atoi(s)
		pa, pb := parcel(a, id), parcel(b, id)
		c := Change{Key: []string{s}}
		switch {
		case pa == nil && pb == nil:
			continue
		case pa == nil:
			c.Op = Insert
		case pb == nil:
			c.Op = Delete
		default:
			c.Op = Update
			c.GeometryChanged = pa["lon"] != pb["lon"]
			for _, k := range []string{"area", "id", "name", "status"} {
				if !reflect.DeepEqual(pa[k], pb[k]) {
					c.Changed = append(c.Changed, k)
				}
			}
			if !c.GeometryChanged && c.Changed == nil {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// got is what a diff says of each change, in a comparable form.
type got struct {
	Op              Op
	Key             []string
	Changed         []string
	GeometryChanged bool
	OldID, NewID    any
}

func summary(cs []Change) []got {
	out := make([]got, len(cs))
	for i, c := range cs {
		out[i] = got{Op: c.Op, Key: c.Key, Changed: c.Changed, GeometryChanged: c.GeometryChanged}
		if c.Old != nil {
			out[i].OldID = c.Old.Attrs["id"]
		}
		if c.New != nil {
			out[i].NewID = c.New.Attrs["id"]
		}
		if len(out[i].Changed) == 0 {
			out[i].Changed = nil
		}
	}
	return out
}

func wantSummary(cs []Change) []got {
	out := make([]got, len(cs))
	for i, c := range cs {
		out[i] = got{Op: c.Op, Key: c.Key, Changed: c.Changed, GeometryChanged: c.GeometryChanged}
		id, _ := strconv.ParseInt(c.Key[0], 10, 64)
		if c.Op != Insert {
			out[i].OldID = id
		}
		if c.Op != Delete {
			out[i].NewID = id
		}
	}
	return out
}

func collect(t *testing.T, st *store.Store, a, b Version, opt Options) ([]Change, Diff) {
	t.Helper()
	var cs []Change
	d, err := Compare(context.Background(), st, a, b, opt, func(c Change) error {
		cs = append(cs, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cs, d
}

func countOf(cs []Change) Counts {
	var n Counts
	for _, c := range cs {
		switch c.Op {
		case Insert:
			n.Inserts++
		case Update:
			n.Updates++
		case Delete:
			n.Deletes++
		}
	}
	return n
}

// Issue 26.2: versions built by GDAL from generated data with known
// inserts, updates, deletes and schema changes; each diff compared exactly
// with what the generator says, on both stores.
func TestCompareByKey(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		key := []string{"id"}
		vs := []Version{{}}
		for v := 1; v <= 4; v++ {
			vs = append(vs, importVersion(t, st, v, key))
		}
		// Unfrozen versions are sorted by the store for each diff; frozen
		// ones are compared through their stored key orders.
		for _, frozen := range []bool{false, true} {
			freeze(vs, frozen)
			comparePairs(t, st, vs, key)
		}
		if n := readyOrders(t, st); n != 4 {
			t.Fatalf("%d stored key orders, want 4", n)
		}
		// Known counts, so the generator is not trusted blindly.
		if _, d := collect(t, st, vs[1], vs[2], Options{}); d.Counts != (Counts{Inserts: 15, Updates: 15, Deletes: 10}) {
			t.Fatalf("1→2 counts %+v", d.Counts)
		}
		// The values of an update, old and new.
		cs, _ := collect(t, st, vs[1], vs[2], Options{})
		for _, c := range cs {
			if c.Op == Update && c.Key[0] == "11" {
				if c.Old.Attrs["name"] != "Parcel 11" || c.New.Attrs["name"] != "Parcel 11 (renamed)" || c.GeometryChanged {
					t.Fatalf("update of 11: %+v %+v", c.Old, c.New)
				}
			}
		}
		// Schema: version 3 added status; 2→3 names it, and 1→2 has none.
		if _, d := collect(t, st, vs[2], vs[3], Options{}); len(d.Schema.Added) != 1 || d.Schema.Added[0].Name != "status" ||
			len(d.Schema.Removed)+len(d.Schema.Retyped) != 0 || d.Schema.CRS != nil {
			t.Fatalf("2→3 schema %+v", d.Schema)
		}
		if _, d := collect(t, st, vs[1], vs[2], Options{}); !d.Schema.Empty() {
			t.Fatalf("1→2 schema %+v", d.Schema)
		}
	})
}

// comparePairs checks the diffs between pairs of versions 0–4 exactly
// against the generator, and their counts alone.
func comparePairs(t *testing.T, st *store.Store, vs []Version, key []string) {
	t.Helper()
	for _, p := range [][2]int{{1, 2}, {2, 3}, {1, 3}, {3, 1}, {0, 1}, {3, 4}, {2, 4}, {1, 4}} {
		cs, d := collect(t, st, vs[p[0]], vs[p[1]], Options{})
		w := want(p[0], p[1])
		if g, w := summary(cs), wantSummary(w); !reflect.DeepEqual(g, w) {
			for i := range max(len(g), len(w)) {
				if i >= len(g) || i >= len(w) || !reflect.DeepEqual(g[i], w[i]) {
					t.Fatalf("%d→%d: %d changes, want %d; first difference at %d: got %+v, want %+v",
						p[0], p[1], len(g), len(w), i, g[min(i, len(g)-1)], w[min(i, len(w)-1)])
				}
			}
		}
		if !d.Complete || d.Counts != countOf(w) || !slices.Equal(d.MatchedBy, key) {
			t.Fatalf("%d→%d: diff %+v, want counts %+v", p[0], p[1], d, countOf(w))
		}
		counted, err := Compare(context.Background(), st, vs[p[0]], vs[p[1]], Options{CountOnly: true}, nil)
		if err != nil || counted.Counts != d.Counts {
			t.Fatalf("%d→%d: counts only %+v, %v; want %+v", p[0], p[1], counted.Counts, err, d.Counts)
		}
	}
}

// freeze marks the versions frozen (published) or not.
func freeze(vs []Version, frozen bool) {
	for i := range vs {
		if vs[i].ID != 0 {
			vs[i].Frozen = frozen
		}
	}
}

// readyOrders counts the stored key orders ready for use.
func readyOrders(t *testing.T, st *store.Store) int {
	t.Helper()
	var n int
	if err := st.DB.QueryRow("SELECT count(*) FROM feature_key_orders WHERE state = 'ready'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Issue 26.2: the diff from 1 to 3 is the composition of 1→2 and 2→3,
// feature by feature, and likewise over four versions.
func TestCompareComposes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		vs := []Version{{}}
		for v := 1; v <= 4; v++ {
			vs = append(vs, importVersion(t, st, v, []string{"id"}))
		}
		freeze(vs, true) // published versions, as the doors diff them
		for _, p := range [][3]int{{1, 2, 3}, {2, 3, 4}, {1, 3, 4}, {0, 2, 4}} {
			first, _ := collect(t, st, vs[p[0]], vs[p[1]], Options{})
			second, _ := collect(t, st, vs[p[1]], vs[p[2]], Options{})
			direct, _ := collect(t, st, vs[p[0]], vs[p[2]], Options{})
			composed, d := compose(first, second), states(direct)
			for k := range merged(composed, d) {
				if composed[k] != d[k] {
					t.Errorf("%d→%d→%d, key %s: direct %+v, composed %+v", p[0], p[1], p[2], k, d[k], composed[k])
				}
			}
		}
	})
}

// state is a feature before and after, by key: "" for absent, else its
// attributes and geometry as JSON.
type state struct{ Old, New string }

// rowText is a feature's attributes (absent and null alike) and
// geometry as text.
func rowText(r *featurerows.Row) string {
	if r == nil {
		return ""
	}
	m := map[string]any{}
	for k, v := range r.Attrs {
		if v != nil {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return string(b) + fmt.Sprintf(" %x", r.Geom)
}

func merged(a, b map[string]state) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func states(cs []Change) map[string]state {
	out := map[string]state{}
	for _, c := range cs {
		out[c.Key[0]] = state{Old: rowText(c.Old), New: rowText(c.New)}
	}
	return out
}

// compose applies two diffs one after the other: a feature's state before
// is the first diff's, after is the second's; one that ends as it began
// has not changed.
func compose(first, second []Change) map[string]state {
	out := states(first)
	for k, s := range states(second) {
		f, ok := out[k]
		if !ok {
			out[k] = s
			continue
		}
		f.New = s.New
		out[k] = f
	}
	for k, s := range out {
		if s.Old == s.New {
			delete(out, k)
		}
	}
	return out
}

// Without a key, features are matched by content: each update is a
// delete and an insert, nothing unchanged is listed, and the diff says it
// matched by content.
func TestCompareByContent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		a, b := importVersion(t, st, 1, nil), importVersion(t, st, 2, nil)
		cs, d := collect(t, st, a, b, Options{})
		if len(d.MatchedBy) != 0 || d.Counts != (Counts{Inserts: 30, Deletes: 25}) || len(cs) != 55 {
			t.Fatalf("by content: %+v, %d changes", d, len(cs))
		}
		for _, c := range cs {
			if c.Key != nil {
				t.Fatalf("a change by content has a key: %+v", c)
			}
		}
		// A version against itself: nothing.
		if cs, d := collect(t, st, b, b, Options{}); len(cs) != 0 || d.Counts.Total() != 0 {
			t.Fatalf("b→b: %d changes", len(cs))
		}
	})
}

// Paging: a diff resumed after each page's last cursor lists every change
// once, in the same order, by key and by content.
func TestCompareResumes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		for _, key := range [][]string{{"id"}, nil} {
			a, b := importVersion(t, st, 1, key), importVersion(t, st, 2, key)
			all, _ := collect(t, st, a, b, Options{})
			// Pages of frozen versions resume in their stored key orders.
			for _, frozen := range []bool{false, true} {
				a.Frozen, b.Frozen = frozen, frozen
				var paged []Change
				var after *Cursor
				for pages := 0; ; pages++ {
					if pages > 20 {
						t.Fatal("paging does not end")
					}
					var page []Change
					d, err := Compare(context.Background(), st, a, b, Options{After: after}, func(c Change) error {
						page = append(page, c)
						if len(page) == 7 {
							return ErrStop
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					paged = append(paged, page...)
					if d.Complete {
						break
					}
					c := page[len(page)-1].Cursor
					after = &c
				}
				if !reflect.DeepEqual(summary(paged), summary(all)) {
					t.Fatalf("key %v, frozen %v: paged\n%+v\nall\n%+v", key, frozen, summary(paged), summary(all))
				}
			}
			// Cursors round-trip as JSON, as the doors carry them.
			var c Cursor
			text, _ := json.Marshal(all[3].Cursor)
			if err := json.Unmarshal(text, &c); err != nil || !reflect.DeepEqual(c, all[3].Cursor) {
				t.Fatalf("cursor %s → %+v", text, c)
			}
			for _, v := range []int{1, 2} {
				if err := st.InTx(context.Background(), func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
					return featurerows.DeleteVersion(ctx, st, tx, v)
				}); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

func TestCompareSchema(t *testing.T) {
	a := Version{ID: 1, CRS: "EPSG:4326", GeometryType: "point", PrimaryKey: []string{"id"},
		Fields: []schematype.Field{{Name: "id", Type: "integer"}, {Name: "code", Type: "integer"}, {Name: "old", Type: "string"}}}
	b := Version{ID: 2, CRS: "EPSG:2193", GeometryType: "multipoint",
		Fields: []schematype.Field{{Name: "id", Type: "integer"}, {Name: "code", Type: "string"}, {Name: "new", Type: "date"}}}
	s := compareSchema(a, b)
	w := SchemaChange{
		Added:        []schematype.Field{{Name: "new", Type: "date"}},
		Removed:      []schematype.Field{{Name: "old", Type: "string"}},
		Retyped:      []Retyped{{Name: "code", Old: "integer", New: "string"}},
		CRS:          &ValueChange{Old: "EPSG:4326", New: "EPSG:2193"},
		GeometryType: &ValueChange{Old: "point", New: "multipoint"},
		PrimaryKey:   &KeyChange{Old: []string{"id"}, New: []string{}},
	}
	if !reflect.DeepEqual(s, w) {
		t.Fatalf("schema\n got %+v\nwant %+v", s, w)
	}
	if !compareSchema(a, a).Empty() || !compareSchema(Version{}, b).Empty() {
		t.Fatal("no change is not empty")
	}
}

// A key without a value in some rows, or repeated: rows without one match
// nothing; repeats pair in row order, the rest inserted or deleted.
func TestCompareIncompleteKey(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		v2, v3 := importVersion(t, st, 2, []string{"status"}), importVersion(t, st, 3, []string{"status"})
		// Version 2 has no status: every row is deleted; of version 3's,
		// those without one are inserted, and the five "surveyed" too.
		_, d := collect(t, st, v2, v3, Options{})
		if d.Counts != (Counts{Inserts: 206, Deletes: 205}) {
			t.Fatalf("2→3 by status: %+v", d.Counts)
		}
		// By name, version 4 has "Merged parcel" twice: both inserted,
		// the two names they replace deleted.
		v3.PrimaryKey = []string{"name"}
		v4 := importVersion(t, st, 4, []string{"name"})
		cs, d := collect(t, st, v3, v4, Options{})
		if d.Counts != (Counts{Inserts: 2, Deletes: 2, Updates: 1}) {
			t.Fatalf("3→4 by name: %+v %+v", d.Counts, summary(cs))
		}
		if cs[0].Op != Insert || cs[1].Op != Insert || cs[0].Key[0] != "Merged parcel" || cs[1].Key[0] != "Merged parcel" {
			t.Fatalf("3→4 by name: %+v", summary(cs))
		}
	})
}

// Issue 26.1: the FID is the key of last resort, when neither version has
// a key and both (or the one there is) may be matched by FID; a key of
// either version wins, and a version that may not be matched by FID
// leaves the diff to content.
func TestMatchKeyByFID(t *testing.T) {
	fid := []string{featurerows.FIDKey}
	shp := func(id int) Version { return Version{ID: id, KeyByFID: true} }
	for _, tc := range []struct {
		name string
		a, b Version
		want []string
	}{
		{"both by FID", shp(1), shp(2), fid},
		{"from nothing", Version{}, shp(2), fid},
		{"to nothing", shp(1), Version{}, fid},
		{"one not by FID", shp(1), Version{ID: 2}, nil},
		{"a key wins", shp(1), Version{ID: 2, KeyByFID: true, PrimaryKey: []string{"code"}}, []string{"code"}},
		{"nothing to nothing", Version{}, Version{}, nil},
	} {
		if got := MatchKey(tc.a, tc.b); !slices.Equal(got, tc.want) {
			t.Errorf("%s: MatchKey = %q, want %q", tc.name, got, tc.want)
		}
	}
	if !Unstable(fid) || Unstable([]string{"FID"}) || !slices.Equal(KeyNames(fid), []string{"FID"}) {
		t.Fatal("the FID key is unstable and named FID; a field named FID is neither")
	}
	c := Change{Op: Delete, Old: &featurerows.Row{FID: 7, Attrs: map[string]any{"FID": "field"}}, Key: []string{"7"}}
	if got := c.KeyValues(fid); len(got) != 1 || got["FID"] != int64(7) {
		t.Fatalf("KeyValues by FID = %v", got)
	}
	if got := c.KeyValues([]string{"FID"}); got["FID"] != "field" {
		t.Fatalf("KeyValues by a field named FID = %v", got)
	}
}
