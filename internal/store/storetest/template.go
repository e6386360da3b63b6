package storetest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/store"
)

// Migrating a PostgreSQL database takes about half a second; copying one
// that is migrated already (CREATE DATABASE … TEMPLATE) a fraction of
// that. So the first test that opens a PostgreSQL store migrates and
// seeds a template database named after the migrations it holds, and
// every store after that, in this test process or another, is a copy of
// it (Open still migrates and seeds the copy, which finds nothing to do).
// A template is made once per set of migrations and kept on the server;
// making a new one drops the others.

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// migratedTemplate returns the name of the template database of the
// current migrations, making it when the server has none.
func migratedTemplate(t testing.TB) string {
	t.Helper()
	server := PostgresURL(t)
	templateOnce.Do(func() { templateName, templateErr = makeTemplate(server) })
	if templateErr != nil {
		t.Fatalf("storetest: %v", templateErr)
	}
	return templateName
}

// migrationsSum hashes the PostgreSQL migrations.
func migrationsSum() (string, error) {
	h := sha256.New()
	dir := store.MigrationDir(dialect.Postgres)
	err := fs.WalkDir(store.Migrations, dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(store.Migrations, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:16], err
}

// keptTemplates is how many templates of different migrations may exist
// at once, the one being made included.
const keptTemplates = 4

func makeTemplate(server string) (string, error) {
	sum, err := migrationsSum()
	if err != nil {
		return "", fmt.Errorf("hashing the migrations: %w", err)
	}
	name := "geopub_template_" + sum
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := sql.Open("pgx", server)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", fmt.Errorf("connecting to make the template database: %w", err)
	}
	defer conn.Close()
	// Test processes start at once: one makes the template, the others
	// wait for it.
	const lockKey = 0x67656f7074706c // "geoptpl"
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", int64(lockKey)); err != nil {
		return "", err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(lockKey))
	var exists bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	// Templates of other migrations may be in use by test runs of other
	// checkouts (a branch, a CI clone): keep the newest few, drop the rest.
	rows, err := conn.QueryContext(ctx, "SELECT datname FROM pg_database WHERE datname LIKE 'geopub\\_template\\_%' "+
		"ORDER BY oid DESC OFFSET $1", keptTemplates-1)
	if err != nil {
		return "", err
	}
	var stale []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return "", err
		}
		stale = append(stale, n)
	}
	rows.Close()
	for _, n := range stale {
		if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)"); err != nil {
			return "", fmt.Errorf("dropping the stale template %s: %w", n, err)
		}
	}
	// Made under another name and renamed when complete, so a template
	// that exists is whole.
	building := fmt.Sprintf("geopub_building_%s_%d", sum, os.Getpid())
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+building); err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+building); err != nil {
		return "", fmt.Errorf("creating the template database: %w", err)
	}
	s, err := store.OpenAndMigrate(ctx, store.Config{DatabaseURL: WithDatabase(server, building)})
	if err != nil {
		conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)")
		return "", fmt.Errorf("migrating the template database: %w", err)
	}
	s.Close()
	// The store's backends may take a moment to exit after it closed.
	for i := 0; ; i++ {
		_, err := conn.ExecContext(ctx, "ALTER DATABASE "+building+" RENAME TO "+name)
		if err == nil {
			return name, nil
		}
		if i == 50 {
			return "", fmt.Errorf("naming the template database: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
