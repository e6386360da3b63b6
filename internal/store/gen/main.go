// Command gen writes a new versioned migration for each dialect from the
// difference between the Ent schema and the existing migrations:
//
//	go run ./internal/store/gen -name add_layers -pg postgres://postgres@127.0.0.1:5432/postgres
//
// Hand-written migrations (for tables Ent does not describe, such as the
// catalogue search index) are added as files next to the generated ones;
// then rewrite each folder's atlas.sum with
//
//	go run ./internal/store/gen -rehash
//
// The SQLite side replays the migrations on an in-memory database; the
// PostgreSQL side needs a server, where it creates and drops a scratch
// database.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	atlas "ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/schema"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/geopub/geopub/ent/migrate"
	_ "github.com/geopub/geopub/internal/store" // features_cell_key on SQLite, which migrations call
)

func main() {
	name := flag.String("name", "", "name of the migration (required)")
	pg := flag.String("pg", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL server URL used to create a scratch database")
	root := flag.String("dir", "internal/store", "folder holding migrations/")
	rehash := flag.Bool("rehash", false, "only rewrite atlas.sum of both folders after adding a hand-written migration")
	flag.Parse()
	if *rehash {
		for _, d := range []string{"sqlite", "postgres"} {
			if err := rehashDir(filepath.Join(*root, "migrations", d)); err != nil {
				log.Fatalf("%s: %v", d, err)
			}
		}
		return
	}
	if *name == "" {
		log.Fatal("-name is required")
	}
	ctx := context.Background()
	if err := diffSQLite(ctx, filepath.Join(*root, "migrations", "sqlite"), *name); err != nil {
		log.Fatalf("sqlite: %v", err)
	}
	if err := diffPostgres(ctx, *pg, filepath.Join(*root, "migrations", "postgres"), *name); err != nil {
		log.Fatalf("postgres: %v", err)
	}
}

func diffSQLite(ctx context.Context, dir, name string) error {
	db, err := sql.Open("sqlite", "file:gen?mode=memory&_pragma=foreign_keys(1)")
	if err != nil {
		return err
	}
	defer db.Close()
	return diff(ctx, entsql.OpenDB(dialect.SQLite, db), dialect.SQLite, dir, name)
}

func diffPostgres(ctx context.Context, serverURL, dir, name string) error {
	admin, err := sql.Open("pgx", serverURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	scratch := fmt.Sprintf("geopub_migrate_%d", time.Now().UnixNano())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+scratch); err != nil {
		return err
	}
	defer admin.ExecContext(ctx, "DROP DATABASE "+scratch)
	db, err := sql.Open("pgx", withDatabase(serverURL, scratch))
	if err != nil {
		return err
	}
	defer db.Close()
	return diff(ctx, entsql.OpenDB(dialect.Postgres, db), dialect.Postgres, dir, name)
}

func diff(ctx context.Context, drv dialect.Driver, dialectName, dir, name string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	d, err := atlas.NewLocalDir(dir)
	if err != nil {
		return err
	}
	m, err := schema.NewMigrate(drv,
		schema.WithDir(d),
		schema.WithMigrationMode(schema.ModeReplay),
		schema.WithDialect(dialectName),
		schema.WithFormatter(atlas.DefaultFormatter),
		schema.WithDropColumn(true),
		schema.WithDropIndex(true),
	)
	if err != nil {
		return err
	}
	return m.NamedDiff(ctx, name, migrate.Tables...)
}

// withDatabase replaces the database name in a PostgreSQL URL.
func withDatabase(u, db string) string {
	q := ""
	if i := strings.Index(u, "?"); i >= 0 {
		u, q = u[:i], u[i:]
	}
	if i := strings.LastIndex(u, "/"); i > len("postgres://") {
		u = u[:i]
	}
	return u + "/" + db + q
}

// rehashDir rewrites the atlas.sum of a migration folder from its files.
func rehashDir(dir string) error {
	d, err := atlas.NewLocalDir(dir)
	if err != nil {
		return err
	}
	sum, err := d.Checksum()
	if err != nil {
		return err
	}
	return atlas.WriteSumFile(d, sum)
}
