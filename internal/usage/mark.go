package usage

import (
	"io"
	"net/http"
	"sync"

	"github.com/geopub/geopub/internal/auth"
)

// maxMarks bounds the datasets one request is counted for (a point query
// names up to that many layers in one request; more are not counted).
const maxMarks = 8

// mark is one dataset a request served, through one service.
type mark struct {
	kind    Kind
	id      int
	service Service
	a       Amounts
}

// writer is the response writer Middleware hands the doors: it counts the
// bytes written and holds the marks of what was served. Writers are
// pooled: a request in the steady state allocates nothing for counting.
type writer struct {
	http.ResponseWriter
	status int
	bytes  int64
	n      int
	marks  [maxMarks]mark
}

var writers = sync.Pool{New: func() any { return new(writer) }}

func (w *writer) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *writer) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// ReadFrom keeps net/http's copy path (sendfile for files) and counts
// what it copied.
func (w *writer) ReadFrom(r io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(struct{ io.Writer }{w.ResponseWriter}, r)
	}
	w.bytes += n
	return n, err
}

// Flush flushes the wrapped writer, when it can.
func (w *writer) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap is the wrapped writer (http.ResponseController reads it).
func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Served marks, on the response writer of a request counted by
// Middleware, that the request served dataset id of kind through service,
// with the features, tiles, exports and downloads of a (its Requests and
// Bytes are set by the middleware). Marks of one dataset and service in
// one request add up. Without Middleware, or for an unknown kind or
// service, it does nothing. Doors call it once they have answered, or
// are about to answer, with what they served.
func Served(w http.ResponseWriter, kind Kind, id int, service Service, a Amounts) {
	if kind == NoKind || id <= 0 || service == NoService || service >= numServices {
		return
	}
	uw := find(w)
	if uw == nil {
		return
	}
	for i := range uw.n {
		m := &uw.marks[i]
		if m.kind == kind && m.id == id && m.service == service {
			m.a.add(a)
			return
		}
	}
	if uw.n == maxMarks {
		return
	}
	uw.marks[uw.n] = mark{kind: kind, id: id, service: service, a: a}
	uw.n++
}

// find returns the counting writer under w, nil when there is none.
func find(w http.ResponseWriter) *writer {
	for w != nil {
		if uw, ok := w.(*writer); ok {
			return uw
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

// Middleware counts the requests it passes on whose doors marked what
// they served (Served): one request per dataset marked, the bytes of the
// body (shared among the datasets of a request), and the amounts marked,
// for the request's API token. Requests answered with an error status
// (400 or more) are not counted. It must run after authentication, whose
// principal names the token.
func (c *Counter) Middleware(next http.Handler) http.Handler {
	if c == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uw := writers.Get().(*writer)
		uw.ResponseWriter = w
		next.ServeHTTP(uw, r)
		if uw.n > 0 && uw.status < http.StatusBadRequest {
			token := 0
			if t := auth.FromContext(r.Context()).Token; t != nil {
				token = t.ID
			}
			c.record(uw, token, r.Method == http.MethodGet && uw.status == http.StatusOK)
		}
		*uw = writer{}
		writers.Put(uw)
	})
}

// record adds a request's marks to the counters; their downloads count
// only when whole is set (a GET answered 200: not a HEAD, a range or a
// 304), so that doors mark a file download without asking.
func (c *Counter) record(uw *writer, token int, whole bool) {
	now := dayOf(c.now())
	share, rest := uw.bytes/int64(uw.n), uw.bytes%int64(uw.n)
	for i := range uw.n {
		m := uw.marks[i]
		a := m.a
		a.Requests = 1
		if !whole {
			a.Downloads = 0
		}
		a.Bytes = share
		if i == 0 {
			a.Bytes += rest
		}
		c.add(key{day: now, kind: m.kind, service: m.service, dataset: m.id, token: token}, a)
	}
}
