package sso

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/ent/useridentity"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/audit"
	"github.com/geopub/geopub/internal/users"
)

// maxNamePart is the length of the user's first and last name columns.
const maxNamePart = 150

// signIn finds the user of id, in one transaction: by the provider's link
// (provider, subject); else by e-mail, only when the provider says the
// address is verified, then linked; else created (remote_auth, no
// password) and linked. A locked user is refused. The groups claim is
// applied after.
func (s *Service) signIn(ctx context.Context, p *provider, id *identity) (u *ent.User, created bool, err error) {
	err = s.tx.InTx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		u, created, err = s.signInTx(ctx, tx, p, id)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return u, created, nil
}

// signInTx is signIn in the transaction tx is bound to.
func (s *Service) signInTx(ctx context.Context, tx *ent.Client, p *provider, id *identity) (*ent.User, bool, error) {
	link, err := tx.UserIdentity.Query().
		Where(useridentity.Provider(p.cfg.Name), useridentity.Subject(id.Subject)).
		WithUser().Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, false, err
	}
	var u *ent.User
	created := false
	if link != nil {
		u = link.Edges.User
	} else {
		if u, created, err = s.matchOrCreate(ctx, tx, p, id); err != nil {
			return nil, false, err
		}
		link, err = tx.UserIdentity.Create().SetUserID(u.ID).SetProvider(p.cfg.Name).
			SetSubject(id.Subject).SetCreatedAt(s.now().UTC()).Save(ctx)
		if err != nil {
			return nil, false, err
		}
	}
	if u.IsLocked {
		return nil, false, apperr.New(apperr.PermissionDenied, "This account is locked. Ask a site administrator.")
	}
	uid := u.ID
	byClaim := audit.WithActor(ctx, audit.Actor{Kind: audit.ActorIdentityProvider, UserID: &uid,
		Label: p.cfg.Title + " (" + p.cfg.Name + ")"})
	granted, err := s.applyGroups(byClaim, tx, p, id, u.ID, link.GrantedGroups)
	if err != nil {
		return nil, false, err
	}
	email := id.Email
	if len(email) > 254 {
		email = ""
	}
	err = tx.UserIdentity.UpdateOne(link).SetEmail(email).SetGrantedGroups(granted).
		SetLastSignInAt(s.now().UTC()).Exec(ctx)
	if err != nil {
		return nil, false, err
	}
	return u, created, nil
}

// matchOrCreate finds the user with id's verified e-mail address, or
// creates one.
func (s *Service) matchOrCreate(ctx context.Context, tx *ent.Client, p *provider, id *identity) (*ent.User, bool, error) {
	if id.Email == "" {
		return nil, false, apperr.New(apperr.PermissionDenied,
			"The identity provider %s gave no e-mail address, and this site needs one to make your account. Ask the site's operator.", p.cfg.Title)
	}
	email, err := users.NormalizeEmail(id.Email)
	if err != nil || len(email) > 254 {
		return nil, false, apperr.New(apperr.PermissionDenied,
			"The identity provider %s gave an e-mail address this site cannot use.", p.cfg.Title)
	}
	existing, err := tx.User.Query().Where(user.EmailEqualFold(email)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, false, err
	}
	if existing != nil {
		if !id.EmailVerified {
			return nil, false, apperr.New(apperr.PermissionDenied,
				"An account with the e-mail address %s exists, but %s does not say the address is verified, so it cannot be linked. Sign in with your password, or ask the site's operator.", email, p.cfg.Title)
		}
		return existing, false, nil
	}
	u, err := tx.User.Create().SetEmail(email).
		SetFirstName(clip(id.GivenName, maxNamePart)).SetLastName(clip(id.FamilyName, maxNamePart)).
		SetRemoteAuth(true).SetEmailVerified(id.EmailVerified).Save(ctx)
	if err != nil {
		return nil, false, err
	}
	members, err := tx.Group.Query().Where(group.TypeEQ(group.TypeMembers)).First(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("finding the members group: %w", err)
	}
	if err := tx.GroupMembership.Create().SetGroupID(members.ID).SetUserID(u.ID).Exec(ctx); err != nil {
		return nil, false, err
	}
	return u, true, nil
}

// clip cuts s to at most n characters.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}
