package accounts

import (
	"context"
	"net/http"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/audit"
	"github.com/geopub/geopub/internal/auth"
)

// Lock locks user id (site administrators only; not themselves). A locked
// user's tokens and sessions stay but every door refuses them (401) until
// Unlock; the user's open streams on this process end at once, on other
// processes at their next recheck (auth.Service.Watch). Locking a locked
// user changes nothing.
func (s *Service) Lock(ctx context.Context, id int) (*ent.User, error) {
	me, err := access.RequireSiteAdmin(ctx, auth.ScopeUsersWrite)
	if err != nil {
		return nil, err
	}
	if me.ID == id {
		return nil, apperr.New(apperr.Invalid, "You cannot lock your own account.")
	}
	u, err := s.setLocked(ctx, id, true)
	if err != nil {
		return nil, err
	}
	s.Auth.EndUserStreams(id, &auth.Revoked{Status: http.StatusUnauthorized, Detail: auth.MsgAccountLocked})
	return u, nil
}

// Unlock unlocks user id (site administrators only): their tokens and
// sessions work again.
func (s *Service) Unlock(ctx context.Context, id int) (*ent.User, error) {
	if _, err := access.RequireSiteAdmin(ctx, auth.ScopeUsersWrite); err != nil {
		return nil, err
	}
	return s.setLocked(ctx, id, false)
}

func (s *Service) setLocked(ctx context.Context, id int, locked bool) (*ent.User, error) {
	action := "user.unlock"
	if locked {
		action = "user.lock"
	}
	var u *ent.User
	err := audit.Atomically(ctx, s.Store, func(ctx context.Context, c *ent.Client) error {
		before, err := c.User.Get(ctx, id)
		if ent.IsNotFound(err) {
			return userNotFound(id)
		}
		if err != nil {
			return err
		}
		if u, err = c.User.UpdateOne(before).SetIsLocked(locked).Save(ctx); err != nil || before.IsLocked == locked {
			return err // locking a locked user changes nothing: no entry
		}
		return recordUser(ctx, c, action, u, map[string]any{"is_locked": before.IsLocked}, map[string]any{"is_locked": locked})
	})
	return u, err
}

func userNotFound(id int) error { return apperr.New(apperr.NotFound, "User %d not found.", id) }
