package pgsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/remote"
)

// Format is the format of PostgreSQL datasources.
const Format = "application/x-postgresql"

// relation is one table or view with its columns.
type relation struct {
	oid          int64
	schema, name string
	columns      []column
	geom         *column // the first geometry or geography column, nil for tables
	otherGeoms   []string
	crs          string
	srid         int
	geometryType string
	dims         int
	geography    bool
}

// column is one column and how it is read.
type column struct {
	name, typ, formatted string
	kind                 string // field type: integer, double, string, boolean, date, datetime; "geometry"
}

// path names a relation: "schema.table".
func (r relation) path() string { return r.schema + "." + r.name }

// quoted is the relation's name as SQL.
func (r relation) quoted() string {
	return pgx.Identifier{r.schema, r.name}.Sanitize()
}

// relationsSQL lists readable tables, views, materialized views,
// partitioned and foreign tables, outside system schemas, that no
// extension owns (PostGIS's spatial_ref_sys and its views).
const relationsSQL = `
SELECT c.oid::int8, n.nspname, c.relname
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND NOT c.relispartition
  AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'
  AND (cardinality($1::text[]) = 0 OR n.nspname = ANY($1::text[]))
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                  WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
  AND has_table_privilege(c.oid, 'SELECT')
ORDER BY n.nspname, c.relname`

// columnsSQL lists the columns of relations, domains read as their base
// type.
const columnsSQL = `
SELECT a.attrelid::int8, a.attname, bt.typname, format_type(a.atttypid, a.atttypmod)
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
JOIN pg_catalog.pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
WHERE a.attrelid::int8 = ANY($1::int8[]) AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attrelid, a.attnum`

// fieldKinds are the field types of the catalogue's base types; others
// are read as text.
var fieldKinds = map[string]string{
	"int2": "integer", "int4": "integer", "int8": "integer", "oid": "integer",
	"float4": "double", "float8": "double", "numeric": "double",
	"bool": "boolean", "date": "date", "timestamp": "datetime", "timestamptz": "datetime", "time": "time",
	"geometry": "geometry", "geography": "geometry",
}

// Discover lists the source's tables and views.
func (Kind) Discover(ctx context.Context, c remote.Conn, note func(string)) ([]ingest.Datasource, error) {
	conn, t, err := connect(ctx, c)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	note(fmt.Sprintf("Connected to %s, database %s", t.addr(), t.database))
	rels, err := listRelations(ctx, conn, c.Schemas)
	if err != nil {
		return nil, queryError(err, t, c)
	}
	out := make([]ingest.Datasource, 0, len(rels))
	for _, r := range rels {
		for _, g := range r.otherGeoms {
			note(fmt.Sprintf("  %s: geometry column %s left out (only the first geometry column is read)", r.path(), g))
		}
		d, err := describeRelation(ctx, conn, r)
		var pe *pgconn.PgError
		if errors.As(err, &pe) && conn.PgConn().TxStatus() == 'I' {
			// The server could not read this one (a view whose query
			// fails, a foreign table whose server is down): the others
			// are still listed.
			note(fmt.Sprintf("  Skipped %s: %s", r.path(), pgFailure(pe, t, c).Error()))
			continue
		}
		if err != nil {
			return nil, queryError(err, t, c)
		}
		out = append(out, d)
	}
	return out, nil
}

func listRelations(ctx context.Context, conn *pgx.Conn, schemas []string) ([]*relation, error) {
	if schemas == nil {
		schemas = []string{}
	}
	rows, err := conn.Query(ctx, relationsSQL, schemas)
	if err != nil {
		return nil, err
	}
	var rels []*relation
	byOID := map[int64]*relation{}
	for rows.Next() {
		r := &relation{}
		if err := rows.Scan(&r.oid, &r.schema, &r.name); err != nil {
			return nil, err
		}
		rels = append(rels, r)
		byOID[r.oid] = r
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	oids := make([]int64, 0, len(rels))
	for _, r := range rels {
		oids = append(oids, r.oid)
	}
	rows, err = conn.Query(ctx, columnsSQL, oids)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var oid int64
		var col column
		if err := rows.Scan(&oid, &col.name, &col.typ, &col.formatted); err != nil {
			return nil, err
		}
		col.kind = fieldKinds[col.typ]
		if col.kind == "" {
			col.kind = "string"
		}
		r := byOID[oid]
		if col.kind == "geometry" && slices.ContainsFunc(r.columns, isGeometry) {
			r.otherGeoms = append(r.otherGeoms, col.name)
			continue
		}
		r.columns = append(r.columns, col)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, r := range rels {
		if i := slices.IndexFunc(r.columns, isGeometry); i >= 0 {
			r.geom = &r.columns[i]
		}
	}
	return rels, nil
}

func isGeometry(c column) bool { return c.kind == "geometry" }

// typmod reads format_type's geometry(PointZ,4326).
var typmod = regexp.MustCompile(`^(geometry|geography)\((\w+)(?:,(\d+))?\)$`)

// geometryNames maps PostGIS type words to Geopub's geometry types.
var geometryNames = map[string]string{
	"point": "point", "linestring": "linestring", "polygon": "polygon", "multipoint": "multipoint",
	"multilinestring": "multilinestring", "multipolygon": "multipolygon", "geometrycollection": "geometrycollection",
	"circularstring": "linestring", "compoundcurve": "linestring", "curvepolygon": "polygon", "triangle": "polygon",
	"multicurve": "multilinestring", "multisurface": "multipolygon", "polyhedralsurface": "multipolygon", "tin": "multipolygon",
}

// parseGeometryType reads a PostGIS type word such as MultiPolygonZ.
func parseGeometryType(word string) (name string, dims int) {
	w := strings.ToLower(word)
	dims = 2
	switch {
	case strings.HasSuffix(w, "zm"):
		w, dims = strings.TrimSuffix(w, "zm"), 3
	case strings.HasSuffix(w, "z"):
		w, dims = strings.TrimSuffix(w, "z"), 3
	case strings.HasSuffix(w, "m") && w != "geometry":
		w = strings.TrimSuffix(w, "m")
	}
	if n, ok := geometryNames[w]; ok {
		return n, dims
	}
	return "geometry", dims
}

// describeRelation reads a relation's geometry, counts its rows and
// hashes them (the fingerprint): every row's text form is hashed and the
// hashes summed, so any insert, delete or change of a value changes the
// sum whatever the rows' order. It costs one sequential read of the
// relation on the server per scan; nothing but the sums crosses the
// network.
func describeRelation(ctx context.Context, conn *pgx.Conn, r *relation) (ingest.Datasource, error) {
	d := ingest.Datasource{Path: r.path(), Title: r.name, DataType: ingest.TypeTable, Format: Format}
	if r.geom != nil {
		if err := readGeometry(ctx, conn, r); err != nil {
			return d, err
		}
		d.DataType, d.GeometryType, d.GeometryField, d.CRS, d.NumDims = ingest.TypeVector, r.geometryType, r.geom.name, r.crs, r.dims
	}
	for _, col := range r.columns {
		if col.kind != "geometry" {
			d.Fields = append(d.Fields, ingest.Field{Name: col.name, Type: col.kind})
		}
	}
	key, err := primaryKey(ctx, conn, r)
	if err != nil {
		return d, err
	}
	d.PrimaryKey = key
	q := "SELECT count(*), coalesce(sum(('x' || left(md5(t::text), 15))::bit(60)::bigint), 0)::text"
	if r.geom != nil {
		q += ", ST_Extent(t." + pgx.Identifier{r.geom.name}.Sanitize() + "::geometry)::text"
	} else {
		q += ", NULL::text"
	}
	q += " FROM " + r.quoted() + " AS t"
	var sum string
	var box *string
	if err := conn.QueryRow(ctx, q).Scan(&d.FeatureCount, &sum, &box); err != nil {
		return d, err
	}
	if box != nil && r.srid > 0 {
		ext, err := lonLatBox(ctx, conn, *box, r.srid)
		if err != nil {
			return d, err
		}
		d.Extent = ext
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d|%s|%s|%s|%d", d.FeatureCount, sum, d.GeometryType, d.CRS, d.NumDims)
	for _, col := range r.columns {
		fmt.Fprintf(h, "|%s %s", col.name, col.formatted)
	}
	d.Fingerprint = hex.EncodeToString(h.Sum(nil))[:32]
	return d, nil
}

// readGeometry reads the geometry column's type, SRID and dimensions
// from its type modifier, or from its first value when it has none (an
// unconstrained column, a computed view column).
func readGeometry(ctx context.Context, conn *pgx.Conn, r *relation) error {
	r.geography = r.geom.typ == "geography"
	r.geometryType, r.dims = "geometry", 2
	if m := typmod.FindStringSubmatch(r.geom.formatted); m != nil {
		r.geometryType, r.dims = parseGeometryType(m[2])
		if m[3] != "" {
			r.srid, _ = strconv.Atoi(m[3])
		}
	}
	if r.geography && r.srid == 0 {
		r.srid = 4326
	}
	if r.geometryType == "geometry" || r.srid == 0 {
		col := pgx.Identifier{r.geom.name}.Sanitize()
		var word string
		var srid, dims int
		err := conn.QueryRow(ctx, fmt.Sprintf("SELECT GeometryType(%s::geometry), ST_SRID(%s::geometry), ST_NDims(%s::geometry) FROM %s WHERE %s IS NOT NULL LIMIT 1",
			col, col, col, r.quoted(), col)).Scan(&word, &srid, &dims)
		switch {
		case err == pgx.ErrNoRows:
		case err != nil:
			return err
		default:
			if r.geometryType == "geometry" {
				r.geometryType, _ = parseGeometryType(word)
				r.dims = min(max(dims, 2), 3)
			}
			if r.srid == 0 {
				r.srid = srid
			}
		}
	}
	if r.srid > 0 {
		var auth *string
		var code *int
		var wkt *string
		err := conn.QueryRow(ctx, "SELECT auth_name, auth_srid, srtext FROM spatial_ref_sys WHERE srid = $1", r.srid).Scan(&auth, &code, &wkt)
		switch {
		case err == pgx.ErrNoRows:
			r.crs = fmt.Sprintf("EPSG:%d", r.srid)
		case err != nil:
			return err
		case auth != nil && strings.EqualFold(*auth, "EPSG") && code != nil:
			r.crs = fmt.Sprintf("EPSG:%d", *code)
		case wkt != nil:
			r.crs = *wkt
		}
	}
	return nil
}

// lonLatBox reprojects an extent (box2d text) in srid to EPSG:4326.
func lonLatBox(ctx context.Context, conn *pgx.Conn, box string, srid int) (*[4]float64, error) {
	var e [4]float64
	err := conn.QueryRow(ctx, `SELECT ST_XMin(b), ST_YMin(b), ST_XMax(b), ST_YMax(b)
		FROM (SELECT ST_Transform(ST_SetSRID($1::box2d::geometry, $2::int), 4326) AS b) s`, box, srid).Scan(&e[0], &e[1], &e[2], &e[3])
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// primaryKeySQL lists the columns of a relation's primary key in key
// order (none for views and tables without one).
const primaryKeySQL = `
SELECT a.attname
FROM pg_catalog.pg_index i
  CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
  JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
WHERE i.indrelid = $1::int8::oid AND i.indisprimary
ORDER BY k.ord`

// primaryKey is the relation's declared key when a layer can keep it:
// every column read as an integer or a string field. A key with another
// column (a timestamp, a number with decimals) is no key of the layer.
func primaryKey(ctx context.Context, conn *pgx.Conn, r *relation) ([]string, error) {
	rows, err := conn.Query(ctx, primaryKeySQL, r.oid)
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		i := slices.IndexFunc(r.columns, func(c column) bool { return c.name == n })
		if i < 0 || (r.columns[i].kind != "integer" && r.columns[i].kind != "string") {
			return nil, nil
		}
	}
	return names, nil
}
