package importing_test

import (
	"context"
	"errors"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/importing"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 11 (the SQLite busy defect's sequel): a draft update restarts a
// version's import, cancelling the running attempt. That attempt, ending
// late, cancelled or successful, must not overwrite the newer import's
// status nor delete or replace its features.
func TestSupersededImportLeavesTheNewerOne(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		// The version's import is job 8, which has written one feature.
		v, w := importingVersion(t, st, 8)
		attempt := func(ctx context.Context, jobID int64) error {
			return w.Work(ctx, &river.Job[importing.Args]{JobRow: &rivertype.JobRow{ID: jobID, Attempt: 1, MaxAttempts: 3},
				Args: importing.Args{VersionID: v.ID}})
		}
		unchanged := func(when string) {
			t.Helper()
			got := st.Client.LayerVersion.GetX(ctx, v.ID)
			n, err := featurerows.Count(ctx, st, v.ID)
			if got.Status != layerversion.StatusImporting || got.ImportError != "" || n != 1 || err != nil {
				t.Fatalf("%s: version %s %q with %d features (%v), want the newer import's: importing, 1 feature",
					when, got.Status, got.ImportError, n, err)
			}
		}

		// Job 7, superseded, runs to its end.
		var cancel *river.JobCancelError
		if err := attempt(ctx, 7); !errors.As(err, &cancel) {
			t.Fatalf("superseded attempt: %v, want it cancelled", err)
		}
		unchanged("after a superseded attempt ran")
		// Job 7 cancelled while it worked.
		cancelled, stop := context.WithCancel(ctx)
		stop()
		_ = attempt(cancelled, 7)
		unchanged("after a superseded attempt was cancelled")
		// A superseded attempt whose process died is not recorded either.
		if err := w.Abandon(ctx, &river.Job[importing.Args]{JobRow: &rivertype.JobRow{ID: 7, Attempt: 3, MaxAttempts: 3},
			Args: importing.Args{VersionID: v.ID}}, "died"); err != nil {
			t.Fatal(err)
		}
		unchanged("after a superseded attempt was abandoned")

		// The version's own import still completes (no datasources: 0
		// features).
		if err := attempt(ctx, 8); err != nil {
			t.Fatal(err)
		}
		if got := st.Client.LayerVersion.GetX(ctx, v.ID); got.Status != layerversion.StatusOk {
			t.Fatalf("own import: %s %q", got.Status, got.ImportError)
		}
	})
}
