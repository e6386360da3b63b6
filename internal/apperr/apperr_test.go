package apperr_test

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	_ "modernc.org/sqlite"

	"github.com/geopub/geopub/internal/apperr"
)

func TestAsKeepsCodeThroughWrapping(t *testing.T) {
	err := fmt.Errorf("loading group: %w", apperr.ErrNotFound)
	if got := apperr.CodeOf(err); got != apperr.NotFound {
		t.Fatalf("code = %s, want NOT_FOUND", got)
	}
	if got := apperr.As(err).Code.HTTPStatus(); got != http.StatusNotFound {
		t.Fatalf("status = %d", got)
	}
}

func TestUnknownErrorsAreInternalAndHideTheirText(t *testing.T) {
	e := apperr.As(errors.New("pq: connection refused at 10.0.0.3"))
	if e.Code != apperr.Internal || e.Message != "Internal server error." {
		t.Fatalf("got %+v", e)
	}
}

func TestFieldErrors(t *testing.T) {
	var f = apperr.FieldErrors{}
	if f.Err() != nil {
		t.Fatal("empty field errors must be nil")
	}
	f.Add("name", "This field is required.")
	f.Add("country", "Not a country code.")
	e := apperr.As(f.Err())
	if e.Code != apperr.Invalid || len(e.Fields) != 2 {
		t.Fatalf("got %+v", e)
	}
	if e.Message != "country: Not a country code.; name: This field is required." {
		t.Fatalf("message = %q", e.Message)
	}
}

func TestMissingScopeNamesTheScope(t *testing.T) {
	e := apperr.MissingScope("users:read")
	if e.Code.HTTPStatus() != http.StatusUnauthorized || e.Message != "The token lacks the required scope: users:read." {
		t.Fatalf("got %+v", e)
	}
}

func TestCodesAndStatusesAreOneTable(t *testing.T) {
	codes := apperr.Codes()
	if len(codes) != 11 || codes[0] != apperr.Invalid || codes[8] != apperr.Internal || codes[len(codes)-1] != apperr.TimedOut {
		t.Fatalf("codes = %v", codes)
	}
	for _, c := range codes {
		if got := apperr.ForStatus(c.HTTPStatus()); got != c {
			t.Errorf("ForStatus(%d) = %s, want %s", c.HTTPStatus(), got, c)
		}
	}
	if got := apperr.ForStatus(http.StatusTeapot); got != apperr.Internal {
		t.Errorf("ForStatus(418) = %s", got)
	}
}

// Issue 24, point 25: a database out of reach is 503 with Retry-After in
// every door, recognised by the drivers' error types (never by text, as
// TestUnknownErrorsAreInternalAndHideTheirText keeps).
func TestDatabaseOutagesAreUnavailable(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+t.TempDir()+"/missing/folder/x.db?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sqliteErr := db.Ping()
	if sqliteErr == nil {
		t.Fatal("opening a file in a missing folder succeeded")
	}
	for name, err := range map[string]error{
		"ErrConnDone":        fmt.Errorf("listing: %w", sql.ErrConnDone),
		"ErrBadConn":         fmt.Errorf("listing: %w", driver.ErrBadConn),
		"admin shutdown":     fmt.Errorf("listing: %w", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}),
		"database gone":      &pgconn.PgError{Code: "3D000", Message: `database "x" does not exist`},
		"connection failure": &pgconn.PgError{Code: "08006"},
		"sqlite cannot open": sqliteErr,
		"lost":               apperr.DatabaseLost(errors.New("EOF")),
	} {
		e := apperr.As(err)
		if e.Code != apperr.Unavailable || e.Code.HTTPStatus() != http.StatusServiceUnavailable || e.RetryAfter <= 0 {
			t.Errorf("%s (%v): %+v; want SERVICE_UNAVAILABLE with RetryAfter", name, err, e)
		}
	}
	// A statement's own failure stays internal.
	if e := apperr.As(&pgconn.PgError{Code: "42P01", Message: "relation does not exist"}); e.Code != apperr.Internal {
		t.Errorf("an undefined table: %+v", e)
	}
}
