// Package remote holds the contract every source that lives on another
// server keeps: how it is reached (Conn, built from the source's row by
// ConnOf) and what it offers. A file kind (an object-store bucket, a file
// share) copies its files into a folder, where they are scanned like an
// upload. A service kind (PostgreSQL, WFS, ArcGIS REST) lists its layers
// and tables without copying them, and copies one when it is imported.
//
// Each kind lives in its own package under internal/remote; package
// scanning picks the kind for a source's type.
package remote

import (
	"context"
	"errors"
	"net/url"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/secrets"
)

// Conn is what a kind needs to reach one source.
type Conn struct {
	// URL is the source's url_remote; it never holds credentials.
	URL string
	// Username and Password are the source's credentials, in clear: they
	// must never be logged, returned or written into an error message.
	Username, Password string
	// SSLVerify says whether certificates are checked (default true).
	SSLVerify bool
	// Folders limits an ArcGIS scan; Schemas a PostgreSQL scan.
	Folders, Schemas []string
	// Endpoint (an http(s) URL of an S3-compatible server, AWS when
	// empty) and Region locate an object store.
	Endpoint, Region string
	// Fetch is the guarded HTTP client; Fetch.Guard also guards every
	// other connection (dial through Fetch.Guard.Dialer()).
	Fetch *fetch.Client
}

// ConnOf is how a source's row is reached. The row's credentials are
// sealed (package secrets): box opens them, and a key that does not fit
// is a Permanent error that names no secret.
func ConnOf(src *ent.Source, f *fetch.Client, box *secrets.Box) (Conn, error) {
	c := Conn{
		URL: src.URLRemote, Username: src.Username, Password: src.Password, SSLVerify: src.SslVerify,
		Folders: src.Folders, Schemas: src.Schemas, Endpoint: src.Endpoint, Region: src.Region, Fetch: f,
	}
	if box == nil {
		if secrets.Sealed(c.Username) || secrets.Sealed(c.Password) {
			return Conn{}, Permanent(secrets.ErrWrongKey.Error())
		}
		return c, nil
	}
	var err error
	if c.Username, err = box.Open(src.Username); err != nil {
		return Conn{}, Permanent(err.Error())
	}
	if c.Password, err = box.Open(src.Password); err != nil {
		return Conn{}, Permanent(err.Error())
	}
	return c, nil
}

// PermanentError is a failure no retry mends (refused credentials, a
// missing database): scans and imports fail at once with its message,
// which kinds write for users and keep free of secrets.
type PermanentError struct{ Msg string }

func (e *PermanentError) Error() string { return e.Msg }

// Permanent is a PermanentError with msg.
func Permanent(msg string) error { return &PermanentError{Msg: msg} }

// IsPermanent reports whether err is, or wraps, a PermanentError or an
// error that says it is one (a Permanent() bool method: a server's refusal
// of the credentials, say).
func IsPermanent(err error) bool {
	var pe *PermanentError
	if errors.As(err, &pe) {
		return true
	}
	var p interface{ Permanent() bool }
	return errors.As(err, &p) && p.Permanent()
}

// Files is a kind whose content is files.
type Files interface {
	// Gather copies the source's files into inbox, keeping their relative
	// paths (slash separated), and returns those paths. Archives among
	// them are unpacked by the caller.
	Gather(ctx context.Context, c Conn, inbox string, note func(string)) ([]string, error)
}

// Service is a kind whose content is layers and tables served by another
// server.
type Service interface {
	// Discover lists the source's datasources without copying their
	// features. Each one's Path names it stably on the server (for
	// example "public.roads", "ns:roads", "Folder/Service/FeatureServer/3"),
	// Files is empty, and Fingerprint changes whenever its content does.
	Discover(ctx context.Context, c Conn, note func(string)) ([]ingest.Datasource, error)
	// Fetch copies the features of the datasource at path into a file
	// under dir that GDAL reads, reporting progress from 0 to 1, and
	// returns the file (relative to dir) and the layer to read in it.
	Fetch(ctx context.Context, c Conn, path, dir string, progress func(float64)) (file, layer string, err error)
}

// URLChecker is a kind that checks more of url_remote than its scheme
// (which the address guard checks) when a source is created or updated.
type URLChecker interface {
	// CheckURL returns an error whose message tells the user what is
	// wrong with u, or nil.
	CheckURL(u *url.URL) error
}
