package auth

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent/loginthrottle"
	"github.com/geopub/geopub/internal/apperr"
)

// TestBeginAttemptBurst checks that parallel attempts cannot outrun the
// limit: only MaxFailures of them get to check a password.
func TestBeginAttemptBurst(t *testing.T) {
	const limit, n = 5, 20
	s, _ := newTestService(t, Config{MaxFailures: limit, FailureWindow: time.Minute})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() { errs <- s.beginAttempt(ctx, []string{"email:x@example.com"}) })
	}
	wg.Wait()
	close(errs)
	admitted := 0
	for err := range errs {
		switch apperr.CodeOf(err) {
		case "":
		case apperr.TooManyRequests:
			continue
		default:
			if err != nil {
				t.Fatal(err)
			}
		}
		admitted++
	}
	if admitted != limit {
		t.Errorf("%d of %d parallel attempts admitted, want %d", admitted, n, limit)
	}
	row, err := s.client.LoginThrottle.Query().Where(loginthrottle.Key("email:x@example.com")).Only(ctx)
	if err != nil || row.Failures != limit || row.BlockedUntil == nil {
		t.Fatalf("row %+v, %v; want %d attempts and a block", row, err, limit)
	}
}

// TestCountAttemptSQL checks the upsert is portable: PostgreSQL gets
// numbered placeholders and both dialects qualify the old row's columns.
func TestCountAttemptSQL(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct{ dialect, want string }{
		{dialect.Postgres, `ON CONFLICT ("key") DO UPDATE SET "failures" = CASE WHEN "login_throttles"."window_start" <= $4 THEN 0 ELSE "login_throttles"."failures" END`},
		{dialect.SQLite, "ON CONFLICT (`key`) DO UPDATE SET `failures` = CASE WHEN `login_throttles`.`window_start` <= ? THEN 0"},
	} {
		q, args := entsql.Dialect(tt.dialect).Insert("login_throttles").
			Columns("key", "failures", "window_start").Values("k", 1, now).
			OnConflict(entsql.ConflictColumns("key"),
				entsql.ResolveWith(renewWindowSQL(now, now.Add(-time.Minute)))).
			Query()
		if !strings.Contains(q, tt.want) || len(args) != 7 {
			t.Errorf("%s: %s (%d args)", tt.dialect, q, len(args))
		}
	}
}
