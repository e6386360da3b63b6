// Package apperr is Geopub's small error vocabulary. Every layer returns
// these errors (wrapped as it likes); the REST adapter and the GraphQL error
// presenter map them to a status code and a stable code with one table, so
// both front doors answer the same failure the same way.
package apperr

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// Code names a class of failure. The string is what GraphQL clients see in
// extensions.code.
type Code string

// The codes, with the HTTP status each maps to.
const (
	Invalid          Code = "BAD_REQUEST"           // 400
	Unauthenticated  Code = "UNAUTHENTICATED"       // 401
	PermissionDenied Code = "FORBIDDEN"             // 403
	NotFound         Code = "NOT_FOUND"             // 404
	NotAllowed       Code = "METHOD_NOT_ALLOWED"    // 405
	Conflict         Code = "CONFLICT"              // 409
	TooLarge         Code = "PAYLOAD_TOO_LARGE"     // 413
	TooManyRequests  Code = "TOO_MANY_REQUESTS"     // 429
	Internal         Code = "INTERNAL_SERVER_ERROR" // 500
	Unavailable      Code = "SERVICE_UNAVAILABLE"   // 503: busy, retry after RetryAfter
	TimedOut         Code = "TIMEOUT"               // 504: the request's time budget ran out
)

var statusOf = map[Code]int{
	Invalid:          http.StatusBadRequest,
	Unauthenticated:  http.StatusUnauthorized,
	PermissionDenied: http.StatusForbidden,
	NotFound:         http.StatusNotFound,
	NotAllowed:       http.StatusMethodNotAllowed,
	Conflict:         http.StatusConflict,
	TooLarge:         http.StatusRequestEntityTooLarge,
	TooManyRequests:  http.StatusTooManyRequests,
	Internal:         http.StatusInternalServerError,
	Unavailable:      http.StatusServiceUnavailable,
	TimedOut:         http.StatusGatewayTimeout,
}

// HTTPStatus is the status code a REST response carries for c.
func (c Code) HTTPStatus() int {
	if s, ok := statusOf[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Error is a failure that is safe to show to the caller: Message is written
// for them. Fields holds per-field validation messages for Invalid errors.
type Error struct {
	Code    Code
	Message string
	Fields  map[string][]string
	// RetryAfter, in seconds, accompanies TooManyRequests and Unavailable.
	RetryAfter int
	cause      error
}

func (e *Error) Error() string {
	if e.cause != nil {
		return e.Message + ": " + e.cause.Error()
	}
	return e.Message
}

// Unwrap returns the underlying cause, kept for logs only.
func (e *Error) Unwrap() error { return e.cause }

// New returns an error of the given code with a message for the caller.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error of the given code whose message is shown to the
// caller while cause is kept for logs.
func Wrap(cause error, code Code, message string) *Error {
	return &Error{Code: code, Message: message, cause: cause}
}

// Field returns an Invalid error naming one field and what is wrong with it.
func Field(field, message string) *Error {
	return &Error{
		Code:    Invalid,
		Message: field + ": " + message,
		Fields:  map[string][]string{field: {message}},
	}
}

// WrapField is Field keeping cause for logs: a store failure that is the
// caller's input, shown as a message about one field.
func WrapField(cause error, field, message string) *Error {
	e := Field(field, message)
	e.cause = cause
	return e
}

// FieldErrors collects validation messages per field.
type FieldErrors map[string][]string

// Add records a message for a field.
func (f FieldErrors) Add(field, message string) { f[field] = append(f[field], message) }

// Err returns nil when nothing was recorded, else one Invalid error.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	names := make([]string, 0, len(f))
	for k := range f {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, k := range names {
		parts = append(parts, k+": "+strings.Join(f[k], " "))
	}
	return &Error{Code: Invalid, Message: strings.Join(parts, "; "), Fields: map[string][]string(f)}
}

// Common errors with the wording existing clients see.
var (
	ErrNotAuthenticated = New(Unauthenticated, "Authentication credentials were not provided.")
	ErrForbidden        = New(PermissionDenied, "You do not have permission to perform this action.")
	ErrNotFound         = New(NotFound, "Not found.")
)

// MissingScope is the 401 a token gets when it lacks the scope an operation
// needs; the message names the scope, as the specification requires.
func MissingScope(scope string) *Error {
	return New(Unauthenticated, "The token lacks the required scope: %s.", scope)
}

// As returns the *Error in err's chain, or an Internal error wrapping err
// (whose cause is never shown to callers) when there is none.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: TimedOut, Message: ErrTimedOut.Message, cause: err}
	}
	if DatabaseUnreachable(err) {
		return DatabaseLost(err)
	}
	return &Error{Code: Internal, Message: "Internal server error.", cause: err}
}

// ErrTimedOut is what a caller learns when their request's time budget ran
// out and its work was stopped.
var ErrTimedOut = New(TimedOut, "The request took longer than the time the service allows one request and was stopped; narrow its filter, area or page size.")

// ErrDatabaseUnavailable is what a caller learns when the service cannot
// reach its database: an outage to wait out, not a fault of the request.
var ErrDatabaseUnavailable = &Error{Code: Unavailable, RetryAfter: 5,
	Message: "The service cannot reach its database at the moment; try again shortly."}

// DatabaseLost is ErrDatabaseUnavailable keeping cause for logs: what the
// store's connections return when the database closed them or cannot be
// reached.
func DatabaseLost(cause error) *Error {
	return &Error{Code: Unavailable, Message: ErrDatabaseUnavailable.Message,
		RetryAfter: ErrDatabaseUnavailable.RetryAfter, cause: cause}
}

// DatabaseUnreachable reports whether err is the database being out of
// reach rather than a failure of the statement: a connection the pool
// could not make or lost (database/sql's ErrConnDone and ErrBadConn,
// PostgreSQL's connect errors, its connection-exception and shutdown
// states and a database that is gone), or an SQLite file that cannot be
// opened or read (SQLITE_CANTOPEN, SQLITE_IOERR). It goes by the drivers'
// error types, never by text, so a message that merely mentions a
// connection is not mistaken for one.
func DatabaseUnreachable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var state interface{ SQLState() string }
	if errors.As(err, &state) {
		switch s := state.SQLState(); {
		case strings.HasPrefix(s, "08"), // connection exception
			s == "57P01", s == "57P02", s == "57P03", // admin or crash shutdown, cannot connect now
			s == "53300", // too many connections
			s == "3D000": // the database does not exist (dropped or renamed)
			return true
		}
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // the primary code of an extended one
		case sqliteCantOpen, sqliteIOErr:
			return true
		}
	}
	return false
}

// SQLite's primary result codes for a file it cannot open or read.
const (
	sqliteIOErr    = 10
	sqliteCantOpen = 14
)

// CodeOf returns the code of err, Internal when err is not an *Error.
func CodeOf(err error) Code { return As(err).Code }

// ByteSize writes a size limit for the people who read error messages:
// 16 MiB, 512 KiB, 100 bytes.
func ByteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Codes lists every code, in the order of their HTTP statuses.
func Codes() []Code {
	codes := make([]Code, 0, len(statusOf))
	for c := range statusOf {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool { return statusOf[codes[i]] < statusOf[codes[j]] })
	return codes
}

// ForStatus is the code of an HTTP error status, Internal for a status no
// code maps to; for the few writers that start from a status.
func ForStatus(status int) Code {
	for c, s := range statusOf {
		if s == status {
			return c
		}
	}
	return Internal
}
