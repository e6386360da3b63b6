package exports_test

import (
	"context"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/geopub/geopub/internal/exports"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 25: "Errors wrapped with context at store and job boundaries so a
// 500's log line names its path." When the store fails, the export job's error names the export and the step.
func TestExportStoreErrorsNameTheExport(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		if err := st.Client.Close(); err != nil {
			t.Fatal(err)
		}
		w := &exports.Worker{S: &exports.Service{Store: st}}
		err := w.Work(context.Background(), &river.Job[exports.Args]{JobRow: &rivertype.JobRow{ID: 1, Attempt: 1, MaxAttempts: 3}, Args: exports.Args{ExportID: 42}})
		if err == nil || !strings.Contains(err.Error(), "export 42: reading the export: ") {
			t.Fatalf("Work on a closed store: %v, want %q", err, "export 42: reading the export: …")
		}
	})
}
