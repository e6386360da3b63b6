package graph

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/99designs/gqlgen/graphql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/metadatadocument"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/blob"
	"github.com/geopub/geopub/internal/scanning"
)

// saveSourceAndScan creates the source, stores an upload's files and
// enqueues the first scan, all or nothing: the row, the scan and its job
// commit in one transaction, and stored files are removed again when it
// does not commit.
func (r *Resolver) saveSourceAndScan(ctx context.Context, u *ent.User, build func(*ent.SourceCreate), files []*graphql.Upload) (*ent.Source, error) {
	for i, f := range files {
		if err := blob.ValidateKey(scanning.UploadPrefix(1) + f.Filename); err != nil {
			return nil, apperr.Field(fmt.Sprintf("files[%d]", i), fmt.Sprintf("%q is not a usable upload path.", f.Filename))
		}
	}
	var src *ent.Source
	var stored []string
	err := r.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		m := c.Source.Create()
		build(m)
		var err error
		if src, err = m.Save(ctx); err != nil {
			return err
		}
		if err := recordSource(ctx, c, "source.create", src, nil, sourceFields(src)); err != nil {
			return err
		}
		if err := access.GrantCreator(ctx, c, access.KindSource, src.ID, u.ID); err != nil {
			return err
		}
		for _, f := range files {
			key := scanning.UploadPrefix(src.ID) + f.Filename
			stored = append(stored, key)
			if _, err := r.Blobs.Put(ctx, key, f.File, f.ContentType); err != nil {
				return fmt.Errorf("storing %s: %w", f.Filename, err)
			}
		}
		_, err = scanning.Start(ctx, c, tx, r.Jobs, src.ID, u.ID)
		return err
	})
	if err != nil {
		for _, key := range stored {
			if derr := r.Blobs.Delete(context.WithoutCancel(ctx), key); derr != nil && !errors.Is(derr, blob.ErrNotFound) {
				r.Logger.WarnContext(ctx, "removing an upload of a failed source", "key", key, "err", derr)
			}
		}
		return nil, err
	}
	// Entities from the transaction stay bound to it: read afresh.
	return r.Client.Source.Get(ctx, src.ID)
}

// startScan enqueues a scan of a source unless one is already under way.
func (r *Resolver) startScan(ctx context.Context, src *ent.Source, u *ent.User) (*ent.Scan, error) {
	busy, err := r.Client.Scan.Query().
		Where(scan.SourceID(src.ID), scan.StatusIn(scan.StatusQueued, scan.StatusScanning)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if busy {
		return nil, apperr.New(apperr.Conflict, "A scan of source %d is already under way.", src.ID)
	}
	var sc *ent.Scan
	err = r.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		var err error
		sc, err = scanning.Start(ctx, c, tx, r.Jobs, src.ID, u.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return r.Client.Scan.Get(ctx, sc.ID)
}

// cancelScan stops a queued or running scan. A queued scan is marked
// cancelled at once; a running one stops at its next step and records
// itself as cancelled.
func (r *Resolver) cancelScan(ctx context.Context, sc *ent.Scan) (*ent.Scan, error) {
	if sc.Status != scan.StatusQueued && sc.Status != scan.StatusScanning {
		return nil, apperr.New(apperr.Conflict, "Can't cancel: the scan has %s.", sc.Status)
	}
	if sc.JobID != nil {
		if _, err := r.Jobs.Cancel(ctx, *sc.JobID); err != nil {
			return nil, err
		}
	}
	if sc.Status == scan.StatusQueued {
		n, err := r.Client.Scan.Update().Where(scan.ID(sc.ID), scan.StatusEQ(scan.StatusQueued)).
			SetStatus(scan.StatusCancelled).SetCompletedAt(nowUTC()).SetError("Scan cancelled.").Save(ctx)
		if err != nil {
			return nil, err
		}
		if n == 1 {
			if _, err := r.Notify.Publish(ctx, nil, sc.UserID, "scan.cancelled", map[string]any{"scan_id": sc.ID, "source_id": sc.SourceID}); err != nil {
				return nil, err
			}
		}
	}
	return r.Client.Scan.Get(ctx, sc.ID)
}

// deleteSource removes a source with its scans, datasources and stored
// files.
func (r *Resolver) deleteSource(ctx context.Context, s *ent.Source) error {
	scs, err := r.Client.Scan.Query().Where(scan.SourceID(s.ID)).All(ctx)
	if err != nil {
		return err
	}
	if err := r.stopScans(ctx, scs...); err != nil {
		return err
	}
	err = r.withTx(ctx, func(ctx context.Context, tx *ent.Client) error {
		if _, err := tx.Scan.Delete().Where(scan.SourceID(s.ID)).Exec(ctx); err != nil {
			return err
		}
		dsIDs, err := tx.Datasource.Query().Where(datasource.SourceID(s.ID)).IDs(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.MetadataDocument.Delete().Where(metadatadocument.DatasetKind(scanning.MetadataKind),
			metadatadocument.VersionIDIn(dsIDs...)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.Datasource.Delete().Where(datasource.SourceID(s.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := access.DeleteGrants(ctx, tx, access.KindSource, s.ID); err != nil {
			return err
		}
		if err := tx.Source.DeleteOneID(s.ID).Exec(ctx); err != nil {
			return err
		}
		return recordSource(ctx, tx, "source.delete", s, sourceFields(s), nil)
	})
	if err != nil {
		return err
	}
	for obj, err := range r.Blobs.List(ctx, scanning.UploadPrefix(s.ID)) {
		if err != nil {
			r.Logger.WarnContext(ctx, "listing the files of a deleted source", "source", s.ID, "err", err)
			break
		}
		if err := r.Blobs.Delete(ctx, obj.Key); err != nil && !errors.Is(err, blob.ErrNotFound) {
			r.Logger.WarnContext(ctx, "removing a file of a deleted source", "key", obj.Key, "err", err)
		}
	}
	return nil
}
