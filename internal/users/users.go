// Package users creates user accounts: the one path by which a user comes
// to exist (the CLI's `user create` today), so every new user gets a hashed
// password, a normalised e-mail address and membership of the members
// group.
package users

import (
	"context"
	"fmt"
	"net/mail"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/geo/country"
)

// New describes a user to create.
type New struct {
	Email     string
	Password  string
	FirstName string
	LastName  string
	Country   string
	SiteAdmin bool
	SeatType  string
}

// NormalizeEmail lower-cases and trims an address; it fails when it is not
// a plain address.
func NormalizeEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return "", apperr.Field("email", "Enter a valid e-mail address.")
	}
	return s, nil
}

// Create validates n and creates the user, a member of the members group,
// in one transaction.
func Create(ctx context.Context, client *ent.Client, n New) (*ent.User, error) {
	email, err := NormalizeEmail(n.Email)
	if err != nil {
		return nil, err
	}
	cc, err := country.Normalize(n.Country, false)
	if err != nil {
		return nil, err
	}
	hash, err := auth.HashPassword(n.Password)
	if err != nil {
		return nil, err
	}
	tx, err := client.Tx(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	create := tx.User.Create().
		SetEmail(email).
		SetPasswordHash(hash).
		SetFirstName(strings.TrimSpace(n.FirstName)).
		SetLastName(strings.TrimSpace(n.LastName)).
		SetCountry(cc).
		SetIsSiteAdmin(n.SiteAdmin)
	if n.SeatType != "" {
		st := user.SeatType(n.SeatType)
		if err := user.SeatTypeValidator(st); err != nil {
			return nil, apperr.Field("seat_type", "Must be paid or none.")
		}
		create.SetSeatType(st)
	}
	u, err := create.Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, apperr.New(apperr.Conflict, "A user with the e-mail address %s already exists.", email)
	}
	if ent.IsValidationError(err) {
		return nil, apperr.Wrap(err, apperr.Invalid, err.Error())
	}
	if err != nil {
		return nil, err
	}
	members, err := tx.Group.Query().Where(group.TypeEQ(group.TypeMembers)).First(ctx)
	if err != nil {
		return nil, fmt.Errorf("finding the members group: %w", err)
	}
	if err := tx.GroupMembership.Create().SetGroupID(members.ID).SetUserID(u.ID).Exec(ctx); err != nil {
		return nil, err
	}
	return u, tx.Commit()
}
