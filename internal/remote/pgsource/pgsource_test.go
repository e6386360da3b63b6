package pgsource

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/remote"
)

func TestParseGeometryType(t *testing.T) {
	for word, want := range map[string]struct {
		name string
		dims int
	}{
		"Point": {"point", 2}, "PointZ": {"point", 3}, "PointM": {"point", 2}, "MultiPolygonZM": {"multipolygon", 3},
		"GEOMETRYCOLLECTION": {"geometrycollection", 2}, "Geometry": {"geometry", 2}, "CompoundCurve": {"linestring", 2},
	} {
		if name, dims := parseGeometryType(word); name != want.name || dims != want.dims {
			t.Errorf("%s: %s %d", word, name, dims)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"postgresql://db.example.com/gis": true, "postgres://db.example.com:6543/gis": true,
		"postgresql://db.example.com/": false, "postgresql://db.example.com/a/b": false,
		"postgresql://db.example.com/gis?sslmode=disable": false, "postgresql://u:p@db.example.com/gis": false,
		"postgresql://db.example.com:0/gis": false,
	} {
		u, _ := url.Parse(raw)
		if err := (Kind{}).CheckURL(u); (err == nil) != ok {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

// scratch creates a database with PostGIS on the local server, dropped
// at the end of the test.
func scratch(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	if err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") == "" {
			t.Skipf("no local PostgreSQL server: %v", err)
		}
		t.Fatal(err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "geopub_pgkind_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:5432/"+name+"?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close(ctx)
		admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
		admin.Close(ctx)
	})
	exec(t, conn, "CREATE EXTENSION postgis")
	return name, conn
}

func exec(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Discover reads types, CRS and dimensions from the catalogue, and the
// fingerprint follows the content; Fetch writes a GeoPackage that keeps
// them.
func TestDiscoverAndFetch(t *testing.T) {
	db, conn := scratch(t)
	exec(t, conn, `
CREATE TABLE survey (id bigint, ok boolean, d date, ts timestamp, tm time, n numeric, label varchar(20), tags text[],
	geom geometry(PointZ, 2193), other geometry(Point, 4326));
INSERT INTO survey VALUES (1, true, '2024-02-03', '2024-02-03 04:05:06', '12:34:56.5', 1.5, 'one', '{a,b}',
	ST_GeomFromText('POINT Z (1748000 5428000 12.5)', 2193), NULL),
	(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE loose (id int, geom geometry);
INSERT INTO loose VALUES (1, ST_GeomFromText('LINESTRING(0 0, 1 1)', 3857));
CREATE VIEW broken AS SELECT 1 / (id - id) AS x FROM loose;`)
	c := remote.Conn{URL: "postgresql://127.0.0.1:5432/" + db, Username: "postgres",
		Fetch: &fetch.Client{Guard: &fetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}}
	ctx := context.Background()
	var notes []string
	found, err := Kind{}.Discover(ctx, c, func(s string) { notes = append(notes, s) })
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]ingest.Datasource{}
	for _, d := range found {
		byPath[d.Path] = d
	}
	s, loose := byPath["public.survey"], byPath["public.loose"]
	if len(found) != 2 || s.GeometryType != "point" || s.NumDims != 3 || s.CRS != "EPSG:2193" || s.FeatureCount != 2 ||
		s.GeometryField != "geom" || s.Extent == nil || s.Extent[0] < 174 || s.Extent[0] > 176 {
		t.Fatalf("survey %+v", s)
	}
	if loose.GeometryType != "linestring" || loose.CRS != "EPSG:3857" {
		t.Fatalf("loose %+v", loose)
	}
	types := map[string]string{}
	for _, f := range s.Fields {
		types[f.Name] = f.Type
	}
	want := map[string]string{"id": "integer", "ok": "boolean", "d": "date", "ts": "datetime", "tm": "time", "n": "double",
		"label": "string", "tags": "string"}
	for k, v := range want {
		if types[k] != v {
			t.Fatalf("fields %+v", s.Fields)
		}
	}
	if len(s.Fields) != len(want) || !strings.Contains(strings.Join(notes, "\n"), "geometry column other left out") ||
		!strings.Contains(strings.Join(notes, "\n"), "Skipped public.broken: The database reported: division by zero") {
		t.Fatalf("fields %+v notes %q", s.Fields, notes)
	}

	// The fingerprint: the same when nothing changed, another when one
	// value did.
	again, _ := Kind{}.Discover(ctx, c, func(string) {})
	exec(t, conn, "UPDATE survey SET label = 'uno' WHERE id = 1")
	changed, _ := Kind{}.Discover(ctx, c, func(string) {})
	fp := func(ds []ingest.Datasource, path string) string {
		for _, d := range ds {
			if d.Path == path {
				return d.Fingerprint
			}
		}
		return ""
	}
	if fp(again, "public.survey") != s.Fingerprint || fp(changed, "public.survey") == s.Fingerprint ||
		fp(changed, "public.loose") != loose.Fingerprint {
		t.Fatal("fingerprints do not follow the content")
	}

	dir := t.TempDir()
	var last float64
	file, layer, err := Kind{}.Fetch(ctx, c, "public.survey", dir, func(f float64) {
		if f < last || f > 1 {
			t.Errorf("progress %v after %v", f, last)
		}
		last = f
	})
	if err != nil || file != "data.gpkg" || layer != "survey" || last != 1 {
		t.Fatal(file, layer, err, last)
	}
	res, err := ingest.Scan(ctx, dir)
	if err != nil || len(res.Datasources) != 1 {
		t.Fatal(res, err)
	}
	g := res.Datasources[0]
	gtypes := map[string]string{}
	for _, f := range g.Fields {
		gtypes[f.Name] = f.Type
	}
	for k, v := range want {
		if k == "tm" {
			// A GeoPackage has no time type: the copy holds the time as
			// text (the datasource's fields are the catalogue's).
			v = "string"
		}
		if gtypes[k] != v {
			t.Fatalf("GeoPackage fields %+v", g.Fields)
		}
	}
	if g.CRS != "EPSG:2193" || g.NumDims != 3 || g.FeatureCount != 2 || g.GeometryType != "point" {
		t.Fatalf("GeoPackage %+v", g)
	}
	var rows []ingest.Feature
	err = ingest.ReadFeatures(ctx, dir, ingest.Datasource{Path: file, Layer: layer, DataType: ingest.TypeVector}, func(f ingest.Feature) error {
		rows = append(rows, f)
		return nil
	})
	if err != nil || len(rows) != 2 {
		t.Fatal(rows, err)
	}
	if rows[0].Attributes["id"] != int64(1) {
		rows[0], rows[1] = rows[1], rows[0] // the cursor reads in the table's order
	}
	a := rows[0].Attributes
	ts, _ := a["ts"].(time.Time)
	if a["id"] != int64(1) || a["ok"] != true || a["n"] != 1.5 || a["label"] != "uno" || a["tags"] != "{a,b}" || a["tm"] != "12:34:56.5" ||
		!ts.Equal(time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC)) || rows[0].Geometry == nil {
		t.Fatalf("row %+v", a)
	}
	if b := rows[1].Attributes; b["ok"] != nil || b["label"] != nil || rows[1].Geometry != nil {
		t.Fatalf("nulls %+v", rows[1])
	}
}

// Issue 26.1: a layer's key is "detected at import (... the source's
// declared key: GeoPackage/PostGIS primary keys ...)". Discover reports a
// table's primary key, composite ones in key order, when its columns are
// integer or string fields; a key of another type, a table without one
// and a view declare none.
func TestDiscoverDeclaredKeys(t *testing.T) {
	db, conn := scratch(t)
	exec(t, conn, `
CREATE TABLE parcels (name text, code int PRIMARY KEY, geom geometry(Point, 4326));
CREATE TABLE pairs (num bigint, region varchar(10), note text, PRIMARY KEY (region, num));
CREATE TABLE stamped (at timestamp PRIMARY KEY, v int);
CREATE TABLE nokey (a int UNIQUE NOT NULL);
CREATE VIEW parcel_view AS SELECT * FROM parcels;`)
	c := remote.Conn{URL: "postgresql://127.0.0.1:5432/" + db, Username: "postgres",
		Fetch: &fetch.Client{Guard: &fetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}}
	found, err := Kind{}.Discover(context.Background(), c, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range found {
		got[d.Path] = strings.Join(d.PrimaryKey, ",")
	}
	want := map[string]string{"public.parcels": "code", "public.pairs": "region,num", "public.stamped": "",
		"public.nokey": "", "public.parcel_view": ""}
	if len(got) != len(want) {
		t.Fatalf("declared keys %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("declared keys %v, want %v", got, want)
		}
	}
}
