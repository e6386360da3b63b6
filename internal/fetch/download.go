package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// ErrTooLarge reports a download beyond the client's size limit.
var ErrTooLarge = errors.New("fetch: download exceeds the size limit")

// ErrStalled reports a download during which the server sent less than
// MinProgress bytes within the client's StallTimeout.
var ErrStalled = errors.New("fetch: the server sent no data for too long")

// ErrTooSlow reports a download that did not finish within the client's
// Timeout, its total budget.
var ErrTooSlow = errors.New("fetch: the download took longer than allowed")

// Defaults of Client's limits.
const (
	DefaultMaxBytes     = 10 << 30
	DefaultTimeout      = 30 * time.Minute
	DefaultStallTimeout = 60 * time.Second
	DefaultMinProgress  = 16 << 10
)

// Client downloads remote files through a Guard.
type Client struct {
	Guard *Guard
	// MaxBytes bounds one download; default DefaultMaxBytes.
	MaxBytes int64
	// Timeout is the total budget of one download, connection and
	// redirects included; default DefaultTimeout.
	Timeout time.Duration
	// StallTimeout is how long a download may go without receiving a
	// byte (while connecting, waiting for the answer or reading the
	// body) before it is abandoned; default DefaultStallTimeout.
	StallTimeout time.Duration
	// MinProgress is how many bytes of the body must arrive within each
	// StallTimeout; default DefaultMinProgress (16 KiB a minute).
	MinProgress int64
}

// Credentials and TLS policy of one source.
type Options struct {
	Username, Password string
	// SSLVerify checks certificates; sources default to true.
	SSLVerify bool
}

// Info describes a finished download.
type Info struct {
	// Name is the file name from Content-Disposition or the URL path.
	Name        string
	ContentType string
	Size        int64
}

// Download fetches u into dst. Every connection, redirects included, is
// checked against the guard at connect time. The credentials of opts are
// sent only to u's origin (scheme, host and port): a redirect elsewhere
// is followed without them. A download that receives nothing for
// StallTimeout fails with ErrStalled, one that exceeds Timeout with
// ErrTooSlow.
func (c *Client) Download(ctx context.Context, u *url.URL, opts Options, dst io.Writer) (Info, error) {
	if u.Scheme != "http" && u.Scheme != "https" {
		return Info{}, fmt.Errorf("fetch: unsupported scheme %q", u.Scheme)
	}
	timeout, limit, stall := c.Timeout, c.MaxBytes, c.StallTimeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if stall <= 0 {
		stall = DefaultStallTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("%w (%s)", ErrTooSlow, timeout))
	defer cancel()
	minBytes := c.MinProgress
	if minBytes <= 0 {
		minBytes = DefaultMinProgress
	}
	watch := newWatchdog(ctx, stall, minBytes)
	defer watch.stop()
	ctx = watch.ctx
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Info{}, err
	}
	req.Header.Set("User-Agent", "Geopub/1 (source scanner)")
	resp, err := c.HTTPClient(opts, u).Do(req)
	if err != nil {
		if errors.Is(err, ErrForbiddenAddress) {
			return Info{}, fmt.Errorf("%w: the server or a redirect points at a private or internal address", ErrForbiddenAddress)
		}
		return Info{}, fmt.Errorf("fetch: %s: %w", redact(u), causeOf(ctx, bare(err)))
	}
	defer resp.Body.Close()
	watch.progress(-1)
	if resp.StatusCode != http.StatusOK {
		return Info{}, fmt.Errorf("fetch: %s answered %s", redact(u), resp.Status)
	}
	if resp.ContentLength > limit {
		return Info{}, fmt.Errorf("%w (%d bytes announced, %d allowed)", ErrTooLarge, resp.ContentLength, limit)
	}
	n, err := io.Copy(dst, io.LimitReader(&progressReader{r: resp.Body, w: watch}, limit+1))
	if err != nil {
		return Info{}, fmt.Errorf("fetch: reading %s: %w", redact(u), causeOf(ctx, err))
	}
	if n > limit {
		return Info{}, fmt.Errorf("%w (%d bytes allowed)", ErrTooLarge, limit)
	}
	return Info{Name: fileName(resp), ContentType: resp.Header.Get("Content-Type"), Size: n}, nil
}

// causeOf replaces a transport error by the reason ctx ended (a stall or
// the total budget), when it ended for one of those.
func causeOf(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && (errors.Is(cause, ErrStalled) || errors.Is(cause, ErrTooSlow)) {
		return cause
	}
	return err
}

// HTTPClient is the guarded client remote reads use: every connection
// passes the guard (redirects included), certificates are checked unless
// opts.SSLVerify is off, and credentials go only to origin's scheme, host
// and port: no redirect carries them elsewhere (checkRedirect).
func (c *Client) HTTPClient(opts Options, origin *url.URL) *http.Client {
	dialer := c.Guard.Dialer()
	var transport http.RoundTripper = &http.Transport{
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{InsecureSkipVerify: !opts.SSLVerify}, //nolint:gosec // the source's own setting
		TLSHandshakeTimeout:   30 * time.Second,
		ResponseHeaderTimeout: 2 * time.Minute,
		MaxIdleConns:          2,
		Proxy:                 nil,
	}
	if opts.Username != "" || opts.Password != "" {
		transport = &originAuth{next: transport, origin: originOf(origin), user: opts.Username, pass: opts.Password}
	}
	return &http.Client{
		Transport:     transport,
		CheckRedirect: checkRedirect(opts.Password),
	}
}

// fileName picks the download's name: Content-Disposition, else the last
// path segment of the final URL.
func fileName(resp *http.Response) string {
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
		if n := path.Base(strings.ReplaceAll(params["filename"], "\\", "/")); n != "" && n != "." && n != "/" {
			return n
		}
	}
	if n := path.Base(resp.Request.URL.Path); n != "" && n != "." && n != "/" {
		return n
	}
	return "download"
}

// bare is a client error without the *url.Error around it, which names
// the URL requested, query (and any token in it) included.
func bare(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// redact drops any query string, which may hold tokens, from a URL for
// messages.
func redact(u *url.URL) string {
	c := *u
	c.RawQuery, c.User = "", nil
	return c.String()
}
