package scanning

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/remote"
)

// counts are a scan's change counts.
type counts struct{ added, updated, deleted int }

// scan materializes the source, discovers its datasources and records
// them. A service kind's source is not materialized: the kind discovers
// its datasources on the server.
func (s *Scanner) scan(ctx context.Context, sc *ent.Scan, log *scanLog) (counts, error) {
	c := s.Store.Client
	note := func(msg string) { _ = c.Scan.UpdateOneID(sc.ID).SetLog(log.add(msg)).Exec(ctx) }
	if svc, ok := ServiceOf(sc.Edges.Source.Type); ok {
		return s.scanService(ctx, sc, svc, log, note)
	}
	dir, err := os.MkdirTemp(s.WorkDir, "geopub-scan-*")
	if err != nil {
		return counts{}, err
	}
	defer os.RemoveAll(dir)
	var skipped []schematype.Skipped
	skip := func(p ingest.Problem) { skipped = append(skipped, schematype.Skipped{Path: p.Path, Reason: p.Message}) }
	if err := s.materialize(ctx, sc.Edges.Source, dir, note, skip); err != nil {
		return counts{}, err
	}
	_ = c.Scan.UpdateOneID(sc.ID).SetProgress(0.4).Exec(ctx)
	size := treeSize(Tree(dir))
	limit := s.Limits.Deadline(size)
	dctx, cancel := context.WithTimeout(ctx, limit)
	res, err := ingest.ScanWith(dctx, Tree(dir), s.Limits)
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return counts{}, permanent("The scan passed its deadline of %s for %d MiB of files, %s: %s", limit,
				(size+1<<20-1)>>20, strings.TrimSuffix(strings.TrimSuffix(err.Error(), context.DeadlineExceeded.Error()), ": "),
				"the file keeps GDAL busy for longer than its size allows.")
		}
		return counts{}, err
	}
	note(fmt.Sprintf("Found %d possible data sources", len(res.Datasources)))
	for _, p := range res.Problems {
		note(fmt.Sprintf("  Skipped %s: %s", p.Path, p.Message))
		skip(p)
	}
	// What was skipped is part of the scan's state, not only of its log.
	if err := c.Scan.UpdateOneID(sc.ID).SetSkipped(skipped).Exec(ctx); err != nil {
		return counts{}, err
	}
	_ = c.Scan.UpdateOneID(sc.ID).SetProgress(0.8).Exec(ctx)
	return s.recordAll(ctx, sc, Tree(dir), res.Datasources, log)
}

// scanService lists a service kind's datasources and records them.
func (s *Scanner) scanService(ctx context.Context, sc *ent.Scan, svc remote.Service, log *scanLog, note func(string)) (counts, error) {
	conn, err := s.Conn(sc.Edges.Source)
	if err != nil {
		return counts{}, err
	}
	found, err := svc.Discover(ctx, conn, note)
	if err != nil {
		return counts{}, err
	}
	note(fmt.Sprintf("Found %d possible data sources", len(found)))
	_ = s.Store.Client.Scan.UpdateOneID(sc.ID).SetProgress(0.8).Exec(ctx)
	return s.recordAll(ctx, sc, "", found, log)
}

// recordAll records what a scan found in one transaction.
func (s *Scanner) recordAll(ctx context.Context, sc *ent.Scan, tree string, found []ingest.Datasource, log *scanLog) (counts, error) {
	var n counts
	// Inside the transaction the log only grows in memory: writing it
	// through another connection would wait on the transaction's lock
	// (SQLite). The completion update stores it.
	err := s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		var err error
		n, err = record(ctx, c, sc.SourceID, sc.UserID, tree, found, func(msg string) { log.add(msg) })
		return err
	})
	return n, err
}

// Conn is how the kinds reach src, its credentials opened.
func (s *Scanner) Conn(src *ent.Source) (remote.Conn, error) {
	return remote.ConnOf(src, s.Fetch, s.Secrets)
}

// record upserts the discovered datasources of a source, with the
// metadata documents found beside them (keepMetadata), and marks those no
// longer found as missing. userID started the scan.
func record(ctx context.Context, c *ent.Client, sourceID, userID int, tree string, found []ingest.Datasource, note func(string)) (counts, error) {
	existing, err := c.Datasource.Query().Where(datasource.SourceID(sourceID)).All(ctx)
	if err != nil {
		return counts{}, err
	}
	byKey := map[string]*ent.Datasource{}
	for _, d := range existing {
		byKey[d.Path+"\x00"+d.LayerName] = d
	}
	var n counts
	seen := map[string]bool{}
	for _, d := range found {
		key := d.Path + "\x00" + d.Layer
		seen[key] = true
		fields := make([]schematype.Field, 0, len(d.Fields))
		for _, f := range d.Fields {
			fields = append(fields, schematype.Field{Name: f.Name, Type: f.Type})
		}
		var extent []float64
		if d.Extent != nil {
			extent = d.Extent[:]
		}
		size := filesSize(tree, d.Files)
		old := byKey[key]
		if old == nil {
			nd, err := c.Datasource.Create().SetSourceID(sourceID).SetPath(d.Path).SetLayerName(d.Layer).
				SetTitle(d.Title).SetDataType(datasource.DataType(d.DataType)).SetFormat(d.Format).
				SetGeometryType(d.GeometryType).SetCrs(d.CRS).SetFields(fields).SetFeatureCount(d.FeatureCount).
				SetExtent(extent).SetNumDims(d.NumDims).SetNumBands(d.NumBands).SetFileSize(size).
				SetMetadataPath(d.MetadataPath).SetFiles(d.Files).SetFingerprint(d.Fingerprint).SetPrimaryKey(d.PrimaryKey).Save(ctx)
			if err != nil {
				return n, err
			}
			if err := keepMetadata(ctx, c, tree, nd.ID, d.MetadataPath, userID, note); err != nil {
				return n, err
			}
			n.added++
			note("  New data source created: " + d.Title)
			continue
		}
		changed := old.Missing || old.Format != d.Format || old.GeometryType != d.GeometryType || old.Crs != d.CRS ||
			old.FeatureCount != d.FeatureCount || !reflect.DeepEqual(old.Fields, fields) ||
			!reflect.DeepEqual(old.Extent, extent) || old.FileSize != size || string(old.DataType) != d.DataType ||
			!reflect.DeepEqual(old.Files, d.Files) || old.Fingerprint != d.Fingerprint || !slices.Equal(old.PrimaryKey, d.PrimaryKey)
		if err := keepMetadata(ctx, c, tree, old.ID, d.MetadataPath, userID, note); err != nil {
			return n, err
		}
		if !changed {
			continue
		}
		err := old.Update().SetTitle(d.Title).SetDataType(datasource.DataType(d.DataType)).SetFormat(d.Format).
			SetGeometryType(d.GeometryType).SetCrs(d.CRS).SetFields(fields).SetFeatureCount(d.FeatureCount).
			SetExtent(extent).SetNumDims(d.NumDims).SetNumBands(d.NumBands).SetFileSize(size).
			SetMetadataPath(d.MetadataPath).SetFiles(d.Files).SetFingerprint(d.Fingerprint).SetPrimaryKey(d.PrimaryKey).SetMissing(false).Exec(ctx)
		if err != nil {
			return n, err
		}
		n.updated++
		note("  Data source updated: " + d.Title)
	}
	for key, d := range byKey {
		if seen[key] || d.Missing {
			continue
		}
		if err := d.Update().SetMissing(true).Exec(ctx); err != nil {
			return n, err
		}
		n.deleted++
		note("  Data source no longer found: " + d.Title)
	}
	return n, nil
}

// treeSize is the size of the regular files below dir.
func treeSize(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return total
}

func filesSize(tree string, files []string) int64 {
	var total int64
	for _, f := range files {
		if fi, err := os.Stat(filepath.Join(tree, filepath.FromSlash(f))); err == nil && !fi.IsDir() {
			total += fi.Size()
		}
	}
	return total
}
