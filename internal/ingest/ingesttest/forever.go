package ingesttest

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// ForeverGeoPackage writes dir/forever.gpkg: the GeoPackage of
// GeoPackage plus a features layer "forever", a view over a recursive
// query with no end that never yields a row, so reading it runs one
// SQLite statement forever.
func ForeverGeoPackage(t testing.TB, dir string) string {
	t.Helper()
	tmp := t.TempDir()
	GeoPackage(t, tmp)
	path := filepath.Join(dir, "forever.gpkg")
	b, err := os.ReadFile(filepath.Join(tmp, "transport.gpkg"))
	must(t, err)
	must(t, os.WriteFile(path, b, 0o644))
	db, err := sql.Open("sqlite", path)
	must(t, err)
	defer db.Close()
	for _, q := range []string{
		`CREATE VIEW forever AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
		 SELECT n AS fid, (SELECT geom FROM roads LIMIT 1) AS geom FROM r WHERE n < 0`,
		`INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('forever', 'features', 'forever', 4326)`,
		`INSERT INTO gpkg_geometry_columns VALUES ('forever', 'geom', 'LINESTRING', 4326, 0, 0)`,
	} {
		_, err := db.Exec(q)
		must(t, err)
	}
	return path
}
