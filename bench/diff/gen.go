package main

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/ent/schema/schematype"
)

// The two versions: A is benchkit's n points (ids 1..n; attributes id,
// name, category, value, surveyed, active). B is A with one feature in a
// hundred changed, spread evenly over the ids: of every 300, one deleted,
// one updated and one inserted with a new id (n+1, n+2, …). The updates
// take turns: a new name, a moved point, a new value and a moved point.
const (
	period   = 300
	deleteAt = 7
	updateAt = 107
	versionA = 1
	versionB = 2
)

// fields is both versions' schema.
var fields = []schematype.Field{
	{Name: "GEOMETRY", Type: "geometry"}, {Name: "id", Type: "integer"}, {Name: "name", Type: "string"},
	{Name: "category", Type: "string"}, {Name: "value", Type: "double"}, {Name: "surveyed", Type: "date"},
	{Name: "active", Type: "boolean"},
}

// counts are the changes from A to B.
type counts struct {
	Inserts int64 `json:"inserts"`
	Updates int64 `json:"updates"`
	Deletes int64 `json:"deletes"`
}

func (c counts) total() int64 { return c.Inserts + c.Updates + c.Deletes }

// expected is what the generator changes from A to B with n features.
func expected(n int) counts {
	var c counts
	for id := 1; id <= n; id++ {
		switch id % period {
		case deleteAt:
			c.Deletes++
		case updateAt:
			c.Updates++
		}
	}
	c.Inserts = int64(n / period)
	return c
}

// generate calls fn with the features of version v (versionA or versionB)
// in id order, the inserted ones last.
func generate(n, v int, fn func(benchkit.Feature) error) error {
	var upd int
	err := benchkit.NewGenerator().Points(n, func(f benchkit.Feature) error {
		if v == versionB {
			id := f.FID
			switch id % period {
			case deleteAt:
				return nil
			case updateAt:
				switch upd % 4 {
				case 0:
					f.Attrs["name"] = f.Attrs["name"].(string) + " (renamed)"
				case 2:
					f.Attrs["value"] = f.Attrs["value"].(float64) + 1
				default:
					// A metre or so east.
					x := math.Float64frombits(binary.LittleEndian.Uint64(f.WKB[5:]))
					y := math.Float64frombits(binary.LittleEndian.Uint64(f.WKB[13:]))
					f.WKB = benchkit.PointWKB(x+0.00001, y)
				}
				upd++
			}
		}
		return fn(f)
	})
	if err != nil || v != versionB {
		return err
	}
	// The inserts: new ids after A's, drawn from a stream of their own.
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range n / period {
		id := n + i + 1
		x := benchkit.MinLon + rng.Float64()*(benchkit.MaxLon-benchkit.MinLon)
		y := benchkit.MinLat + rng.Float64()*(benchkit.MaxLat-benchkit.MinLat)
		attrs := map[string]any{
			"id": int64(id), "name": "New feature", "category": "wharf", "value": float64(i),
			"surveyed": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), "active": true,
		}
		if err := fn(benchkit.Feature{FID: int64(id), WKB: benchkit.PointWKB(x, y), Attrs: attrs}); err != nil {
			return err
		}
	}
	return nil
}
