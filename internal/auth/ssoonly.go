package auth

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/useridentity"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/site"
)

// msgSSOOnly is the refusal of a password sign-in by a user who must sign
// in through single sign-on.
const msgSSOOnly = "Password sign-in is turned off for accounts that use single sign-on (SSO). Sign in with your identity provider."

// refuseSSOUser refuses u a password sign-in when the site setting
// sso_password_disabled is on and u is linked to an OpenID Connect
// provider (a UserIdentity). It is asked only once the password was right,
// so it tells nothing about accounts to someone without the password.
func (s *Service) refuseSSOUser(ctx context.Context, u *ent.User) error {
	on, err := site.Enabled(ctx, s.client, site.SSOPasswordDisabled)
	if err != nil {
		return internalErr(err)
	}
	if !on {
		return nil
	}
	linked, err := s.client.UserIdentity.Query().Where(useridentity.UserID(u.ID)).Exist(ctx)
	if err != nil {
		return internalErr(err)
	}
	if linked {
		return apperr.New(apperr.PermissionDenied, msgSSOOnly)
	}
	return nil
}
