package importing_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/importing"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/users"
)

// When the process working an import's last attempt died, Abandon records
// the version as failed with the reason and removes any features, once:
// a second call, or a call for a version that has moved on, changes
// nothing.
func TestAbandonRecordsFailedImport(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		v, w := importingVersion(t, st, 7)
		job := &river.Job[importing.Args]{JobRow: &rivertype.JobRow{ID: 7, Attempt: 3, MaxAttempts: 3}, Args: importing.Args{VersionID: v.ID}}
		for range 2 {
			if err := w.Abandon(ctx, job, "the process working attempt 3 (geopub-1-x) died"); err != nil {
				t.Fatal(err)
			}
		}
		v = st.Client.LayerVersion.GetX(ctx, v.ID)
		if v.Status != layerversion.StatusFailed || v.ImportError != "The import stopped: the process working attempt 3 (geopub-1-x) died." {
			t.Fatalf("abandoned version: %s %q", v.Status, v.ImportError)
		}
		if n, err := featurerows.Count(ctx, st, v.ID); n != 0 || err != nil {
			t.Fatalf("features left: %d, %v", n, err)
		}
		// A version that is no longer importing is left alone.
		st.Client.LayerVersion.UpdateOneID(v.ID).SetStatus(layerversion.StatusOk).ExecX(ctx)
		if err := w.Abandon(ctx, job, "again"); err != nil {
			t.Fatal(err)
		}
		if v = st.Client.LayerVersion.GetX(ctx, v.ID); v.Status != layerversion.StatusOk {
			t.Fatalf("version changed to %s", v.Status)
		}
		if err := w.Abandon(ctx, &river.Job[importing.Args]{JobRow: job.JobRow, Args: importing.Args{VersionID: 99999}}, "gone"); err != nil {
			t.Fatalf("missing version: %v", err)
		}
	})
}

// importingVersion is a draft version of a new layer whose import is job
// jobID and has written one feature, and an import worker over st.
func importingVersion(t *testing.T, st *store.Store, jobID int64) (*ent.LayerVersion, *importing.Worker) {
	t.Helper()
	ctx := context.Background()
	u, err := users.Create(ctx, st.Client, users.New{Email: "imp@example.com", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	l := st.Client.Layer.Create().SetType(layer.TypeLayer).SetName("L").SetUserID(u.ID).SaveX(ctx)
	v := st.Client.LayerVersion.Create().SetLayerID(l.ID).SetName("L").SetCreatedBy(u.ID).SetDatasourceIds([]int{}).
		SetStatus(layerversion.StatusImporting).SetImportJobID(jobID).SaveX(ctx)
	err = st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
		w, err := featurerows.NewWriter(ctx, st, tx, v.ID)
		if err != nil {
			return err
		}
		if err := w.Write(featurerows.Row{FID: 1}); err != nil {
			return err
		}
		_, err = w.Close()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	return v, &importing.Worker{I: &importing.Importer{Store: st, Notify: notify.New(st, logger), Logger: logger}}
}
