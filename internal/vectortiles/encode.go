package vectortiles

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/features"
	"github.com/geopub/geopub/internal/store"
)

// LayerName is the MVT layer name of layer id.
func LayerName(id int) string { return "layer-" + strconv.Itoa(id) }

// boxQuery selects a version's features whose boxes meet an envelope
// through the spatial index, in fid order.
func boxQuery(st *store.Store, versionID int, env [4]float64) (string, []any) {
	where, args := features.BoxWhere(st.Dialect, versionID, env)
	return placeholders(st, "SELECT fid, geom, attrs FROM features WHERE "+where+" ORDER BY fid, id"), args
}

// encodeInProcess builds one layer's tile in Go: nil when no feature of
// the version reaches the tile.
func encodeInProcess(ctx context.Context, st *store.Store, versionID int, name string, t Tile) ([]byte, error) {
	env := t.Envelope(Buffer)
	query, args := boxQuery(st, versionID, env)
	rows, err := st.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the features of version %d for tile %s: %w", versionID, t, err)
	}
	defer rows.Close()
	proj := t.project()
	var fs []*geojson.Feature
	for rows.Next() {
		var fid int64
		var g, attrs []byte
		if err := rows.Scan(&fid, &g, &attrs); err != nil {
			return nil, fmt.Errorf("reading the features of version %d for tile %s: %w", versionID, t, err)
		}
		if len(g) == 0 {
			continue
		}
		decoded, err := wkb.Unmarshal(g)
		if err != nil {
			continue // a geometry the import could not have written: left out
		}
		tg := toTile(decoded, proj)
		if tg == nil {
			continue
		}
		props, err := properties(attrs)
		if err != nil {
			return nil, fmt.Errorf("version %d feature %d: %w", versionID, fid, err)
		}
		fs = append(fs, &geojson.Feature{ID: fid, Geometry: tg, Properties: props})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the features of version %d for tile %s: %w", versionID, t, err)
	}
	fs = thin(fs)
	if len(fs) == 0 {
		return nil, nil
	}
	return mvt.Marshal(mvt.Layers{{Name: name, Version: 2, Extent: Extent, Features: fs}})
}

// featureLimit is MaxFeatures, lowered by tests.
var featureLimit = MaxFeatures

// thin keeps every k-th feature when more than MaxFeatures remain,
// k = ceil(n / MaxFeatures).
func thin[T any](fs []T) []T {
	n := len(fs)
	if n <= featureLimit {
		return fs
	}
	k := (n + featureLimit - 1) / featureLimit
	out := fs[:0]
	for i := 0; i < n; i += k {
		out = append(out, fs[i])
	}
	return out
}

// placeholders rewrites ? to $n on PostgreSQL.
func placeholders(st *store.Store, query string) string {
	if st.Dialect != "postgres" {
		return query
	}
	var b bytes.Buffer
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}
