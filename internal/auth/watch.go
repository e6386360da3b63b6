package auth

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/session"
	"github.com/geopub/geopub/ent/token"
)

// DefaultStreamRecheck is how often the credentials of open streams are
// read again when Config.StreamRecheck is zero.
const DefaultStreamRecheck = 500 * time.Millisecond

// Revoked is why a watched stream ended: its credential no longer passes.
// Status is 401 when the token or session is gone or expired or the user
// is locked, 403 when the token lost a scope it had.
type Revoked struct {
	Status int
	Detail string
}

func (r *Revoked) Error() string { return r.Detail }

// RevokedFrom returns the revocation that ended ctx (a context of Watch),
// nil when ctx is live or ended otherwise.
func RevokedFrom(ctx context.Context) *Revoked {
	var r *Revoked
	if errors.As(context.Cause(ctx), &r) {
		return r
	}
	return nil
}

// Watch returns ctx, cancelled with a *Revoked cause (see RevokedFrom) as
// soon as p's token or session stops passing: deleted, expired, its user
// locked, or (tokens) a scope taken away. Requests are checked once, at
// the door; streams (websockets, server-sent events) live on, so every
// Config.StreamRecheck the credentials of all open streams of this
// process are read again from the database, in one query per kind. A
// change made by any process is thus seen within that time. Anonymous
// principals are not watched. The returned stop must be called when the
// stream ends.
func (s *Service) Watch(ctx context.Context, p Principal) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	if p.Token == nil && p.Session == nil {
		return ctx, func() { cancel(context.Canceled) }
	}
	w := &watched{p: p, cancel: cancel}
	s.streams.add(s, w)
	context.AfterFunc(ctx, func() { s.streams.remove(w) })
	return ctx, func() { cancel(context.Canceled) }
}

// watched is one open stream's credential.
type watched struct {
	p      Principal
	cancel context.CancelCauseFunc
}

// streamWatch holds the open streams; its loop runs while there are any.
type streamWatch struct {
	mu      sync.Mutex
	open    map[*watched]struct{}
	running bool
}

func (sw *streamWatch) add(s *Service, w *watched) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.open == nil {
		sw.open = map[*watched]struct{}{}
	}
	sw.open[w] = struct{}{}
	if !sw.running {
		sw.running = true
		go s.recheckLoop()
	}
}

func (sw *streamWatch) remove(w *watched) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	delete(sw.open, w)
}

// snapshot lists the open streams; with none, it stops the loop.
func (sw *streamWatch) snapshot() []*watched {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if len(sw.open) == 0 {
		sw.running = false
		return nil
	}
	out := make([]*watched, 0, len(sw.open))
	for w := range sw.open {
		out = append(out, w)
	}
	return out
}

func (s *Service) recheckLoop() {
	t := time.NewTicker(s.cfg.StreamRecheck)
	defer t.Stop()
	for range t.C {
		open := s.streams.snapshot()
		if open == nil {
			return
		}
		s.recheck(open)
	}
}

// recheckBatch bounds the ids of one IN list.
const recheckBatch = 500

// recheck reads the tokens and sessions of open and ends the streams whose
// credential fails. A failed read ends nothing: it is tried again next time.
func (s *Service) recheck(open []*watched) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var tokIDs, sessIDs []int
	for _, w := range open {
		if w.p.Token != nil {
			tokIDs = append(tokIDs, w.p.Token.ID)
		} else {
			sessIDs = append(sessIDs, w.p.Session.ID)
		}
	}
	toks := map[int]*ent.Token{}
	for ids := range chunks(tokIDs) {
		rows, err := s.client.Token.Query().Where(token.IDIn(ids...)).WithUser().All(ctx)
		if err != nil {
			return
		}
		for _, t := range rows {
			toks[t.ID] = t
		}
	}
	sessions := map[int]*ent.Session{}
	for ids := range chunks(sessIDs) {
		rows, err := s.client.Session.Query().Where(session.IDIn(ids...)).WithUser().All(ctx)
		if err != nil {
			return
		}
		for _, ss := range rows {
			sessions[ss.ID] = ss
		}
	}
	now := s.clock()
	for _, w := range open {
		var r *Revoked
		if w.p.Token != nil {
			r = tokenRevoked(w.p, toks[w.p.Token.ID], now)
		} else {
			r = sessionRevoked(sessions[w.p.Session.ID], now)
		}
		if r != nil {
			w.cancel(r)
		}
	}
}

func chunks(ids []int) func(func([]int) bool) {
	return func(yield func([]int) bool) {
		for len(ids) > 0 {
			n := min(len(ids), recheckBatch)
			if !yield(ids[:n]) {
				return
			}
			ids = ids[n:]
		}
	}
}

func tokenRevoked(p Principal, tok *ent.Token, now time.Time) *Revoked {
	switch {
	case tok == nil:
		return &Revoked{http.StatusUnauthorized, "Invalid token."}
	case tok.ExpiresAt != nil && !tok.ExpiresAt.After(now):
		return &Revoked{http.StatusUnauthorized, "Token has expired."}
	case tok.Edges.User == nil || tok.Edges.User.IsLocked:
		return &Revoked{http.StatusUnauthorized, msgAccountLocked}
	case !ParseScopes(tok.Scope).Covers(p.Scopes):
		return &Revoked{http.StatusForbidden, "The token's scopes have been reduced."}
	}
	return nil
}

func sessionRevoked(sess *ent.Session, now time.Time) *Revoked {
	switch {
	case sess == nil:
		return &Revoked{http.StatusUnauthorized, "The session has ended."}
	case !sess.ExpiresAt.After(now):
		return &Revoked{http.StatusUnauthorized, "The session has expired."}
	case sess.Edges.User == nil || sess.Edges.User.IsLocked:
		return &Revoked{http.StatusUnauthorized, msgAccountLocked}
	}
	return nil
}

// MsgAccountLocked is the refusal a locked user's credentials get.
const MsgAccountLocked = msgAccountLocked

// EndUserStreams ends at once, with cause r, the open streams of this
// process whose credential belongs to userID (a user just locked or
// deleted); streams on other processes end at their next recheck.
func (s *Service) EndUserStreams(userID int, r *Revoked) {
	s.streams.mu.Lock()
	var hit []*watched
	for w := range s.streams.open {
		if w.p.User != nil && w.p.User.ID == userID {
			hit = append(hit, w)
		}
	}
	s.streams.mu.Unlock()
	for _, w := range hit {
		w.cancel(r)
	}
}
