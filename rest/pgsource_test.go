package rest_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/geopub/geopub/internal/secrets"
	"github.com/geopub/geopub/internal/server"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// pgSourcePassword is the password PostgreSQL sources are created with:
// it must never come back in a response or a scan log.
const pgSourcePassword = "pg-Secret-7f3a9c"

// pgScratch creates a database with PostGIS on the local PostgreSQL
// server (127.0.0.1:5432, trust authentication), dropped when the test
// ends, and returns its name and a connection to it.
func pgScratch(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	if err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") == "" {
			t.Skipf("no local PostgreSQL server: %v", err)
		}
		t.Fatalf("local PostgreSQL server: %v", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "geopub_pgsrc_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:5432/"+name+"?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
		admin.Close(ctx)
	})
	pgExec(t, conn, "CREATE EXTENSION postgis")
	return name, conn
}

func pgExec(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// pgFixture fills a scratch database: a table of every geometry type, a
// geography and a 3D column, a view, a table without geometry, and a
// table in a second schema.
const pgFixture = `
CREATE TABLE points (id serial PRIMARY KEY, name text, n integer, v double precision, ok boolean, d date,
	ts timestamptz, geom geometry(Point, 4326));
INSERT INTO points (name, n, v, ok, d, ts, geom)
	SELECT 'p' || i, i, i / 4.0, i % 2 = 0, date '2024-01-01' + i % 300, timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute',
		ST_SetSRID(ST_MakePoint(174.7 + i * 0.00001, -41.2 - i * 0.00001), 4326)
	FROM generate_series(1, 5000) i;
CREATE TABLE lines (id int, name text, geom geometry(LineString, 2193));
INSERT INTO lines VALUES (1, 'a', ST_GeomFromText('LINESTRING(1748000 5428000, 1749000 5429000)', 2193));
CREATE TABLE polys (id int, name text, geom geometry(Polygon, 4326));
INSERT INTO polys VALUES (1, 'square', ST_GeomFromText('POLYGON((174 -41, 175 -41, 175 -42, 174 -42, 174 -41))', 4326)),
	(2, 'other', ST_GeomFromText('POLYGON((170 -45, 171 -45, 171 -46, 170 -46, 170 -45))', 4326));
CREATE TABLE mpoints (id int, geom geometry(MultiPoint, 4326));
INSERT INTO mpoints VALUES (1, ST_GeomFromText('MULTIPOINT(174 -41, 175 -42)', 4326));
CREATE TABLE mlines (id int, geom geometry(MultiLineString, 4326));
INSERT INTO mlines VALUES (1, ST_GeomFromText('MULTILINESTRING((174 -41, 175 -42), (176 -43, 177 -44))', 4326));
CREATE TABLE mpolys (id int, geom geometry(MultiPolygon, 4326));
INSERT INTO mpolys VALUES (1, ST_GeomFromText('MULTIPOLYGON(((174 -41, 175 -41, 175 -42, 174 -41)))', 4326));
CREATE TABLE places (id int, geog geography(Point, 4326));
INSERT INTO places VALUES (1, 'POINT(172.6 -43.5)');
CREATE TABLE peaks (id int, name text, geom geometry(PointZ, 4326));
INSERT INTO peaks VALUES (1, 'Aoraki', ST_GeomFromText('POINT Z (170.14 -43.59 3724)', 4326));
CREATE VIEW small_points AS SELECT id, name, geom FROM points WHERE n <= 10;
CREATE TABLE notes (id int, body text, at date);
INSERT INTO notes VALUES (1, 'first', '2024-05-01'), (2, NULL, NULL);
CREATE SCHEMA hidden;
CREATE TABLE hidden.secret_sites (id int, geom geometry(Point, 4326));
`

// createPGSource posts a PostgreSQL source of the public schema.
func createPGSource(t *testing.T, e *env, key, url, username string) *sourceRecord {
	t.Helper()
	r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: key, Body: map[string]any{
		"type": "postgres", "title": "Survey database", "url_remote": url,
		"options": map[string]any{"username": username, "password": pgSourcePassword, "ssl_verify": false, "schemas": []string{"public"}},
	}})
	expectStatus(t, r, http.StatusCreated)
	if strings.Contains(string(r.Body), pgSourcePassword) {
		t.Fatalf("password returned: %s", r.Body)
	}
	var s sourceRecord
	r.JSON(t, &s)
	return &s
}

// scanLogOf reads a scan's log, which must not hold the password.
func scanLogOf(t *testing.T, e *env, key string, sc scanRecord) string {
	t.Helper()
	r := e.Do(t, req{Path: sc.Log, Key: key})
	if r.Status != http.StatusOK {
		t.Fatalf("scan log: %d %s", r.Status, r.Body)
	}
	if strings.Contains(string(r.Body), pgSourcePassword) {
		t.Fatalf("password in the scan log: %s", r.Body)
	}
	return string(r.Body)
}

// A PostgreSQL source end to end: create, scan, datasources as the
// catalogue says, a layer imported (more rows than one fetch) and
// published, then changes in the database counted by a re-scan.
func TestPostgresSourceEndToEnd(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		db, conn := pgScratch(t)
		pgExec(t, conn, pgFixture)
		pub := e.NewUser(t, "Publisher")
		src := createPGSource(t, e, pub.Key, "postgresql://127.0.0.1:5432/"+db, "postgres")

		// The row holds the credentials sealed.
		row := e.Store.Client.Source.GetX(t.Context(), src.ID)
		if !secrets.Sealed(row.Password) || strings.Contains(row.Password, pgSourcePassword) || !secrets.Sealed(row.Username) {
			t.Fatalf("stored credentials %q %q", row.Username, row.Password)
		}
		r := e.Do(t, req{Path: src.URL, Key: pub.Key})
		if strings.Contains(string(r.Body), pgSourcePassword) || strings.Contains(string(r.Body), "gpenc1:") {
			t.Fatalf("source %s", r.Body)
		}

		sc := waitScan(t, e, pub.Key, src.ID)
		log := scanLogOf(t, e, pub.Key, sc)
		if sc.Status != "completed" || sc.ChangeCounts["added"] != 10 {
			t.Fatalf("scan %+v\n%s", sc, log)
		}
		ds := datasources(t, e, pub.Key, src.ID)
		want := map[string]struct {
			dataType, geometryType, crs string
			count                       int64
		}{
			"public.points": {"vector", "point", "EPSG:4326", 5000}, "public.lines": {"vector", "linestring", "EPSG:2193", 1},
			"public.polys": {"vector", "polygon", "EPSG:4326", 2}, "public.mpoints": {"vector", "multipoint", "EPSG:4326", 1},
			"public.mlines": {"vector", "multilinestring", "EPSG:4326", 1}, "public.mpolys": {"vector", "multipolygon", "EPSG:4326", 1},
			"public.places": {"vector", "point", "EPSG:4326", 1}, "public.peaks": {"vector", "point", "EPSG:4326", 1},
			"public.small_points": {"vector", "point", "EPSG:4326", 10}, "public.notes": {"table", "", "", 2},
		}
		if len(ds) != len(want) {
			t.Fatalf("datasources %+v", ds)
		}
		for path, w := range want {
			d := ds[path]
			crs := ""
			if d.CRS != nil {
				crs = *d.CRS
			}
			if d.DataType != w.dataType || d.GeometryType != w.geometryType || crs != w.crs || d.NumFeatures != w.count {
				t.Errorf("%s: %+v, want %+v", path, d, w)
			}
		}
		fields := map[string]string{}
		for _, f := range ds["public.points"].Fields {
			fields[f.Name] = f.Type
		}
		if fmt.Sprint(fields) != fmt.Sprint(map[string]string{"id": "integer", "name": "string", "n": "integer", "v": "double",
			"ok": "boolean", "d": "date", "ts": "datetime"}) {
			t.Fatalf("points fields %+v", ds["public.points"].Fields)
		}
		// The NZTM line's extent is in lon/lat.
		if ext := ds["public.lines"].Extent; ext == nil || ext.Coordinates[0][0][0] < 174 || ext.Coordinates[0][0][0] > 176 ||
			ext.Coordinates[0][0][1] > -40 || ext.Coordinates[0][0][1] < -43 {
			t.Fatalf("lines extent %+v", ext)
		}

		// A layer from the points: every row imported, then published.
		r = e.Do(t, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
			"name": "Survey points", "data": map[string]any{"datasources": []int{ds["public.points"].ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var l layerRecord
		r.JSON(t, &l)
		l = waitVersion(t, e, pub.Key, l.ThisVersion)
		if l.Version.Status != "ok" || l.Data.FeatureCount != 5000 || l.Data.GeometryType != "point" || len(l.Data.Fields) != 7 {
			t.Fatalf("imported %+v", l)
		}
		r = e.Do(t, req{Method: "POST", Path: l.ThisVersion + "publish/", Key: pub.Key, Body: map[string]any{}})
		expectStatus(t, r, http.StatusCreated)
		if g := waitPublish(t, e, pub.Key, r.Header.Get("Location")); g["state"] != "completed" {
			t.Fatalf("publish %+v", g)
		}
		r = e.Do(t, req{Path: fmt.Sprintf("%s/services/query/v1/vector.json?layer=%d&x=174.70001&y=-41.20001&radius=10&max_results=1&with_field_names=true",
			e.HTTP.URL, l.ID), Key: pub.Key})
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"p1"`) || !strings.Contains(string(r.Body), "2024-01-01") {
			t.Fatalf("query %s", r.Body)
		}

		// A table without geometry imports as a table.
		r = e.Do(t, req{Method: "POST", Path: "/tables/", Key: pub.Key, Body: map[string]any{
			"name": "Notes", "data": map[string]any{"datasources": []int{ds["public.notes"].ID}}}})
		expectStatus(t, r, http.StatusCreated)
		var nt layerRecord
		r.JSON(t, &nt)
		if nt = waitVersion(t, e, pub.Key, nt.ThisVersion); nt.Version.Status != "ok" || nt.Data.FeatureCount != 2 {
			t.Fatalf("table %+v", nt)
		}

		// Changes: a table added, a row updated, a table dropped.
		pgExec(t, conn, "CREATE TABLE added (id int, geom geometry(Point, 4326)); UPDATE polys SET name = 'renamed' WHERE id = 1; DROP TABLE mlines")
		r = e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: pub.Key})
		expectStatus(t, r, http.StatusCreated)
		sc = waitScan(t, e, pub.Key, src.ID)
		log = scanLogOf(t, e, pub.Key, sc)
		if sc.Status != "completed" || sc.ChangeCounts["added"] != 1 || sc.ChangeCounts["updated"] != 1 || sc.ChangeCounts["deleted"] != 1 {
			t.Fatalf("re-scan %+v\n%s", sc, log)
		}
		// Nothing changed: nothing counted.
		r = e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: pub.Key})
		expectStatus(t, r, http.StatusCreated)
		if sc = waitScan(t, e, pub.Key, src.ID); sc.ChangeCounts["added"]+sc.ChangeCounts["updated"]+sc.ChangeCounts["deleted"] != 0 {
			t.Fatalf("unchanged re-scan %+v", sc)
		}
	})
}

// Scans that cannot read the database fail with a clear message naming no
// secret: a role that does not exist, a closed port, a private address
// the guard refuses, credentials sealed under another key. Bad URLs are
// refused at create.
func TestPostgresSourceFailures(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		db, _ := pgScratch(t)
		e := servertest.New(t, st)
		pub := e.NewUser(t, "Publisher")
		url := "postgresql://127.0.0.1:5432/" + db
		for name, tc := range map[string]struct {
			url, username, want string
		}{
			"UnknownRole": {url, "no_such_role_x", "refused the credentials"},
			"ClosedPort":  {"postgresql://127.0.0.1:1/" + db, "postgres", "connection refused"},
			"NoDatabase":  {"postgresql://127.0.0.1:5432/no_such_db_x", "postgres", "does not exist"},
		} {
			t.Run(name, func(t *testing.T) {
				src := createPGSource(t, e, pub.Key, tc.url, tc.username)
				sc := waitScan(t, e, pub.Key, src.ID)
				log := scanLogOf(t, e, pub.Key, sc)
				if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, tc.want) ||
					strings.Contains(*sc.Error, "no_such_role_x") || strings.Contains(log, "no_such_role_x") {
					t.Fatalf("scan %+v\n%s", sc, log)
				}
			})
		}

		// ssl_verify (the default) requires TLS with a certificate the
		// system trusts: the local server's is self-signed, or it has
		// no TLS at all.
		t.Run("SSLVerify", func(t *testing.T) {
			r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
				"type": "postgres", "title": "Verified", "url_remote": url,
				"options": map[string]any{"username": "postgres", "password": pgSourcePassword}}})
			expectStatus(t, r, http.StatusCreated)
			var src sourceRecord
			r.JSON(t, &src)
			sc := waitScan(t, e, pub.Key, src.ID)
			if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "ssl_verify") {
				t.Fatalf("scan %+v", sc)
			}
			scanLogOf(t, e, pub.Key, sc)
		})

		// GraphQL seals the credentials too, and updates seal them again.
		t.Run("GraphQL", func(t *testing.T) {
			g := e.GraphQL(t, pub.Key, `mutation($in: CreateSourceInput!) { createSource(input: $in) { id } }`, map[string]any{"in": map[string]any{
				"type": "postgres", "title": "Via GraphQL", "urlRemote": url,
				"options": map[string]any{"username": "postgres", "password": pgSourcePassword, "sslVerify": false}}})
			var out struct{ CreateSource struct{ ID string } }
			if len(g.Errors) > 0 || json.Unmarshal(g.Data, &out) != nil || strings.Contains(string(g.Data), pgSourcePassword) {
				t.Fatalf("createSource %s %+v", g.Data, g.Errors)
			}
			id, _ := strconv.Atoi(out.CreateSource.ID)
			row := e.Store.Client.Source.GetX(t.Context(), id)
			if !secrets.Sealed(row.Password) || strings.Contains(row.Password, pgSourcePassword) {
				t.Fatalf("stored %q", row.Password)
			}
			waitScan(t, e, pub.Key, id)
			r := e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/sources/%d/", id), Key: pub.Key, Body: map[string]any{
				"options": map[string]any{"password": "another-" + pgSourcePassword}}})
			expectStatus(t, r, http.StatusOK)
			if strings.Contains(string(r.Body), pgSourcePassword) {
				t.Fatalf("update returned %s", r.Body)
			}
			if row = e.Store.Client.Source.GetX(t.Context(), id); !secrets.Sealed(row.Password) || strings.Contains(row.Password, pgSourcePassword) {
				t.Fatalf("updated %q", row.Password)
			}
		})

		t.Run("WrongKey", func(t *testing.T) {
			src := createPGSource(t, e, pub.Key, url, "postgres")
			waitScan(t, e, pub.Key, src.ID)
			key := make([]byte, secrets.KeySize)
			other, _ := secrets.New(key)
			sealed, _ := other.Seal(pgSourcePassword)
			e.Store.Client.Source.UpdateOneID(src.ID).SetPassword(sealed).ExecX(t.Context())
			expectStatus(t, e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/sources/%d/scans/", src.ID), Key: pub.Key}), http.StatusCreated)
			sc := waitScan(t, e, pub.Key, src.ID)
			if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "GEOPUB_SECRET_KEY") {
				t.Fatalf("scan %+v", sc)
			}
		})

		for name, tc := range map[string]string{
			"NoDatabase":  "postgresql://127.0.0.1:5432/",
			"Credentials": "postgresql://postgres:pw@127.0.0.1:5432/" + db,
			"Query":       "postgresql://127.0.0.1:5432/" + db + "?host=/var/run/postgresql",
			"Scheme":      "mysql://127.0.0.1:3306/" + db,
			"BadPort":     "postgresql://127.0.0.1:99999/" + db,
		} {
			t.Run("Create"+name, func(t *testing.T) {
				before := e.Store.Client.Source.Query().CountX(t.Context())
				r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: pub.Key, Body: map[string]any{
					"type": "postgres", "title": "x", "url_remote": tc}})
				expectStatus(t, r, http.StatusBadRequest)
				if !strings.Contains(string(r.Body), `"url_remote"`) || e.Store.Client.Source.Query().CountX(t.Context()) != before {
					t.Fatalf("body %s", r.Body)
				}
			})
		}
	})
}

// A service whose guard does not allow loopback refuses the database's
// address when the scan dials it.
func TestPostgresSourceGuard(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.NewWith(t, st, func(c *server.Config) { c.FetchAllow = nil })
		pub := e.NewUser(t, "Publisher")
		src := createPGSource(t, e, pub.Key, "postgresql://127.0.0.1:5432/postgres", "postgres")
		sc := waitScan(t, e, pub.Key, src.ID)
		if sc.Status != "failed" || sc.Error == nil || !strings.Contains(*sc.Error, "127.0.0.1 is a private or internal address") {
			t.Fatalf("scan %+v", sc)
		}
		scanLogOf(t, e, pub.Key, sc)
	})
}

// Issue 26.1: a layer's primary key is "detected at import (... the
// source's declared key: GeoPackage/PostGIS primary keys ...)". A table
// whose primary key is a text column named like no id: the datasource
// names it, and the layer imported from it takes it as its key.
func TestPostgresSourceDeclaredKey(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		db, conn := pgScratch(t)
		pgExec(t, conn, `CREATE TABLE parcels (name text, parcel_code text PRIMARY KEY, geom geometry(Point, 4326));
INSERT INTO parcels VALUES ('a', 'P-1', 'SRID=4326;POINT(174.7 -41.2)'), ('b', 'P-2', 'SRID=4326;POINT(174.8 -41.3)');
CREATE TABLE parcels_more (LIKE parcels INCLUDING ALL);
INSERT INTO parcels_more VALUES ('c', 'P-3', 'SRID=4326;POINT(174.9 -41.4)');
CREATE TABLE parcels_again (LIKE parcels INCLUDING ALL);
INSERT INTO parcels_again VALUES ('a', 'P-1', 'SRID=4326;POINT(174.7 -41.2)');`)
		pub := e.NewUser(t, "Publisher")
		src := createPGSource(t, e, pub.Key, "postgresql://127.0.0.1:5432/"+db, "postgres")
		if sc := waitScan(t, e, pub.Key, src.ID); sc.Status != "completed" {
			t.Fatalf("scan %+v", sc)
		}
		var list []struct {
			ID         int      `json:"id"`
			Title      string   `json:"title"`
			PrimaryKey []string `json:"primary_key"`
		}
		r := e.Do(t, req{Path: fmt.Sprintf("/sources/%d/datasources/", src.ID), Key: pub.Key, Header: map[string]string{"Expand": "list"}})
		expectStatus(t, r, http.StatusOK)
		r.JSON(t, &list)
		ds := map[string]int{}
		for _, d := range list {
			if !slices.Equal(d.PrimaryKey, []string{"parcel_code"}) {
				t.Fatalf("datasources %+v: want each table's key", list)
			}
			ds[d.Title] = d.ID
		}
		// One table: its key, unchecked. Several: their key when it holds
		// over all their rows, which repeat each other's here.
		for _, c := range []struct {
			tables []string
			key    []string
		}{{[]string{"parcels"}, []string{"parcel_code"}}, {[]string{"parcels", "parcels_more"}, []string{"parcel_code"}},
			{[]string{"parcels", "parcels_again"}, nil}} {
			var ids []int
			for _, n := range c.tables {
				ids = append(ids, ds[n])
			}
			l := doJSON[layerRecord](t, e, req{Method: "POST", Path: "/layers/", Key: pub.Key, Body: map[string]any{
				"name": "Parcels", "data": map[string]any{"datasources": ids}}}, http.StatusCreated)
			l = waitVersion(t, e, pub.Key, l.ThisVersion)
			if l.Version.Status != "ok" || !slices.Equal(l.Data.PrimaryKeyFields, c.key) {
				t.Fatalf("imported from %v: %+v, want key %v", c.tables, l, c.key)
			}
		}
	})
}
