package pgsource

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/jackc/pgx/v5"

	"github.com/geopub/geopub/internal/gdal"
	"github.com/geopub/geopub/internal/remote"
)

// fetchFile is the GeoPackage Fetch writes.
const fetchFile = "data.gpkg"

// fetchBatch is how many rows one FETCH from the cursor reads.
const fetchBatch = 2000

// Fetch copies the rows of the table or view at path ("schema.table")
// into a GeoPackage under dir, through a server-side cursor: no more than
// fetchBatch rows are in memory at once. Types and CRS are kept;
// timestamps are read in UTC.
func (Kind) Fetch(ctx context.Context, c remote.Conn, path, dir string, progress func(float64)) (file, layer string, err error) {
	conn, t, err := connect(ctx, c)
	if err != nil {
		return "", "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rels, err := listRelations(ctx, conn, c.Schemas)
	if err != nil {
		return "", "", queryError(err, t, c)
	}
	var r *relation
	for _, x := range rels {
		if x.path() == path {
			r = x
		}
	}
	if r == nil {
		return "", "", remote.Permanent(fmt.Sprintf("The table or view %s is no longer in the database (or may no longer be read).", path))
	}
	if r.geom != nil {
		if err := readGeometry(ctx, conn, r); err != nil {
			return "", "", queryError(err, t, c)
		}
	}
	if err := copyRows(ctx, conn, r, filepath.Join(dir, fetchFile), progress); err != nil {
		if _, ok := err.(localError); ok {
			return "", "", err
		}
		return "", "", queryError(err, t, c)
	}
	progress(1)
	return fetchFile, r.name, nil
}

// localError is a failure writing the local file (not the database's).
type localError struct{ error }

// selectList reads each column as the Go type its field type needs: the
// geometry as WKB, then the fields in order.
func selectList(r *relation) (sql string, names, kinds []string) {
	sql = "SELECT "
	if r.geom != nil {
		sql += "ST_AsBinary(t." + pgx.Identifier{r.geom.name}.Sanitize() + "::geometry)"
	} else {
		sql += "NULL::bytea"
	}
	for _, col := range r.columns {
		if col.kind == "geometry" {
			continue
		}
		cast := map[string]string{"integer": "int8", "double": "float8", "boolean": "bool", "date": "date",
			"datetime": "timestamptz", "time": "text", "string": "text"}[col.kind]
		sql += ", t." + pgx.Identifier{col.name}.Sanitize() + "::" + cast
		names, kinds = append(names, col.name), append(kinds, col.kind)
	}
	return sql + " FROM " + r.quoted() + " AS t", names, kinds
}

// copyRows writes the relation's rows into a GeoPackage at path,
// reporting progress against the planner's row estimate (none for views
// and tables never analysed).
func copyRows(ctx context.Context, conn *pgx.Conn, r *relation, path string, progress func(float64)) error {
	var estimate float64
	if err := conn.QueryRow(ctx, "SELECT reltuples::float8 FROM pg_catalog.pg_class WHERE oid = $1::int8::oid", r.oid).Scan(&estimate); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "SET TIME ZONE 'UTC'"); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	query, names, kinds := selectList(r)
	if _, err := tx.Exec(ctx, "DECLARE geopub_rows NO SCROLL CURSOR FOR "+query); err != nil {
		return err
	}
	gtype := ""
	if r.geom != nil {
		gtype = r.geometryType
	}
	w, err := gdal.CreateGPKG(path, r.name, gtype, r.dims, r.crs, names, kinds)
	if err != nil {
		return localError{err}
	}
	defer w.Abort()
	var done float64
	for {
		if estimate > 0 {
			progress(min(done/estimate, 0.99))
		}
		rows, err := tx.Query(ctx, fmt.Sprintf("FETCH %d FROM geopub_rows", fetchBatch))
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			n++
			vals, err := rows.Values()
			if err != nil {
				rows.Close()
				return err
			}
			wkb, _ := vals[0].([]byte)
			if err := w.Write(wkb, vals[1:]); err != nil {
				rows.Close()
				return localError{err}
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		done += float64(n)
		if n < fetchBatch {
			break
		}
	}
	if err := w.Close(); err != nil {
		return localError{err}
	}
	return nil
}
