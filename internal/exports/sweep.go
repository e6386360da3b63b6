package exports

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/export"
	"github.com/geopub/geopub/internal/blob"
)

// DefaultSweepEvery is how often a process looks for expired exports.
const DefaultSweepEvery = time.Minute

// Sweep turns every complete export past its expiry into gone and
// deletes its file. Each export is flipped by one conditional update, so
// replicas sweeping at once delete each file once; it returns how many it
// turned.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	now := time.Now().UTC()
	due, err := s.Store.Client.Export.Query().
		Where(export.StateEQ(export.StateComplete), export.ExpiresAtLT(now)).Limit(500).All(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range due {
		flipped := false
		err := s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
			k, err := c.Export.Update().Where(export.ID(e.ID), export.StateEQ(export.StateComplete)).
				SetState(export.StateGone).SetBlobKey("").Save(ctx)
			flipped = k == 1
			return err
		})
		if err != nil {
			return n, err
		}
		if !flipped {
			continue
		}
		n++
		if e.BlobKey != "" {
			if err := s.Blobs.Delete(ctx, e.BlobKey); err != nil && !errors.Is(err, blob.ErrNotFound) {
				s.Logger.WarnContext(ctx, "deleting the file of an expired export", "export", e.ID, "err", err)
			}
		}
	}
	return n, nil
}

// StartSweeper sweeps every interval (DefaultSweepEvery when zero; never
// when negative) until ctx ends or the returned stop is called.
func (s *Service) StartSweeper(ctx context.Context, every time.Duration) (stop func()) {
	if every < 0 {
		return func() {}
	}
	if every == 0 {
		every = DefaultSweepEvery
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
					s.Logger.WarnContext(ctx, "sweeping expired exports", "err", err)
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}
