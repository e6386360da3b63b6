package vectortiles

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// earthCircumference is Web Mercator's width in metres.
const earthCircumference = 2 * math.Pi * 6378137

// postgisQuery makes one layer's tile with PostGIS by the rules of
// encodeCandidates: the spatial index (featurerows.BoxWhere in place of
// {box}) selects the candidates, of which every k-th in fid order is kept
// beyond the zoom's limit; each is cut to the buffered tile in EPSG:4326
// (which also keeps ST_Transform inside Web Mercator's latitudes),
// projected, simplified by one grid unit and clipped, snapped and
// validated by ST_AsMVTGeom. Its ? placeholders take, in order, BoxWhere's
// arguments, the cut's west, south, east, north, the tolerance, z, x, y,
// the version (which keeps the join to its partition), the limit three
// times and the layer name.
const postgisQuery = `WITH k AS (
	SELECT fid, id, row_number() OVER (ORDER BY fid, id) - 1 AS i, count(*) OVER () AS n
	FROM features
	WHERE {box} AND geom IS NOT NULL
), c AS (
	SELECT f.fid, f.attrs, k.i, ST_AsMVTGeom(
		ST_Simplify(ST_Transform(ST_ClipByBox2D(ST_Force2D(ST_GeomFromWKB(f.geom, 4326)),
			ST_MakeEnvelope(?, ?, ?, ?, 4326)), 3857), ?, false),
		ST_TileEnvelope(?, ?, ?), 4096, 64, true) AS g
	FROM k JOIN features f ON f.version_id = ? AND f.id = k.id
	WHERE k.n <= ? OR k.i % ((k.n + ? - 1) / ?) = 0
)
SELECT ST_AsMVT(t, ?, 4096, 'g', 'fid') FROM (
	SELECT fid, attrs, g FROM c WHERE g IS NOT NULL ORDER BY i
) t`

// encodePostGIS builds one layer's tile with ST_AsMVT: nil when no feature
// of the version reaches the tile.
func (s *Service) encodePostGIS(ctx context.Context, versionID int, name string, t Tile, dates map[string]bool) ([]byte, error) {
	query, args := postgisTileQuery(versionID, name, t, dates)
	var out []byte
	if err := s.store.DB.QueryRowContext(ctx, query, args...).Scan(&out); err != nil {
		return nil, fmt.Errorf("making tile %s of version %d with PostGIS: %w", t, versionID, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// postgisTileQuery is postgisQuery for one layer's tile, with its
// arguments; the values of the date fields dates are given as dates.
func postgisTileQuery(versionID int, name string, t Tile, dates map[string]bool) (string, []any) {
	env := t.Envelope(Buffer)
	cut := env
	cut[1], cut[3] = math.Max(cut[1], -maxLat), math.Min(cut[3], maxLat)
	tolerance := earthCircumference / float64(int(1)<<t.Z) / Extent
	where, args := featurerows.BoxWhere(dialect.Postgres, versionID, env)
	query := strings.Replace(postgisQuery, "{box}", where, 1)
	if len(dates) > 0 {
		query = strings.Replace(query, "SELECT fid, attrs, g FROM c", "SELECT fid, "+postgisDates(dates)+" AS attrs, g FROM c", 1)
	}
	query = store.Rebind(query, true)
	limit := FeatureLimit(t.Z)
	return query, append(args, cut[0], cut[1], cut[2], cut[3], tolerance, t.Z, t.X, t.Y, versionID, limit, limit, limit, name)
}

// usePostGIS reports whether PostGIS makes the tiles: on PostgreSQL with
// the postgis extension installed, or installable (CREATE EXTENSION IF NOT
// EXISTS postgis). Decided once per process.
func (s *Service) usePostGIS(ctx context.Context) bool {
	if s.store.Dialect != "postgres" {
		return false
	}
	s.postgisOnce.Do(func() {
		_, err := s.store.DB.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS postgis")
		if err != nil {
			var n int
			if qerr := s.store.DB.QueryRowContext(ctx, "SELECT count(*) FROM pg_extension WHERE extname = 'postgis'").Scan(&n); qerr != nil || n == 0 {
				s.logger.WarnContext(ctx, "PostGIS is not installed: vector tiles are made in-process", "err", err)
				return
			}
		}
		s.postgis = true
	})
	return s.postgis
}

// postgisDates is an expression of c.attrs with the values of the date
// fields dates cut to their date (older imports stored midnight UTC), the
// names as SQL literals.
func postgisDates(dates map[string]bool) string {
	names := make([]string, 0, len(dates))
	for k := range dates {
		names = append(names, "'"+strings.ReplaceAll(k, "'", "''")+"'")
	}
	sort.Strings(names)
	return `(SELECT coalesce(jsonb_object_agg(key, CASE WHEN key IN (` + strings.Join(names, ", ") +
		`) AND jsonb_typeof(value) = 'string' AND value #>> '{}' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T'
		THEN to_jsonb(left(value #>> '{}', 10)) ELSE value END), '{}'::jsonb) FROM jsonb_each(attrs))`
}
