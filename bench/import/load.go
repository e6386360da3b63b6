package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/importing"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/store"
)

// loadResult is what the load child reports on stdout.
type loadResult struct {
	Rows        int64         `json:"rows"`
	Wall        time.Duration `json:"wall"`
	Transform   time.Duration `json:"transform"`
	Write       time.Duration `json:"write"`
	Commit      time.Duration `json:"commit"`
	MaxRSS      int64         `json:"max_rss"`      // bytes, getrusage self
	PeakHeap    uint64        `json:"peak_heap"`    // bytes, sampled
	TotalAlloc  uint64        `json:"total_alloc"`  // bytes
	HeapObjects uint64        `json:"heap_objects"` // at the end
}

// load is our import path: ingest.Records, reprojection to EPSG:4326,
// importing.RowEncoder, featurerows.Writer into the database and the
// extent query, in one
// transaction, as the import job (internal/importing) does it. It leaves
// out what is not per feature: copying the upload out of blob storage and
// the publish transaction, which only flips the version's state.
func load(ctx context.Context, src, dbURL, dataDir, cpuProfile string) error {
	stopProfile, err := benchkit.Profile(cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	peak := make(chan uint64)
	stop := make(chan struct{})
	go benchkit.SamplePeakHeap(stop, peak)

	start := time.Now()
	if dbURL == "none" {
		return readOnly(ctx, src, start, stop, peak)
	}
	st, err := store.OpenAndMigrate(ctx, store.Config{DatabaseURL: dbURL, DataDir: dataDir})
	if err != nil {
		return err
	}
	defer st.Close()
	ds := ingest.Datasource{Path: filepath.Base(src), DataType: ingest.TypeVector, CRS: ingest.EPSG4326}
	trn, err := newReprojector(ds.CRS)
	if err != nil {
		return err
	}
	defer trn.Close()

	var res loadResult
	err = st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		w, err := featurerows.NewWriter(ctx, st, tx, 1)
		if err != nil {
			return err
		}
		recs, err := ingest.OpenRecords(ctx, filepath.Dir(src), ds)
		if err != nil {
			return err
		}
		defer recs.Close()
		rows := importing.NewRowEncoder(recs.Fields(), nil, nil)
		for {
			rec, err := recs.Next()
			if err != nil {
				return err
			}
			if rec == nil {
				break
			}
			t0 := time.Now()
			g, err := trn.wkb(rec.Geometry)
			if err != nil {
				return err
			}
			t1 := time.Now()
			err = w.Write(rows.Row(rec, rec.FID, g))
			res.Transform += t1.Sub(t0)
			res.Write += time.Since(t1)
			if err != nil {
				return err
			}
		}
		t0 := time.Now()
		if res.Rows, err = w.Close(); err != nil {
			return err
		}
		// The import job records the version's extent in its transaction.
		_, _, err = featurerows.ExtentTx(ctx, st, tx, 1)
		res.Write += time.Since(t0)
		return err
	})
	if err != nil {
		return err
	}
	res.Wall = time.Since(start)
	if n, err := featurerows.Count(ctx, st, 1); err != nil || n != res.Rows {
		return fmt.Errorf("count after commit: %d, %v; wrote %d", n, err, res.Rows)
	}
	close(stop)
	res.PeakHeap = <-peak
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.TotalAlloc, res.HeapObjects = ms.TotalAlloc, ms.HeapObjects
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		res.MaxRSS = ru.Maxrss * 1024
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// readOnly is the reading half of load alone (ReadFeatures and
// reprojection, no database), to show what the writer adds.
func readOnly(ctx context.Context, src string, start time.Time, stop chan struct{}, peak chan uint64) error {
	ds := ingest.Datasource{Path: filepath.Base(src), DataType: ingest.TypeVector, CRS: ingest.EPSG4326}
	trn, err := newReprojector(ds.CRS)
	if err != nil {
		return err
	}
	defer trn.Close()
	var res loadResult
	err = ingest.ReadFeatures(ctx, filepath.Dir(src), ds, func(f ingest.Feature) error {
		t0 := time.Now()
		_, err := trn.wkb(f.Geometry)
		res.Transform += time.Since(t0)
		res.Rows++
		return err
	})
	if err != nil {
		return err
	}
	res.Wall = time.Since(start)
	close(stop)
	res.PeakHeap = <-peak
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		res.MaxRSS = ru.Maxrss * 1024
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// reprojector reprojects to EPSG:4326 as the import job does: not at all
// when the data is in EPSG:4326 already (internal/importing skips it).
type reprojector struct{ tr *ingest.Transformer }

func newReprojector(crs string) (*reprojector, error) {
	if crs == ingest.EPSG4326 {
		return &reprojector{}, nil
	}
	tr, err := ingest.NewTransformer(crs, ingest.EPSG4326)
	return &reprojector{tr}, err
}

func (r *reprojector) wkb(g []byte) ([]byte, error) {
	if r.tr == nil || g == nil {
		return g, nil
	}
	return r.tr.WKB(g)
}

func (r *reprojector) Close() {
	if r.tr != nil {
		r.tr.Close()
	}
}
