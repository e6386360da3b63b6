package scanning_test

import (
	"context"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/geopub/geopub/internal/scanning"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 25: "Errors wrapped with context at store and job boundaries so a
// 500's log line names its path." When the store fails, the scan job's error names the scan and the step.
func TestScanStoreErrorsNameTheScan(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		if err := st.Client.Close(); err != nil {
			t.Fatal(err)
		}
		w := &scanning.Worker{S: &scanning.Scanner{Store: st}}
		err := w.Work(context.Background(), &river.Job[scanning.Args]{JobRow: &rivertype.JobRow{ID: 1, Attempt: 1, MaxAttempts: 3}, Args: scanning.Args{ScanID: 42}})
		if err == nil || !strings.Contains(err.Error(), "scan 42: reading the scan: ") {
			t.Fatalf("Work on a closed store: %v, want %q", err, "scan 42: reading the scan: …")
		}
	})
}
