package tilearchive

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// TileType is the kind of tiles an archive holds.
type TileType string

// The tile types.
const (
	TypeMVT  TileType = "mvt"
	TypePNG  TileType = "png"
	TypeJPG  TileType = "jpg"
	TypeWebP TileType = "webp"
)

// Source makes one tile; nil data means the tile is empty. Empty tiles
// are not written and their children are not visited (the walk descends
// only under non-empty tiles). Tile is called from several goroutines
// at once (Options.Workers).
type Source interface {
	Tile(ctx context.Context, z, x, y int) ([]byte, error)
}

// SourceFunc is a function as a Source.
type SourceFunc func(ctx context.Context, z, x, y int) ([]byte, error)

// Tile calls f.
func (f SourceFunc) Tile(ctx context.Context, z, x, y int) ([]byte, error) { return f(ctx, z, x, y) }

// Options says what to write.
type Options struct {
	MinZoom, MaxZoom int
	// Bounds are west, south, east, north in EPSG:4326; the walk starts
	// from the tiles meeting them. Zero means the whole world.
	Bounds [4]float64
	Type   TileType
	// Compressed says the Source's tile data is already gzip-compressed
	// (MVT from the cache) rather than plain.
	Compressed                     bool
	Name, Description, Attribution string
	// Metadata is extra JSON metadata (vector_layers for MVT).
	Metadata map[string]any
	// Workers is how many tiles are made in parallel (default GOMAXPROCS).
	Workers int
	// Progress, when set, is called now and then from the writing
	// goroutine with the tiles visited and an estimate of the total.
	Progress func(done, estimate int64)
	// MaxTiles and MaxBytes, when positive, bound the tiles written and
	// their stored bytes: going over stops the walk with ErrTooLarge.
	MaxTiles int64
	MaxBytes int64
}

// Stats tells what was written.
type Stats struct {
	// Tiles is the non-empty tiles written (addressed), Empty the tiles
	// the Source found empty, Unique the distinct tile contents stored.
	Tiles, Empty, Unique int64
	// Bytes is the size of the archive (PMTiles) or of the tile data
	// stored (MBTiles).
	Bytes int64
	// MinZoom and MaxZoom are the shallowest and deepest zoom holding a
	// tile (the options' range when there is none), Bounds the bounds
	// walked (defaulted and clamped).
	MinZoom, MaxZoom int
	Bounds           [4]float64
}

// ErrTooLarge is returned when an archive would exceed MaxTiles or
// MaxBytes.
var ErrTooLarge = errors.New("tilearchive: the archive exceeds its size limit")

// ErrEmpty is returned by WritePMTiles when the walk found no non-empty
// tile: a PMTiles directory must hold at least one entry, so no archive
// is written (w receives nothing).
var ErrEmpty = errors.New("tilearchive: no tile to write")

// tooLarge wraps ErrTooLarge with what went over.
func tooLarge(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrTooLarge}, args...)...)
}

// tile is one non-empty tile in walk order.
type tile struct {
	id      uint64
	z, x, y int
	data    []byte
	sum     digest
}

// digest identifies a tile's content: the first 128 bits of its SHA-256
// (collisions are out of reach at any archive size).
type digest [16]byte

func digestOf(b []byte) digest {
	s := sha256.Sum256(b)
	return digest(s[:16])
}

// maxFirstLevel bounds the tiles of the walk's first zoom, every one of
// which is listed before the walk starts (8 bytes each).
const maxFirstLevel = 1 << 24

// walk visits the tiles of o level by level and calls emit for each
// non-empty tile in tile-ID order, from one goroutine. It returns the
// number of empty tiles visited.
func walk(ctx context.Context, src Source, o Options, box [4]float64, emit func(t *tile) error) (empty int64, err error) {
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	total := Estimate(o)
	var done int64
	var level []uint64 // the tile IDs to visit at zoom z, sorted
	first := spanOf(box, o.MinZoom)
	if first.count() > maxFirstLevel {
		return 0, tooLarge("%d tiles at zoom %d, the walk's first level (at most %d)", first.count(), o.MinZoom, maxFirstLevel)
	}
	level = make([]uint64, 0, first.count())
	for x := first.x0; x <= first.x1; x++ {
		for y := first.y0; y <= first.y1; y++ {
			level = append(level, TileID(o.MinZoom, x, y))
		}
	}
	slices.Sort(level)
	for z := o.MinZoom; z <= o.MaxZoom && len(level) > 0; z++ {
		var next []uint64
		var child span
		deeper := z < o.MaxZoom
		if deeper {
			child = spanOf(box, z+1)
		}
		nonEmpty := int64(0)
		visit := func(i int, t *tile) error {
			done++
			if t == nil {
				empty++
			} else {
				nonEmpty++
				if deeper {
					var kids [4]uint64
					k := 0
					for dx := 0; dx < 2; dx++ {
						for dy := 0; dy < 2; dy++ {
							cx, cy := 2*t.x+dx, 2*t.y+dy
							if child.has(cx, cy) {
								kids[k] = TileID(z+1, cx, cy)
								k++
							}
						}
					}
					slices.Sort(kids[:k])
					next = append(next, kids[:k]...)
				}
				if err := emit(t); err != nil {
					return err
				}
			}
			if o.Progress != nil && (done%256 == 0 || i == len(level)-1) {
				left := int64(len(level) - 1 - i)
				est := done + left
				if deeper {
					est += 4 * (nonEmpty + left)
				}
				o.Progress(done, min(max(est, done), max(total, done)))
			}
			return nil
		}
		if err := makeLevel(ctx, src, z, level, workers, visit); err != nil {
			return empty, err
		}
		level = next
	}
	if o.Progress != nil {
		o.Progress(done, done)
	}
	return empty, nil
}

// result is one tile being made.
type result struct {
	t    *tile
	err  error
	done chan struct{}
}

// makeLevel makes the tiles ids (of zoom z) with a pool of workers and
// calls visit with each in order (nil for an empty tile). At most a
// window of tiles is held in memory at once.
func makeLevel(ctx context.Context, src Source, z int, ids []uint64, workers int, visit func(i int, t *tile) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct {
		id uint64
		r  *result
	}
	window := make(chan *result, 4*workers)
	jobs := make(chan job)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.r.t, j.r.err = makeTile(ctx, src, j.id)
				close(j.r.done)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		defer close(window)
		for _, id := range ids {
			r := &result{done: make(chan struct{})}
			select {
			case window <- r:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{id, r}:
			case <-ctx.Done():
				r.err = ctx.Err()
				close(r.done)
				return
			}
		}
	}()
	i := 0
	for r := range window {
		<-r.done
		if r.err != nil {
			return r.err
		}
		if err := visit(i, r.t); err != nil {
			return err
		}
		i++
	}
	if i < len(ids) {
		// The producer stopped early: the context ended.
		if err := ctx.Err(); err != nil {
			return err
		}
		return context.Canceled
	}
	return nil
}

// makeTile asks src for tile id.
func makeTile(ctx context.Context, src Source, id uint64) (*tile, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	z, x, y := TileZXY(id)
	data, err := src.Tile(ctx, z, x, y)
	if err != nil {
		return nil, fmt.Errorf("tilearchive: tile %d/%d/%d: %w", z, x, y, err)
	}
	if len(data) == 0 {
		return nil, nil
	}
	return &tile{id: id, z: z, x: x, y: y, data: data, sum: digestOf(data)}, nil
}
