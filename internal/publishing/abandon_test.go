package publishing_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/geopub/geopub/ent/publishgroup"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/publishing"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/users"
)

// When the process working a publish's last attempt died, Abandon records
// the group as failed with the reason; a group that has ended is left
// alone.
func TestAbandonRecordsFailedPublish(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		u, err := users.Create(ctx, st.Client, users.New{Email: "pub@example.com", Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		g := st.Client.PublishGroup.Create().SetCreatedBy(u.ID).SetVersionIds([]int{1}).SaveX(ctx)
		logger := slog.New(slog.NewTextHandler(io.Discard, nil))
		w := &publishing.Worker{P: &publishing.Publisher{Store: st, Notify: notify.New(st, logger), Logger: logger}}
		job := &river.Job[publishing.Args]{JobRow: &rivertype.JobRow{ID: 7, Attempt: 25, MaxAttempts: 25}, Args: publishing.Args{GroupID: g.ID}}
		if err := w.Abandon(ctx, job, "the process working attempt 25 (geopub-1-x) died"); err != nil {
			t.Fatal(err)
		}
		g = st.Client.PublishGroup.GetX(ctx, g.ID)
		if g.State != publishgroup.StateFailed || g.Error != "the publish stopped: the process working attempt 25 (geopub-1-x) died" || g.CompletedAt == nil {
			t.Fatalf("abandoned group: %+v", g)
		}
		if err := w.Abandon(ctx, job, "again"); err != nil {
			t.Fatal(err)
		}
		if g2 := st.Client.PublishGroup.GetX(ctx, g.ID); g2.Error != g.Error {
			t.Fatalf("ended group changed: %q", g2.Error)
		}
	})
}
