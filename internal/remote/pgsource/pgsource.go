// Package pgsource is the PostgreSQL kind of remote source
// (postgresql://host:port/database): every table and view the user may
// read in the source's schemas is a datasource, a vector one when it has
// a PostGIS geometry or geography column. Scans read the catalogue and
// hash each relation's rows (the fingerprint); imports stream the rows
// through a server-side cursor into a local GeoPackage that GDAL reads.
//
// Connections dial through the address guard, so the guard sees the
// address actually reached. ssl_verify true means sslmode=verify-full
// (TLS required, certificate and host name checked); false means
// sslmode=prefer (TLS when the server offers it, unchecked, else plain).
// Errors are written here, never passed on from the driver, whose
// messages may name the user or the connection string.
package pgsource

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/remote"
)

// Kind reads PostgreSQL sources.
type Kind struct{}

var (
	_ remote.Service    = Kind{}
	_ remote.URLChecker = Kind{}
)

// target is where a source's database is.
type target struct {
	host     string
	port     uint16
	database string
}

func (t target) addr() string { return net.JoinHostPort(t.host, strconv.Itoa(int(t.port))) }

// CheckURL accepts postgresql://host[:port]/database and nothing more:
// no credentials (the guard refuses those), query parameters or
// further path.
func (Kind) CheckURL(u *url.URL) error {
	_, err := parseTarget(u)
	return err
}

func parseTarget(u *url.URL) (target, error) {
	if u.User != nil {
		return target{}, remote.Permanent("The URL must not contain credentials: give them as options.username and options.password.")
	}
	if u.Hostname() == "" {
		return target{}, remote.Permanent("Give the database server's host, as in postgresql://db.example.com:5432/gis.")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return target{}, remote.Permanent("The URL must not have query parameters: use postgresql://host:port/database.")
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" || strings.Contains(db, "/") {
		return target{}, remote.Permanent("Give the database's name as the URL's path, as in postgresql://db.example.com:5432/gis.")
	}
	port := uint16(5432)
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return target{}, remote.Permanent("The port must be a number from 1 to 65535.")
		}
		port = uint16(n)
	}
	return target{host: u.Hostname(), port: port, database: db}, nil
}

// connect opens a connection to the source's database.
func connect(ctx context.Context, c remote.Conn) (*pgx.Conn, target, error) {
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, target{}, remote.Permanent("The source URL is not valid.")
	}
	t, err := parseTarget(u)
	if err != nil {
		return nil, t, remote.Permanent(err.Error())
	}
	// No user is assumed (postgres, or the one Geopub runs as).
	if strings.TrimSpace(c.Username) == "" {
		return nil, t, remote.Permanent("The source has no username: give options.username.")
	}
	// Every setting is given here: nothing comes from the environment
	// (PG* variables, a password file) of the server Geopub runs on.
	cfg, err := pgx.ParseConfig("sslmode=disable")
	if err != nil {
		return nil, t, err
	}
	cfg.Host, cfg.Port, cfg.Database = t.host, t.port, t.database
	cfg.User, cfg.Password = c.Username, c.Password
	cfg.ConnectTimeout = 30 * time.Second
	cfg.RuntimeParams = map[string]string{"application_name": "geopub"}
	cfg.KerberosSrvName, cfg.KerberosSpn = "", ""
	cfg.ValidateConnect, cfg.AfterConnect, cfg.AfterNetConnect = nil, nil, nil
	cfg.Fallbacks = nil
	cfg.SSLNegotiation = ""
	cfg.TLSConfig = &tls.Config{ServerName: t.host, MinVersion: tls.VersionTLS12}
	if !c.SSLVerify {
		cfg.TLSConfig.InsecureSkipVerify = true
		cfg.Fallbacks = []*pgconn.FallbackConfig{{Host: t.host, Port: t.port}}
	}
	guard := &fetch.Guard{}
	if c.Fetch != nil && c.Fetch.Guard != nil {
		guard = c.Fetch.Guard
	}
	cfg.DialFunc = guard.Dialer().DialContext
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, t, describe(err, t, c)
	}
	return conn, t, nil
}

// failure is an error with a message written for users that still
// answers errors.Is for its cause's sentinel (the guard's refusal).
type failure struct {
	msg   string
	cause error
}

func (f *failure) Error() string { return f.msg }
func (f *failure) Unwrap() error { return f.cause }

// describe turns a driver error into one whose message names no
// credential and no connection string.
func describe(err error, t target, c remote.Conn) error {
	var pe *pgconn.PgError
	var ue x509.UnknownAuthorityError
	var he x509.HostnameError
	var ce x509.CertificateInvalidError
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, fetch.ErrForbiddenAddress):
		return &failure{fmt.Sprintf("The database host %s is a private or internal address, which sources may not reach.", t.host), fetch.ErrForbiddenAddress}
	case errors.As(err, &pe):
		return pgFailure(pe, t, c)
	case errors.As(err, &ue), errors.As(err, &he), errors.As(err, &ce):
		return remote.Permanent(fmt.Sprintf("The database server %s presented a certificate that could not be verified; set options.ssl_verify to false to connect without checking it.", t.addr()))
	case strings.Contains(err.Error(), "server refused TLS connection"):
		return remote.Permanent(fmt.Sprintf("The database server %s does not offer TLS, which options.ssl_verify (true by default) requires; set it to false to connect without TLS.", t.addr()))
	case errors.As(err, &dnsErr):
		return &failure{fmt.Sprintf("Cannot resolve the database host %s.", t.host), nil}
	case errors.Is(err, syscallRefused):
		return &failure{fmt.Sprintf("Could not connect to the database server %s: connection refused.", t.addr()), nil}
	case isTimeout(err):
		return &failure{fmt.Sprintf("Could not connect to the database server %s: timed out.", t.addr()), nil}
	}
	return &failure{fmt.Sprintf("Could not connect to the database server %s.", t.addr()), nil}
}

// pgFailure describes an error the server reported.
func pgFailure(pe *pgconn.PgError, t target, c remote.Conn) error {
	switch {
	case pe.Code == "28P01" || pe.Code == "28000":
		return remote.Permanent(fmt.Sprintf("The database server %s refused the credentials (authentication failed): check options.username and options.password.", t.addr()))
	case pe.Code == "3D000":
		return remote.Permanent(fmt.Sprintf("The database %q does not exist on %s.", t.database, t.addr()))
	case pe.Code == "42501":
		return remote.Permanent("The database user may not read this: " + scrub(pe.Message, c))
	case strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "53") || strings.HasPrefix(pe.Code, "57"):
		return &failure{fmt.Sprintf("The database server %s is not available: %s (SQLSTATE %s).", t.addr(), scrub(pe.Message, c), pe.Code), nil}
	}
	return remote.Permanent(fmt.Sprintf("The database reported: %s (SQLSTATE %s).", scrub(pe.Message, c), pe.Code))
}

// scrub blanks the source's credentials out of a server's message.
func scrub(msg string, c remote.Conn) string {
	for _, s := range []string{c.Password, c.Username} {
		if len(s) >= 3 {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	return msg
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// queryError describes an error of a query on an open connection.
func queryError(err error, t target, c remote.Conn) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pgFailure(pe, t, c)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return &failure{fmt.Sprintf("Reading from the database server %s failed.", t.addr()), nil}
}
