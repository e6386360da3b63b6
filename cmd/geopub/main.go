// Command geopub is the Geopub service binary:
//
//	geopub serve     [--addr A] [--data-dir D] [--database-url U] [--base-url B]
//	geopub worker    [--data-dir D] [--database-url U] [--concurrency N] [--stop-timeout T]
//	geopub migrate   [--data-dir D] [--database-url U]
//	geopub user create --email E --password P [--first-name F] [--last-name L] [--country C] [--site-admin]
//	geopub search reindex [--data-dir D] [--database-url U]
//
// Flags fall back to the environment: GEOPUB_ADDR, GEOPUB_DATA_DIR,
// GEOPUB_DATABASE_URL, GEOPUB_BASE_URL.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, errHelp) {
		fmt.Fprintln(os.Stderr, "geopub:", err)
		os.Exit(exitCode(err))
	}
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func exitCode(err error) int {
	if _, ok := err.(usageError); ok {
		return 2
	}
	return 1
}

const usage = `usage:
  geopub serve       run the API (GraphQL, REST, explorer) on the configured database
  geopub worker      work durable jobs (imports, exports, ...) on the configured database until stopped
  geopub migrate     apply pending database migrations and exit
  geopub user create --email E --password P [--first-name F] [--last-name L] [--country C] [--site-admin]
  geopub search reindex   rebuild the catalogue's search index from the database and exit
run 'geopub COMMAND -h' for a command's flags`

const searchUsage = "usage: geopub search reindex [--data-dir D] [--database-url U]\nrun 'geopub search reindex -h' for its flags"

const userUsage = "usage: geopub user create --email E --password P [--first-name F] [--last-name L] [--country C] [--site-admin]\nrun 'geopub user create -h' for its flags"

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// run runs one command. A command asked for its help prints it to stdout
// and returns errHelp, which main treats as success (exit status 0).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{usage}
	}
	// The level is Info until serve's or worker's --log-level sets it.
	level := new(slog.LevelVar)
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], logger, level, stdout, stderr)
	case "worker":
		return worker(ctx, args[1:], logger, level, stdout, stderr)
	case "migrate":
		return migrate(ctx, args[1:], stdout, stderr)
	case "user":
		if len(args) >= 2 && isHelp(args[1]) {
			fmt.Fprintln(stdout, userUsage)
			return errHelp
		}
		if len(args) < 2 || args[1] != "create" {
			return usageError{userUsage}
		}
		return userCreate(ctx, args[2:], stdout, stderr)
	case "search":
		if len(args) >= 2 && isHelp(args[1]) {
			fmt.Fprintln(stdout, searchUsage)
			return errHelp
		}
		if len(args) < 2 || args[1] != "reindex" {
			return usageError{searchUsage}
		}
		return searchReindex(ctx, args[2:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprintln(stdout, usage)
		return errHelp
	}
	return usageError{fmt.Sprintf("unknown command %q\n%s", args[0], usage)}
}
