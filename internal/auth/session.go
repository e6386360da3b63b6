package auth

import (
	"context"
	"net/http"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/session"
)

// sessionSecretBytes is the entropy of session values and CSRF tokens.
const sessionSecretBytes = 32

// StartSession creates a cookie session for user lasting cfg.SessionTTL. It
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
	sess, err := s.client.Session.Create().
		SetUserID(user.ID).
		SetTokenHash(HashKey(value)).
		SetCsrfToken(csrf).
		SetCreatedAt(now).
		SetExpiresAt(now.Add(s.cfg.SessionTTL)).
		Save(ctx)
	if err != nil {
		return nil, "", internalErr(err)
	}
	sess.Edges.User = user
	return sess, value, nil
}

// EndSession deletes sess; ending a session that is already gone is not an
// error.
func (s *Service) EndSession(ctx context.Context, sess *ent.Session) error {
	err := s.client.Session.DeleteOneID(sess.ID).Exec(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return internalErr(err)
	}
	return nil
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
		return nil, s.EndSession(ctx, sess)
	}
	if sess.Edges.User == nil || sess.Edges.User.IsLocked {
		return nil, nil
	}
	return sess, nil
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
