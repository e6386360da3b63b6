package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/migrate"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// The versioned migrations must produce exactly the schema Ent describes:
// after applying them, Ent finds nothing left to change.
func TestMigrationsMatchEntSchema(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		var buf bytes.Buffer
		if err := migrate.NewSchema(s.Driver).WriteTo(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		if out := bytes.TrimSpace(buf.Bytes()); len(out) > 0 && !bytes.Equal(out, []byte("BEGIN;\nCOMMIT;")) {
			t.Fatalf("migrations are behind the Ent schema; run `go run ./internal/store/gen -name NAME`. Pending:\n%s", out)
		}
	})
}

func TestMigrateIsIdempotentAndSeeds(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		applied, err := s.Migrate(ctx)
		if err != nil || len(applied) != 0 {
			t.Fatalf("second migrate applied %v, err %v", applied, err)
		}
		if err := s.Seed(ctx); err != nil {
			t.Fatal(err)
		}
		n, err := s.Client.Group.Query().Count(ctx)
		if err != nil || n != 2 {
			t.Fatalf("groups after seeding twice = %d, %v", n, err)
		}
		def := s.Client.Group.Query().Where(group.URLSlug(store.DefaultGroupSlug)).OnlyX(ctx)
		if !def.IsDefault || def.Type != group.TypeNormal {
			t.Fatalf("default group %+v", def)
		}
		mem := s.Client.Group.Query().Where(group.URLSlug(store.MembersGroupSlug)).OnlyX(ctx)
		if mem.Type != group.TypeMembers {
			t.Fatalf("members group %+v", mem)
		}
	})
}

func TestOpenRejectsUnknownURL(t *testing.T) {
	_, err := store.Open(context.Background(), store.Config{DatabaseURL: "mysql://root:secret@localhost/x"})
	if err == nil {
		t.Fatal("want an error")
	}
	if bytes.Contains([]byte(err.Error()), []byte("secret")) {
		t.Fatalf("error leaks the password: %v", err)
	}
}

func TestInTxCommitsOrRollsBackTogether(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		err := s.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
			c.Group.Create().SetName("Kept").SetURLSlug("kept").ExecX(ctx)
			_, err := tx.ExecContext(ctx, "UPDATE groups SET country = 'NZ' WHERE url_slug = 'kept'")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		g := s.Client.Group.Query().Where(group.URLSlug("kept")).OnlyX(ctx)
		if g.Country != "NZ" {
			t.Fatalf("raw statement in the transaction lost: %+v", g)
		}
		boom := errors.New("boom")
		err = s.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
			c.Group.Create().SetName("Dropped").SetURLSlug("dropped").ExecX(ctx)
			return boom
		})
		if !errors.Is(err, boom) || s.Client.Group.Query().Where(group.URLSlug("dropped")).ExistX(ctx) {
			t.Fatalf("rollback: err %v", err)
		}
	})
}
