package pagefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/fetch"
)

// Limits of what one answer may hold.
const (
	// MaxDocument bounds a capabilities, schema or catalogue answer.
	MaxDocument = 16 << 20
	// MaxPage bounds one page of features.
	MaxPage = 512 << 20
)

// Time limits of one answer: a document must arrive within
// DocumentTimeout, a page within PageTimeout, and neither may go
// StallTimeout without a byte once its head has come (the guarded
// client's transport bounds the wait for the head).
var (
	DocumentTimeout = 2 * time.Minute
	PageTimeout     = 30 * time.Minute
	StallTimeout    = 60 * time.Second
)

// ErrTooLarge reports an answer beyond its bound.
var ErrTooLarge = errors.New("the server's answer is larger than allowed")

// StatusError is an answer other than 200 OK.
type StatusError struct {
	Status string
	Code   int
	// Body is the start of the answer, for the server's own message.
	Body string
}

func (e *StatusError) Error() string { return "the server answered " + e.Status }

// Permanent reports whether asking again cannot help: the server refused
// the credentials or the request (401, 403), or has no such resource (400,
// 404, 405, 410). Scans and imports then fail at once (remote.IsPermanent).
func (e *StatusError) Permanent() bool {
	switch e.Code {
	case 400, 401, 403, 404, 405, 410:
		return true
	}
	return false
}

// Get asks for u and copies at most limit bytes of a 200 answer into w,
// returning the answer's content type.
func Get(ctx context.Context, hc *http.Client, u *url.URL, limit int64, w io.Writer) (string, error) {
	budget := PageTimeout
	if limit <= MaxDocument {
		budget = DocumentTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, budget, fmt.Errorf("the server took longer than %s to answer", budget))
	defer cancel()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", "Geopub/1 (source scanner)")
	resp, err := hc.Do(req)
	if err != nil {
		return "", Transport(cause(ctx, err))
	}
	defer resp.Body.Close()
	// The transport bounds the wait for the answer's head; from then on,
	// each StallTimeout must bring a byte.
	stall := time.AfterFunc(StallTimeout, func() { stop(fmt.Errorf("the server sent nothing for %s", StallTimeout)) })
	defer stall.Stop()
	if resp.StatusCode != http.StatusOK {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return "", &StatusError{Status: resp.Status, Code: resp.StatusCode, Body: strings.ToValidUTF8(string(head), "")}
	}
	if resp.ContentLength > limit {
		return "", fmt.Errorf("%w (%d bytes announced, %d allowed)", ErrTooLarge, resp.ContentLength, limit)
	}
	n, err := io.Copy(w, io.LimitReader(&watched{r: resp.Body, t: stall}, limit+1))
	if err != nil {
		return "", Transport(cause(ctx, err))
	}
	if n > limit {
		return "", fmt.Errorf("%w (%d bytes allowed)", ErrTooLarge, limit)
	}
	return resp.Header.Get("Content-Type"), nil
}

// GetBytes is Get into memory.
func GetBytes(ctx context.Context, hc *http.Client, u *url.URL, limit int64) ([]byte, string, error) {
	var b strings.Builder
	ct, err := Get(ctx, hc, u, limit, &b)
	return []byte(b.String()), ct, err
}

// GetFile is Get into the file at path.
func GetFile(ctx context.Context, hc *http.Client, u *url.URL, limit int64, path string) (string, error) {
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	ct, err := Get(ctx, hc, u, limit, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return ct, err
}

// watched resets the stall timer at each read that brings bytes.
type watched struct {
	r io.Reader
	t *time.Timer
}

func (w *watched) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.t.Reset(StallTimeout)
	}
	return n, err
}

// cause is the reason ctx ended, when it ended for a time limit, else err.
func cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c
	}
	return err
}

// Transport rewrites a client error without the URL it names (its query
// may hold a token): a refused address, a timeout, or the bare cause.
func Transport(err error) error {
	if errors.Is(err, fetch.ErrForbiddenAddress) {
		return fmt.Errorf("%w: the server or a redirect points at a private or internal address", fetch.ErrForbiddenAddress)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("cannot reach the server: %w", ue.Err)
	}
	return err
}

// With is e explained by the server's own message (an OWS exception, an
// ArcGIS error): "<status>: <detail>", wrapping both, so that the status
// still decides whether to retry.
func (e *StatusError) With(detail error) error { return &explained{status: e, detail: detail} }

type explained struct {
	status *StatusError
	detail error
}

func (x *explained) Error() string   { return x.status.Status + ": " + x.detail.Error() }
func (x *explained) Unwrap() []error { return []error{x.status, x.detail} }
