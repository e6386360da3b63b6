// Package benchkit holds what the load programs under bench/ share:
// scratch PostgreSQL databases, URL forms GDAL takes, CPU profiles and
// environment defaults. It is for benchmarks only.
package benchkit

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"runtime/pprof"
	"strings"
)

// Scratch creates database db on the server of admin (at URL server) and
// runs setup in it.
func Scratch(ctx context.Context, admin *sql.DB, server, db, setup string) error {
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+db); err != nil {
		return err
	}
	if setup == "" {
		return nil
	}
	c, err := sql.Open("pgx", WithDatabase(server, db))
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, setup); err != nil {
		return fmt.Errorf("%s: %w", setup, err)
	}
	return nil
}

// Drop removes database db, closing its connections.
func Drop(admin *sql.DB, db string) {
	_, _ = admin.Exec("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)")
}

// WithDatabase replaces the database of a PostgreSQL URL.
func WithDatabase(u, db string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	p.Path = "/" + db
	return p.String()
}

// Conninfo turns a PostgreSQL URL into libpq key=value form, which GDAL's
// PG: prefix takes.
func Conninfo(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	kv := []string{"dbname=" + strings.TrimPrefix(p.Path, "/")}
	if h := p.Hostname(); h != "" {
		kv = append(kv, "host="+h)
	}
	if port := p.Port(); port != "" {
		kv = append(kv, "port="+port)
	}
	if p.User != nil {
		kv = append(kv, "user="+p.User.Username())
		if pw, ok := p.User.Password(); ok {
			kv = append(kv, "password="+pw)
		}
	}
	for k, vs := range p.Query() {
		kv = append(kv, k+"="+vs[0])
	}
	return strings.Join(kv, " ")
}

// EnvOr is the environment variable k, or def when it is not set.
func EnvOr(k, def string) string {
	if v, ok := os.LookupEnv(k); ok {
		return v
	}
	return def
}

// Profile starts a CPU profile into path ("" for none) and returns the
// function that stops it.
func Profile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
