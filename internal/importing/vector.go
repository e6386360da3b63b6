package importing

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/layerkey"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/scanning"
)

// rowBuffer is how many rows the reader may run ahead of the writer.
const rowBuffer = 4096

// read is the outcome of reading a version's datasources.
type read struct {
	empty int64 // rows without geometry
	// declared is the key every datasource declares (nil unless all
	// declare the same one).
	declared []string
	err      error
}

// importVector reads v's datasources into its features. A reader
// goroutine streams the rows; this one writes them in transactions of
// about ProgressEvery, each recording and announcing the progress (the
// share of the datasources' scanned feature counts written so far, kept
// below 1), and the last marking the version imported with its summary.
// A datasource of a service kind (PostgreSQL, WFS, ArcGIS) is first
// fetched whole from its server: while that runs, no row arrives, so the
// fetch's own progress counts for half of that datasource's share and is
// recorded at most once every ProgressEvery (see fetchMeter).
//
// Every transaction first checks that the version's import is still this
// attempt's (owned): once a draft update has started a newer import, the
// attempt's next transaction rolls back with errSuperseded, and whatever
// it committed before is removed by the newer import's first transaction.
func (im *Importer) importVector(ctx context.Context, v *ent.LayerVersion, jobID int64, dss []*ent.Datasource) error {
	unlock, err := im.lockVersion(ctx, v.ID)
	if err != nil {
		return err
	}
	defer unlock()

	// units counts each feature once when written, and once more when
	// fetched if its datasource is a service's.
	var units int64
	for _, d := range dss {
		units += d.FeatureCount
		if _, ok := scanning.ServiceOf(d.Edges.Source.Type); ok {
			units += d.FeatureCount
		}
	}
	fetch := newFetchMeter()
	readCtx, stopReading := context.WithCancel(ctx)
	rows := make(chan featurerows.Row, rowBuffer)
	done := make(chan read, 1)
	go func() {
		var r read
		var offset int64
		var fetchedBefore float64 // units of the service datasources already fetched
		for i, d := range dss {
			base, n := fetchedBefore, float64(d.FeatureCount)
			fetched := func(f float64) { fetch.set(base + min(max(f, 0), 1)*n) }
			if _, ok := scanning.ServiceOf(d.Edges.Source.Type); ok {
				fetchedBefore += n
			}
			maxFID, noGeom, declared, err := im.readDatasource(readCtx, d, offset, fetched, func(row featurerows.Row) error {
				select {
				case rows <- row:
					return nil
				case <-readCtx.Done():
					return readCtx.Err()
				}
			})
			if err != nil {
				r.err = err
				break
			}
			r.empty += noGeom
			if i == 0 {
				r.declared = declared
			} else if !slices.Equal(r.declared, declared) {
				r.declared = nil
			}
			offset = maxFID + 1
		}
		close(rows)
		done <- r
	}()
	// Whatever happens below, the reader stops and is waited for before
	// the datasources' temporary files go.
	defer func() {
		stopReading()
		for range rows {
		}
	}()

	every := im.ProgressEvery
	if every <= 0 {
		every = DefaultProgressEvery
	}
	var written int64
	var reported float64        // the progress last recorded
	var fetchRecorded time.Time // when a fetch's progress was last recorded
	first, finished := true, false
	for !finished {
		// Wait for rows outside any transaction (a slow download or
		// read holds no lock), then write for about one interval.
		var pending *featurerows.Row
		select {
		case row, ok := <-rows:
			if ok {
				pending = &row
			} else {
				finished = true
			}
		case <-fetch.moved:
			f := share(fetch.units()+float64(written), units)
			if f <= reported || time.Since(fetchRecorded) < every {
				continue
			}
			err := im.Store.InTx(ctx, func(ctx context.Context, tc *ent.Client, _ *sql.Tx) error {
				return im.recordProgress(ctx, tc, v, jobID, f)
			})
			if err != nil {
				return err
			}
			reported, fetchRecorded = f, time.Now()
			continue
		case <-ctx.Done():
			return ctx.Err()
		}
		var outcome read
		if finished {
			outcome = <-done
			if outcome.err != nil {
				return outcome.err
			}
		}
		err := im.Store.InTx(ctx, func(ctx context.Context, tc *ent.Client, tx *sql.Tx) error {
			if mine, err := tc.LayerVersion.Query().Where(owned(v.ID, jobID)).Exist(ctx); err != nil || !mine {
				return cmp.Or(err, errSuperseded)
			}
			if first {
				if err := featurerows.DeleteVersion(ctx, im.Store, tx, v.ID); err != nil {
					return err
				}
			}
			if pending != nil {
				n, ended, err := im.writeRows(ctx, tx, v.ID, *pending, rows, time.Now().Add(every))
				if err != nil {
					return err
				}
				written += n
				if ended {
					finished = true
					if outcome = <-done; outcome.err != nil {
						return outcome.err
					}
				}
			}
			if finished {
				return im.complete(ctx, tc, tx, v, jobID, written, outcome, dss)
			}
			// Announced only when it moved (it stops below 1 when the
			// scan counted fewer rows than there are).
			if f := share(fetch.units()+float64(written), units); f > reported {
				reported = f
				return im.recordProgress(ctx, tc, v, jobID, f)
			}
			return nil
		})
		if err != nil {
			return err
		}
		first = false
	}
	return nil
}

// writeRows writes first and the rows that follow on tx until deadline
// or the end of rows (ended).
func (im *Importer) writeRows(ctx context.Context, tx *sql.Tx, versionID int, first featurerows.Row, rows <-chan featurerows.Row, deadline time.Time) (n int64, ended bool, err error) {
	w, err := featurerows.NewWriter(ctx, im.Store, tx, versionID)
	if err != nil {
		return 0, false, err
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	err = w.Write(first)
loop:
	for err == nil {
		select {
		case row, ok := <-rows:
			if !ok {
				ended = true
				break loop
			}
			err = w.Write(row)
		case <-timer.C:
			break loop
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if err != nil {
		w.Close()
		return 0, false, err
	}
	n, err = w.Close()
	return n, ended, err
}

// complete records a finished import on its last transaction, with the
// version's primary key as layerkey.Detect finds it over the rows written.
func (im *Importer) complete(ctx context.Context, tc *ent.Client, tx *sql.Tx, v *ent.LayerVersion, jobID int64, count int64, outcome read, dss []*ent.Datasource) error {
	ext, ok, err := featurerows.ExtentTx(ctx, im.Store, tx, v.ID)
	if err != nil {
		return err
	}
	// The key as it is now: the draft's may have been set meanwhile.
	cur, err := tc.LayerVersion.Query().Where(owned(v.ID, jobID)).Only(ctx)
	if ent.IsNotFound(err) {
		return errSuperseded
	}
	if err != nil {
		return err
	}
	// A superseded import may have no datasources left to name.
	var names []string
	if len(dss) > 0 {
		names = append(names, dss[0].LayerName)
	}
	names = append(names, cur.Name)
	key, err := layerkey.Detect(ctx, im.Store, tx, cur, count, outcome.declared, len(dss) == 1, names...)
	if err != nil {
		return err
	}
	upd := tc.LayerVersion.Update().Where(owned(v.ID, jobID)).SetStatus(layerversion.StatusOk).SetProgress(1).
		SetFeatureCount(count).SetEmptyGeometryCount(outcome.empty).SetImportError("")
	if ok {
		upd.SetExtent(ext[:])
	}
	if key != nil {
		upd.SetPrimaryKeyFields(key)
	} else {
		upd.ClearPrimaryKeyFields()
	}
	upd.SetKeyByFid(layerkey.KeyByFID(key, dss))
	if n, err := upd.Save(ctx); err != nil || n == 0 {
		return cmp.Or(err, errSuperseded)
	}
	return im.publish(ctx, tc, v, "import.completed", map[string]any{"feature_count": count})
}

// maxPartial is the most progress an unfinished import reports: only the
// last transaction reports 1.
const maxPartial = 0.99

// share is done's share of total, kept within (0, maxPartial];
// a datasource may hold more rows than its scan counted.
func share(done float64, total int64) float64 {
	if total <= 0 {
		return maxPartial
	}
	f := done / float64(total)
	return min(max(f, 0.01), maxPartial)
}

// lockVersion keeps two attempts at one version from overlapping on
// PostgreSQL: the second waits for the first to end, then replaces its
// rows. The lock is a session lock on a connection held for the import
// (its rows are written in several transactions). SQLite's attempts are
// kept apart by the job system's liveness lock alone.
func (im *Importer) lockVersion(ctx context.Context, versionID int) (unlock func(), err error) {
	if im.Store.Dialect != dialect.Postgres {
		return func() {}, nil
	}
	conn, err := im.Store.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1, $2)", importLockClass, versionID); err != nil {
		discard(conn)
		return nil, fmt.Errorf("locking the version: %w", err)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1, $2)", importLockClass, versionID); err != nil {
			// The session must not go back to the pool holding the lock.
			discard(conn)
			return
		}
		conn.Close()
	}, nil
}

// discard closes a pinned connection's session instead of returning it to
// the pool.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close()
}

// materialize copies datasource d into dir and says where GDAL reads it:
// a file source's tree (Scanner.Materialize), or the file a service
// kind's Fetch wrote.
func (im *Importer) materialize(ctx context.Context, d *ent.Datasource, dir string, fetched func(float64)) (tree string, ids ingest.Datasource, err error) {
	ids = ingest.Datasource{Path: d.Path, Layer: d.LayerName, Files: d.Files, DataType: string(d.DataType), CRS: d.Crs}
	svc, ok := scanning.ServiceOf(d.Edges.Source.Type)
	if !ok {
		return scanning.Tree(dir), ids, im.Scanner.Materialize(ctx, d.Edges.Source, dir, func(string) {})
	}
	conn, err := im.Scanner.Conn(d.Edges.Source)
	if err != nil {
		return "", ids, permanent(err)
	}
	file, layer, err := svc.Fetch(ctx, conn, d.Path, dir, fetched)
	if err != nil {
		if remote.IsPermanent(err) {
			err = permanent(err)
		}
		return "", ids, err
	}
	ids.Path, ids.Layer, ids.Files = file, layer, nil
	return dir, ids, nil
}

// readDatasource streams one datasource's features to write, reprojected
// to EPSG:4326, with fids shifted by offset so several datasources do not
// collide. fetched hears a service kind's fetch progress (0 to 1). It
// returns the largest fid, how many rows had no geometry and the key the
// datasource declares (ingest.Records.Declared).
func (im *Importer) readDatasource(ctx context.Context, d *ent.Datasource, offset int64, fetched func(float64), write func(featurerows.Row) error) (maxFID, empty int64, declared []string, err error) {
	dir, err := os.MkdirTemp(im.Scanner.WorkDir, "geopub-import-*")
	if err != nil {
		return 0, 0, nil, err
	}
	defer os.RemoveAll(dir)
	tree, ids, err := im.materialize(ctx, d, dir, fetched)
	if err != nil {
		return 0, 0, nil, err
	}
	var tr *ingest.Transformer
	if d.DataType == datasource.DataTypeVector && d.Crs != "" && d.Crs != "EPSG:4326" {
		if tr, err = ingest.NewTransformer(d.Crs, "EPSG:4326"); err != nil {
			return 0, 0, nil, permanent(fmt.Errorf("cannot reproject %s from %s: %w", d.Title, d.Crs, err))
		}
		defer tr.Close()
	}
	recs, err := ingest.OpenRecords(ctx, tree, ids)
	if err != nil {
		return 0, 0, nil, permanent(err) // the files are local: a read error will recur
	}
	defer recs.Close()
	rows := NewRowEncoder(recs.Fields(), featurerows.DateFields(d.Fields), featurerows.TimeFields(d.Fields))
	err = func() error {
		for {
			rec, err := recs.Next()
			if err != nil || rec == nil {
				return err
			}
			geom := rec.Geometry
			if geom == nil {
				empty++
			} else if tr != nil {
				var terr error
				if geom, terr = tr.WKB(geom); terr != nil {
					return permanent(fmt.Errorf("feature %d of %s: %w", rec.FID, d.Title, terr))
				}
			}
			fid := rec.FID + offset
			if fid > maxFID {
				maxFID = fid
			}
			if err := write(rows.Row(rec, fid, geom)); err != nil {
				return err
			}
		}
	}()
	if declared = recs.Declared(); len(declared) == 0 {
		declared = d.PrimaryKey // a database's, kept by the scan
	}
	if err != nil && !isPermanent(err) && !errors.Is(err, context.Canceled) {
		err = permanent(err) // the files are local: a read error will recur
	}
	return maxFID, empty, declared, err
}
