package auth

import (
	"context"
	"github.com/geopub/geopub/internal/textrules"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/apperr"
)

// The messages of a refused sign-in. Unknown addresses and wrong passwords
// share one message so that callers cannot find out which addresses have
// accounts.
const (
	msgInvalidCredentials = "Invalid username or password."
	msgAccountLocked      = "User account is locked."
)

// PasswordGrant checks an e-mail address and password, as sign-in and the
// OAuth 2.0 password grant of POST /tokens do, and returns the user.
//
// The address is compared case-insensitively. A wrong password and an
// unknown address get the same 401, and an unknown address still costs one
// argon2id verification (against a dummy hash) so timing does not tell them
// apart. A locked user with the right password gets a 401 saying so, and
// a user linked to a single sign-on provider a 403 naming SSO while the
// site setting sso_password_disabled is on.
// Attempts are throttled with growing delays per account and client
// address, per client address and (sparing addresses that have not failed
// on it) per account; see throttle.go. A throttled attempt gets 429 with
// RetryAfter before the password is even checked. No number of wrong
// passwords locks an account.
func (s *Service) PasswordGrant(ctx context.Context, email, password, clientAddr string) (*ent.User, error) {
	email = strings.TrimSpace(email)
	fe := apperr.FieldErrors{}
	if email == "" {
		fe.Add("username", "This field is required.")
	}
	if password == "" {
		fe.Add("password", "This field is required.")
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	keys := s.throttleKeys(email, clientAddr)
	if err := s.beginAttempt(ctx, keys); err != nil {
		return nil, err
	}
	// An e-mail no account could hold (NUL bytes, invalid UTF-8, beyond
	// the text caps) is an unknown account, not a question for the store.
	var u *ent.User
	if textrules.Check("username", email) == nil {
		var err error
		u, err = s.client.User.Query().Where(user.EmailEqualFold(email)).Only(ctx)
		if err != nil && !ent.IsNotFound(err) && !ent.IsNotSingular(err) {
			return nil, internalErr(err)
		}
		if err != nil {
			u = nil
		}
	}
	hash := dummyHash()
	if u != nil && u.PasswordHash != "" {
		hash = u.PasswordHash
	}
	ok, err := VerifyPassword(hash, password)
	if err != nil {
		return nil, err
	}
	if !ok || u == nil || u.PasswordHash == "" {
		return nil, apperr.New(apperr.Unauthenticated, msgInvalidCredentials)
	}
	if err := s.attemptSucceeded(ctx, keys); err != nil {
		return nil, err
	}
	if u.IsLocked {
		return nil, apperr.New(apperr.Unauthenticated, msgAccountLocked)
	}
	if err := s.refuseSSOUser(ctx, u); err != nil {
		return nil, err
	}
	return u, nil
}
