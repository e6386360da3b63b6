package importing_test

import (
	"context"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/geopub/geopub/internal/importing"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 25: "Errors wrapped with context at store and job boundaries so a
// 500's log line names its path." When the store fails under an import,
// the job's error names the version it was working on and the step.
func TestImportStoreErrorsNameTheVersion(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		v, w := importingVersion(t, st, 7)
		if err := st.Client.Close(); err != nil {
			t.Fatal(err)
		}
		job := &river.Job[importing.Args]{JobRow: &rivertype.JobRow{ID: 7, Attempt: 1, MaxAttempts: 3}, Args: importing.Args{VersionID: v.ID}}
		for name, err := range map[string]error{
			"Work":    w.Work(ctx, job),
			"Abandon": w.Abandon(ctx, job, "the process died"),
		} {
			if err == nil || !strings.Contains(err.Error(), "import of version ") || !strings.Contains(err.Error(), ": reading the version: ") {
				t.Errorf("%s on a closed store: %v, want the version and the step named", name, err)
			}
		}
	})
}
