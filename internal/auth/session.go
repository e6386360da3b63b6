package auth

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/session"
	"github.com/geopub/geopub/internal/audit"
)

// sessionSecretBytes is the entropy of session values and CSRF tokens.
const sessionSecretBytes = 32

// StartSession creates a cookie session for user lasting cfg.SessionTTL,
// recording the client address and User-Agent of the request in ctx. It
// returns the session (with its CSRF token) and the cookie value, which is
// random (32 bytes, base64url) and stored only as HashKey(value). Expired
// sessions of the user are removed on the way.
func (s *Service) StartSession(ctx context.Context, user *ent.User) (*ent.Session, string, error) {
	value, err := randomToken(sessionSecretBytes)
	if err != nil {
		return nil, "", err
	}
	csrf, err := randomToken(sessionSecretBytes)
	if err != nil {
		return nil, "", err
	}
	now := s.clock()
	_, err = s.client.Session.Delete().
		Where(session.UserID(user.ID), session.ExpiresAtLTE(now)).
		Exec(ctx)
	if err != nil {
		return nil, "", internalErr(err)
	}
	var sess *ent.Session
	err = audit.Atomically(ctx, s.tx, func(ctx context.Context, c *ent.Client) error {
		var err error
		sess, err = c.Session.Create().
			SetUserID(user.ID).
			SetTokenHash(HashKey(value)).
			SetCsrfToken(csrf).
			SetCreatedAt(now).
			SetExpiresAt(now.Add(s.cfg.SessionTTL)).
			SetLastSeenAt(now).
			SetClientAddr(ClientAddrFrom(ctx)).
			SetUserAgent(UserAgentFrom(ctx)).
			Save(ctx)
		if err != nil {
			return err
		}
		return audit.Record(ctx, c, audit.Entry{Action: "session.start", Actor: SessionActor(user, sess),
			Target: sessionTarget(user, sess), After: map[string]any{"user_id": user.ID, "expires_at": sess.ExpiresAt.UTC()}})
	})
	if err != nil {
		return nil, "", internalErr(err)
	}
	sess.Edges.User = user
	return sess, value, nil
}

// EndSession deletes sess, as signing out does, and records it; ending a
// session that is already gone is not an error and records nothing.
func (s *Service) EndSession(ctx context.Context, sess *ent.Session) error {
	err := audit.Atomically(ctx, s.tx, func(ctx context.Context, c *ent.Client) error {
		if err := c.Session.DeleteOneID(sess.ID).Exec(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, c, audit.Entry{Action: "session.end", Target: sessionTarget(sess.Edges.User, sess),
			Before: map[string]any{"user_id": sess.UserID, "expires_at": sess.ExpiresAt.UTC()}})
	})
	if err != nil && !ent.IsNotFound(err) {
		return internalErr(err)
	}
	return nil
}

// expireSession deletes an expired session: expiry is not an action, so
// it leaves no audit entry.
func (s *Service) expireSession(ctx context.Context, sess *ent.Session) error {
	err := s.client.Session.DeleteOneID(sess.ID).Exec(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return internalErr(err)
	}
	return nil
}

// sessionTarget names a session in the audit log (u may be nil).
func sessionTarget(u *ent.User, sess *ent.Session) audit.Target {
	t := audit.Target{Type: "session", ID: strconv.Itoa(sess.ID)}
	if u != nil {
		t.Label = u.Email
	}
	return t
}

// lookupSession returns the live session whose cookie value is value, with
// its user loaded, or nil when there is none, it has expired, or its user is
// locked. An expired session is deleted.
func (s *Service) lookupSession(ctx context.Context, value string) (*ent.Session, error) {
	sess, err := s.client.Session.Query().
		Where(session.TokenHash(HashKey(value))).
		WithUser().
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !sess.ExpiresAt.After(s.clock()) {
		return nil, s.expireSession(ctx, sess)
	}
	if sess.Edges.User == nil || sess.Edges.User.IsLocked {
		return nil, nil
	}
	return sess, nil
}

// touchSession records that sess was used, at most once per
// lastUsedGranularity, as touchToken does for tokens: conditional, so
// concurrent requests do not all write, and failures are ignored.
func (s *Service) touchSession(ctx context.Context, sess *ent.Session, now time.Time) {
	if sess.LastSeenAt != nil && now.Sub(*sess.LastSeenAt) < lastUsedGranularity {
		return
	}
	stale := now.Add(-lastUsedGranularity)
	err := s.client.Session.Update().
		Where(session.ID(sess.ID), session.Or(session.LastSeenAtIsNil(), session.LastSeenAtLTE(stale))).
		SetLastSeenAt(now).
		Exec(ctx)
	if err == nil {
		sess.LastSeenAt = &now
	}
}

// SessionOf returns the live session of r's session cookie, with its
// user, or nil when there is none (or it expired, or its user is
// locked). It checks no CSRF token: pages that post forms outside the
// middleware (the OAuth consent page) check their own form field.
func (s *Service) SessionOf(ctx context.Context, r *http.Request) (*ent.Session, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	sess, err := s.lookupSession(ctx, c.Value)
	if err != nil {
		return nil, internalErr(err)
	}
	return sess, nil
}
