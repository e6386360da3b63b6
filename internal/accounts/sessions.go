package accounts

import (
	"context"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/session"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/audit"
	"github.com/geopub/geopub/internal/auth"
)

// Session is one of a user's live cookie sessions as they see it.
type Session struct {
	ID        int
	CreatedAt time.Time
	ExpiresAt time.Time
	// LastSeenAt is when a request last used it, to the minute; nil for
	// sessions started before it was recorded.
	LastSeenAt *time.Time
	ClientAddr string
	UserAgent  string
	// Current marks the session making the request.
	Current bool
}

// maxSessions bounds the list; a user has few live sessions, and expired
// ones are removed at each sign-in.
const maxSessions = 500

// Sessions lists the caller's live sessions, newest first.
func (s *Service) Sessions(ctx context.Context) ([]Session, error) {
	me, err := access.RequireUser(ctx, auth.ScopeUsersRead)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.Client.Session.Query().
		Where(session.UserID(me.ID), session.ExpiresAtGT(time.Now().UTC())).
		Order(ent.Desc(session.FieldCreatedAt), ent.Desc(session.FieldID)).
		Limit(maxSessions).All(ctx)
	if err != nil {
		return nil, err
	}
	current := currentSession(ctx)
	out := make([]Session, 0, len(rows))
	for _, r := range rows {
		out = append(out, Session{ID: r.ID, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, LastSeenAt: r.LastSeenAt,
			ClientAddr: r.ClientAddr, UserAgent: r.UserAgent, Current: r.ID == current})
	}
	return out, nil
}

// EndSession ends one of the caller's sessions (the current one too, which
// signs them out). Another user's session is not found.
func (s *Service) EndSession(ctx context.Context, id int) error {
	me, err := access.RequireUser(ctx, auth.ScopeUsersWrite)
	if err != nil {
		return err
	}
	err = audit.Atomically(ctx, s.Store, func(ctx context.Context, c *ent.Client) error {
		n, err := c.Session.Delete().Where(session.ID(id), session.UserID(me.ID)).Exec(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.New(apperr.NotFound, "Session %d not found.", id)
		}
		return recordSessionsEnded(ctx, c, me.ID, map[string]any{"session_id": id})
	})
	if err != nil {
		return err
	}
	if id == currentSession(ctx) {
		_ = auth.ClearSessionCookie(ctx) // outside an HTTP request there is no cookie
	}
	return nil
}

// EndOtherSessions ends every session of the caller but the one making
// the request, and returns how many ended.
func (s *Service) EndOtherSessions(ctx context.Context) (int, error) {
	me, err := access.RequireUser(ctx, auth.ScopeUsersWrite)
	if err != nil {
		return 0, err
	}
	var n int
	err = audit.Atomically(ctx, s.Store, func(ctx context.Context, c *ent.Client) error {
		var err error
		n, err = c.Session.Delete().Where(session.UserID(me.ID), session.IDNEQ(currentSession(ctx))).Exec(ctx)
		if err != nil || n == 0 {
			return err // nothing ended: no entry
		}
		return recordSessionsEnded(ctx, c, me.ID, map[string]any{"sessions_ended": n})
	})
	return n, err
}

// currentSession is the id of the session making the request, 0 for
// token and anonymous requests.
func currentSession(ctx context.Context) int {
	if sess := auth.FromContext(ctx).Session; sess != nil {
		return sess.ID
	}
	return 0
}
