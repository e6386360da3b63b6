package accounts

import (
	"context"
	"database/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/session"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// PasswordChange is a user's request to change their own password.
type PasswordChange struct {
	Current string
	New     string
}

// ChangePassword sets the caller's password to c.New once c.Current is
// checked, under the rules a new user's password follows
// (auth.HashPassword), and ends the caller's other sessions in the same
// transaction; the session making the request, if any, stays. It returns
// how many sessions ended. A wrong current password is a field error on
// current_password, with no change.
func (s *Service) ChangePassword(ctx context.Context, c PasswordChange) (int, error) {
	me, err := access.RequireUser(ctx, auth.ScopeUsersWrite)
	if err != nil {
		return 0, err
	}
	fe := apperr.FieldErrors{}
	if c.Current == "" {
		fe.Add("current_password", "This field is required.")
	}
	if c.New == "" {
		fe.Add("new_password", "This field is required.")
	}
	if err := fe.Err(); err != nil {
		return 0, err
	}
	u, err := s.Store.Client.User.Query().Where(user.ID(me.ID)).Only(ctx)
	if err != nil {
		return 0, err
	}
	ok := false
	if u.PasswordHash != "" {
		if ok, err = auth.VerifyPassword(u.PasswordHash, c.Current); err != nil {
			return 0, err
		}
	}
	if !ok {
		return 0, apperr.Field("current_password", "The current password is not correct.")
	}
	if c.New == c.Current {
		return 0, apperr.Field("new_password", "The new password must differ from the current one.")
	}
	hash, err := auth.HashPassword(c.New)
	if err != nil {
		if e := apperr.As(err); e.Code == apperr.Invalid && len(e.Fields["password"]) > 0 {
			return 0, apperr.Field("new_password", e.Fields["password"][0])
		}
		return 0, err
	}
	keep := 0
	if sess := auth.FromContext(ctx).Session; sess != nil {
		keep = sess.ID
	}
	var ended int
	err = s.Store.InTx(ctx, func(ctx context.Context, tx *ent.Client, _ *sql.Tx) error {
		if err := tx.User.UpdateOneID(u.ID).SetPasswordHash(hash).Exec(ctx); err != nil {
			return err
		}
		if ended, err = tx.Session.Delete().Where(session.UserID(u.ID), session.IDNEQ(keep)).Exec(ctx); err != nil {
			return err
		}
		return recordUser(ctx, tx, "user.password", u, nil, map[string]any{"password": "changed", "sessions_ended": ended})
	})
	return ended, err
}
