package auth

import (
	"context"

	"github.com/geopub/geopub/ent"
)

// SignIn starts a cookie session for user u on the request behind ctx, as
// every sign-in does (password or single sign-on): the caller's current
// session, if any, ends first, so a session value planted before sign-in
// never becomes authenticated; then the session and CSRF cookies are set.
func (s *Service) SignIn(ctx context.Context, u *ent.User) (*ent.Session, error) {
	if old := FromContext(ctx).Session; old != nil {
		if err := s.EndSession(ctx, old); err != nil {
			return nil, err
		}
	}
	sess, value, err := s.StartSession(ctx, u)
	if err != nil {
		return nil, err
	}
	err = SetSessionCookie(ctx, value, sess.ExpiresAt)
	if err == nil {
		err = SetCSRFCookie(ctx, sess.CsrfToken, sess.ExpiresAt)
	}
	if err != nil {
		_ = s.EndSession(ctx, sess) // the cookie cannot reach the client
		return nil, err
	}
	return sess, nil
}
