package jobs

import (
	"context"

	"github.com/geopub/geopub/internal/store"
)

// StartWorking is what a process that works jobs (`geopub worker`, and
// `geopub serve` with in-process workers) calls after store.Migrate: it
// applies River's migrations, builds the client, lets register add the
// workers (and OnEvent handlers), and starts it. Stop the result on
// shutdown.
func StartWorking(ctx context.Context, st *store.Store, cfg Config, register func(*Jobs) error) (*Jobs, error) {
	if _, err := MigrateRiver(ctx, st); err != nil {
		return nil, err
	}
	j, err := New(st, cfg)
	if err != nil {
		return nil, err
	}
	if register != nil {
		if err := register(j); err != nil {
			j.Close()
			return nil, err
		}
	}
	if err := j.Start(ctx); err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}
