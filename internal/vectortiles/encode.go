package vectortiles

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/paulmach/orb"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// LayerName is the MVT layer name of layer id.
func LayerName(id int) string { return "layer-" + strconv.Itoa(id) }

// boxQuery selects a version's features with a geometry whose boxes meet
// an envelope through the spatial index, in fid order.
func boxQuery(st *store.Store, versionID int, env [4]float64) (string, []any) {
	where, args := featurerows.BoxWhere(st.Dialect, versionID, env)
	return placeholders(st, "SELECT fid, geom, attrs FROM features WHERE "+where+" AND geom IS NOT NULL ORDER BY fid, id"), args
}

// candidate is a feature whose box meets a tile, before its geometry is
// fitted to the tile.
type candidate struct {
	fid   int64
	wkb   []byte // nil for a point, at x, y
	x, y  float64
	attrs []byte
}

// encodeInProcess builds one layer's tile in Go from the features the
// store selects: nil when no feature of the version reaches the tile.
func encodeInProcess(ctx context.Context, st *store.Store, versionID int, name string, t Tile, dates map[string]bool) ([]byte, error) {
	env := t.Envelope(Buffer)
	query, args := boxQuery(st, versionID, env)
	release, err := st.HeavyRead(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	rows, err := st.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the features of version %d for tile %s: %w", versionID, t, err)
	}
	defer rows.Close()
	var cs []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.fid, &c.wkb, &c.attrs); err != nil {
			return nil, fmt.Errorf("reading the features of version %d for tile %s: %w", versionID, t, err)
		}
		cs = append(cs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the features of version %d for tile %s: %w", versionID, t, err)
	}
	return encodeCandidates(thin(cs, FeatureLimit(t.Z)), name, t, dates)
}

// encodeCandidates builds one layer's tile of the candidates, in fid
// order and already thinned to the zoom's FeatureLimit (thin): each is
// projected and fitted to the tile (those left with nothing dropped) with
// its attributes as properties, those of the date fields dates as dates.
// nil when no feature reaches the tile.
func encodeCandidates(cs []candidate, name string, t Tile, dates map[string]bool) ([]byte, error) {
	proj := t.project()
	w := getLayerWriter()
	defer putLayerWriter(w)
	for _, c := range cs {
		var tg orb.Geometry
		if c.wkb == nil {
			p, ok := fitPoint(c.x, c.y, proj)
			if !ok {
				continue
			}
			tg = p
		} else {
			decoded, err := wkb.Unmarshal(c.wkb)
			if err != nil {
				continue // a geometry the import could not have written: left out
			}
			tg = toTile(decoded, proj)
		}
		if tg == nil {
			continue
		}
		var err error
		if w.pairs, err = attrPairs(c.attrs, w.pairs[:0]); err != nil {
			return nil, fmt.Errorf("feature %d: %w", c.fid, err)
		}
		datesOnly(w.pairs, dates)
		w.add(c.fid, tg, w.pairs)
	}
	return w.bytes(name), nil
}

// featureLimit is MaxFeatures, lowered by tests.
var featureLimit = MaxFeatures

// thin keeps every k-th of fs when more than limit, k = ceil(n / limit).
func thin[T any](fs []T, limit int) []T {
	n := len(fs)
	if n <= limit {
		return fs
	}
	k := (n + limit - 1) / limit
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

// datesOnly gives the string values of the date fields dates as dates
// (featurerows.DateOnly): older imports stored them as midnight UTC.
func datesOnly(ps []pair, dates map[string]bool) {
	if len(dates) == 0 {
		return
	}
	for i, p := range ps {
		if p.kind == kindString && len(p.s) > 10 && dates[string(p.key)] {
			if d := featurerows.DateOnly(string(p.s)); len(d) == 10 {
				ps[i].s = p.s[:10]
			}
		}
	}
}
