package publishing_test

import (
	"context"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/geopub/geopub/internal/publishing"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Issue 25: "Errors wrapped with context at store and job boundaries so a
// 500's log line names its path." When the store fails under a publish,
// the job's error names the group and the step.
func TestPublishStoreErrorsNameTheGroup(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		if err := st.Client.Close(); err != nil {
			t.Fatal(err)
		}
		w := &publishing.Worker{P: &publishing.Publisher{Store: st}}
		job := &river.Job[publishing.Args]{JobRow: &rivertype.JobRow{ID: 1, Attempt: 1, MaxAttempts: 3}, Args: publishing.Args{GroupID: 42}}
		for name, err := range map[string]error{
			"Work":    w.Work(context.Background(), job),
			"Abandon": w.Abandon(context.Background(), job, "the process died"),
		} {
			if err == nil || !strings.Contains(err.Error(), "publish group 42: reading the group: ") {
				t.Errorf("%s on a closed store: %v, want the group and the step named", name, err)
			}
		}
	})
}
