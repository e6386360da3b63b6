package auth

import (
	"context"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/token"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/audit"
)

// MaxTokenNameLength is the longest token name, in bytes (the column's
// limit).
const MaxTokenNameLength = 200

// TokenSpec is what a client asks for when creating a token. An empty Scope
// means DefaultScopes; nil ExpiresAt means no expiry; no Referrers means
// the token may be used from anywhere.
type TokenSpec struct {
	Name      string
	Scope     string
	ExpiresAt *time.Time
	Referrers []string
	// OAuthGrantID links the token to the OAuth grant it was issued
	// under (package oauthserver): revoking the grant deletes it.
	OAuthGrantID *int
}

// CreateToken validates spec and stores a new token of user, returning it
// and its key. Only HashKey(key) and KeyHint(key) are stored: the key is
// returned this once and cannot be recovered.
func (s *Service) CreateToken(ctx context.Context, user *ent.User, spec TokenSpec) (*ent.Token, string, error) {
	now := s.clock()
	fe := apperr.FieldErrors{}
	name := checkTokenName(spec.Name, fe)
	scope := checkScope(spec.Scope, fe)
	expires := checkExpiry(spec.ExpiresAt, now, fe)
	refs := checkReferrers(spec.Referrers, fe)
	if err := fe.Err(); err != nil {
		return nil, "", err
	}
	key, err := NewKey()
	if err != nil {
		return nil, "", err
	}
	var tok *ent.Token
	err = audit.Atomically(ctx, s.tx, func(ctx context.Context, c *ent.Client) error {
		var err error
		if tok, err = s.newToken(ctx, c, user, key, name, scope, expires, refs, spec.OAuthGrantID, now); err != nil {
			return err
		}
		return audit.Record(ctx, c, audit.Entry{Action: "token.create", Target: tokenTarget(tok), After: tokenFields(tok)})
	})
	if err != nil {
		return nil, "", internalErr(err)
	}
	tok.Edges.User = user
	return tok, key, nil
}

// newToken stores a checked token.
func (s *Service) newToken(ctx context.Context, c *ent.Client, user *ent.User, key, name, scope string, expires *time.Time, refs []string, grant *int, now time.Time) (*ent.Token, error) {
	create := c.Token.Create().
		SetUserID(user.ID).
		SetName(name).
		SetKeyHash(HashKey(key)).
		SetKeyHint(KeyHint(key)).
		SetScope(scope).
		SetNillableExpiresAt(expires).
		SetNillableOauthGrantID(grant).
		SetCreatedAt(now)
	if refs != nil {
		create.SetReferrers(refs)
	}
	return create.Save(ctx)
}

// TokenPatch is a change to a token's settings; nil fields stay as they
// are. The key never changes. A REST PUT sets every field.
type TokenPatch struct {
	Name  *string
	Scope *string // an empty string resets to DefaultScopes
	// ExpiresAt sets a new expiry; ClearExpiresAt removes it. Giving both
	// is an error.
	ExpiresAt      *time.Time
	ClearExpiresAt bool
	// Referrers, when not nil, replaces the rules; an empty list removes
	// them all.
	Referrers *[]string
}

// UpdateToken applies patch to tok after validating it like CreateToken
// does, and returns the updated token. A caller authenticated by a token
// may not make tok stronger than tok or its own token is (see
// checkTokenChange); that is refused with 403 and nothing changes.
func (s *Service) UpdateToken(ctx context.Context, tok *ent.Token, patch TokenPatch) (*ent.Token, error) {
	defer s.keys.clear()
	now := s.clock()
	fe := apperr.FieldErrors{}
	upd := s.client.Token.UpdateOne(tok)
	before := tokenFields(tok)
	var change tokenChange
	if patch.Name != nil {
		upd.SetName(checkTokenName(*patch.Name, fe))
	}
	if patch.Scope != nil {
		scope := checkScope(*patch.Scope, fe)
		sc := ParseScopes(scope)
		change.scope = &sc
		upd.SetScope(scope)
	}
	switch {
	case patch.ExpiresAt != nil && patch.ClearExpiresAt:
		fe.Add("expires_at", "Give a new expiry or clear it, not both.")
	case patch.ExpiresAt != nil:
		change.setExpiry, change.expiresAt = true, checkExpiry(patch.ExpiresAt, now, fe)
		upd.SetNillableExpiresAt(change.expiresAt)
	case patch.ClearExpiresAt:
		change.setExpiry = true
		upd.ClearExpiresAt()
	}
	if patch.Referrers != nil {
		refs := checkReferrers(*patch.Referrers, fe)
		change.referrers = &refs
		upd.SetReferrers(refs)
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	if err := checkTokenChange(FromContext(ctx), tok, change); err != nil {
		return nil, err
	}
	var out *ent.Token
	err := audit.Atomically(ctx, s.tx, func(ctx context.Context, c *ent.Client) error {
		u := c.Token.UpdateOneID(tok.ID)
		if err := copyTokenMutation(u.Mutation(), upd.Mutation()); err != nil {
			return err
		}
		var err error
		if out, err = u.Save(ctx); err != nil {
			return err
		}
		b, a := audit.Changed(before, tokenFields(out))
		return audit.Record(ctx, c, audit.Entry{Action: "token.update", Target: tokenTarget(out), Before: b, After: a})
	})
	if ent.IsNotFound(err) {
		return nil, apperr.ErrNotFound
	}
	if err != nil {
		return nil, internalErr(err)
	}
	return out, nil
}

// UserToken returns the token id of owner. Other users' tokens are reported
// as not found, not forbidden, so token ids of others are not disclosed.
func (s *Service) UserToken(ctx context.Context, owner *ent.User, id int) (*ent.Token, error) {
	tok, err := s.client.Token.Query().
		Where(token.ID(id), token.UserID(owner.ID)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.ErrNotFound
	}
	if err != nil {
		return nil, internalErr(err)
	}
	return tok, nil
}

// UserTokens returns the tokens of owner, newest first.
func (s *Service) UserTokens(ctx context.Context, owner *ent.User) ([]*ent.Token, error) {
	toks, err := s.client.Token.Query().
		Where(token.UserID(owner.ID)).
		Order(ent.Desc(token.FieldCreatedAt), ent.Desc(token.FieldID)).
		All(ctx)
	if err != nil {
		return nil, internalErr(err)
	}
	return toks, nil
}

// DeleteToken deletes tok; it stops working at once.
func (s *Service) DeleteToken(ctx context.Context, tok *ent.Token) error {
	defer s.keys.clear()
	err := audit.Atomically(ctx, s.tx, func(ctx context.Context, c *ent.Client) error {
		if err := c.Token.DeleteOneID(tok.ID).Exec(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, c, audit.Entry{Action: "token.delete", Target: tokenTarget(tok), Before: tokenFields(tok)})
	})
	if ent.IsNotFound(err) {
		return apperr.ErrNotFound
	}
	if err != nil {
		return internalErr(err)
	}
	return nil
}

// copyTokenMutation copies the field changes of src (built, not run) onto
// dst, the same change on a transaction's client.
func copyTokenMutation(dst, src *ent.TokenMutation) error {
	for _, f := range src.Fields() {
		v, _ := src.Field(f)
		if err := dst.SetField(f, v); err != nil {
			return err
		}
	}
	for _, f := range src.ClearedFields() {
		if err := dst.ClearField(f); err != nil {
			return err
		}
	}
	return nil
}
