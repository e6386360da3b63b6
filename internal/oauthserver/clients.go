package oauthserver

import (
	"context"
	"database/sql"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/oauthclient"
	"github.com/geopub/geopub/ent/oauthgrant"
	"github.com/geopub/geopub/ent/oauthrefreshtoken"
	"github.com/geopub/geopub/ent/token"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/audit"
	"github.com/geopub/geopub/internal/auth"
)

// Limits of a client's registration.
const (
	MaxClientNameLength = 200
	MaxRedirectURIs     = 20
)

// ClientSpec is a client as a site administrator registers it. An empty
// Scope means read.
type ClientSpec struct {
	Name         string
	Confidential bool
	RedirectURIs []string
	Scope        string
}

// ClientPatch changes a client; nil fields stay. Whether a client is
// confidential never changes.
type ClientPatch struct {
	Name         *string
	RedirectURIs *[]string
	Scope        *string
}

// CreatedClient is a new client with its secret, shown this once
// (confidential clients only).
type CreatedClient struct {
	Client *ent.OAuthClient
	Secret string
}

// checkName, checkURIs and checkClientScope validate the parts of a spec.
func checkName(name string, fe apperr.FieldErrors) string {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		fe.Add("name", "This field is required.")
	case len(name) > MaxClientNameLength:
		fe.Add("name", "Use at most 200 bytes.")
	}
	return name
}

func checkURIs(uris []string, fe apperr.FieldErrors) []string {
	if len(uris) == 0 {
		fe.Add("redirect_uris", "Register at least one redirect URI.")
		return nil
	}
	if len(uris) > MaxRedirectURIs {
		fe.Add("redirect_uris", "Register at most 20 redirect URIs.")
		return nil
	}
	out := make([]string, 0, len(uris))
	for _, u := range uris {
		if why := checkRedirectURI(u); why != "" {
			fe.Add("redirect_uris", "\""+u+"\" "+why+".")
			continue
		}
		out = append(out, u)
	}
	return out
}

func checkClientScope(scope string, fe apperr.FieldErrors) string {
	if strings.TrimSpace(scope) == "" {
		return ScopeRead
	}
	names, ok := parseScope(scope)
	if !ok {
		fe.Add("scope", "Use scopes from: "+strings.Join(SupportedScopes(), " ")+".")
	}
	return strings.Join(names, " ")
}

// CreateClient registers a client; site administrators only.
func (s *Service) CreateClient(ctx context.Context, spec ClientSpec) (*CreatedClient, error) {
	admin, err := access.RequireSiteAdmin(ctx, auth.ScopeUsersWrite)
	if err != nil {
		return nil, err
	}
	fe := apperr.FieldErrors{}
	name := checkName(spec.Name, fe)
	uris := checkURIs(spec.RedirectURIs, fe)
	scope := checkClientScope(spec.Scope, fe)
	if err := fe.Err(); err != nil {
		return nil, err
	}
	id, err := randomString(18)
	if err != nil {
		return nil, internal(err)
	}
	var secret string
	if spec.Confidential {
		if secret, err = randomString(32); err != nil {
			return nil, internal(err)
		}
	}
	var c *ent.OAuthClient
	err = s.inTx(ctx, func(ctx context.Context, tx *ent.Client) error {
		create := tx.OAuthClient.Create().SetClientID(id).SetName(name).SetConfidential(spec.Confidential).
			SetRedirectUris(uris).SetScope(scope).SetCreatedBy(admin.ID)
		if secret != "" {
			create.SetSecretHash(hashSecret(secret))
		}
		var err error
		if c, err = create.Save(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{Action: actionClientCreate, Target: clientTarget(c), After: clientFields(c)})
	})
	if err != nil {
		return nil, internal(err)
	}
	return &CreatedClient{Client: c, Secret: secret}, nil
}

// Clients lists the registered clients, oldest first; site
// administrators only.
func (s *Service) Clients(ctx context.Context) ([]*ent.OAuthClient, error) {
	if _, err := access.RequireSiteAdmin(ctx, auth.ScopeUsersRead); err != nil {
		return nil, err
	}
	cs, err := s.client.OAuthClient.Query().Order(ent.Asc(oauthclient.FieldID)).All(ctx)
	if err != nil {
		return nil, internal(err)
	}
	return cs, nil
}

// Client returns one client by its row id; site administrators only.
func (s *Service) Client(ctx context.Context, id int) (*ent.OAuthClient, error) {
	if _, err := access.RequireSiteAdmin(ctx, auth.ScopeUsersRead); err != nil {
		return nil, err
	}
	return s.clientRow(ctx, id)
}

func (s *Service) clientRow(ctx context.Context, id int) (*ent.OAuthClient, error) {
	c, err := s.client.OAuthClient.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, apperr.ErrNotFound
	}
	if err != nil {
		return nil, internal(err)
	}
	return c, nil
}

// UpdateClient changes a client's name, redirect URIs or scope; site
// administrators only. Grants already given keep their scope.
func (s *Service) UpdateClient(ctx context.Context, id int, p ClientPatch) (*ent.OAuthClient, error) {
	if _, err := access.RequireSiteAdmin(ctx, auth.ScopeUsersWrite); err != nil {
		return nil, err
	}
	c, err := s.clientRow(ctx, id)
	if err != nil {
		return nil, err
	}
	fe := apperr.FieldErrors{}
	var name, scope *string
	var uris *[]string
	if p.Name != nil {
		v := checkName(*p.Name, fe)
		name = &v
	}
	if p.RedirectURIs != nil {
		v := checkURIs(*p.RedirectURIs, fe)
		uris = &v
	}
	if p.Scope != nil {
		v := checkClientScope(*p.Scope, fe)
		scope = &v
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	var out *ent.OAuthClient
	err = s.inTx(ctx, func(ctx context.Context, tx *ent.Client) error {
		upd := tx.OAuthClient.UpdateOne(c).SetNillableName(name).SetNillableScope(scope)
		if uris != nil {
			upd.SetRedirectUris(*uris)
		}
		var err error
		if out, err = upd.Save(ctx); err != nil {
			return err
		}
		before, after := audit.Changed(clientFields(c), clientFields(out))
		if len(after) == 0 {
			return nil // nothing changed: no entry
		}
		return audit.Record(ctx, tx, audit.Entry{Action: actionClientUpdate, Target: clientTarget(out), Before: before, After: after})
	})
	if err != nil {
		return nil, internal(err)
	}
	return out, nil
}

// DeleteClient removes a client with every grant given to it and every
// token issued under those grants, which stop working at once; site
// administrators only.
func (s *Service) DeleteClient(ctx context.Context, id int) error {
	if _, err := access.RequireSiteAdmin(ctx, auth.ScopeUsersWrite); err != nil {
		return err
	}
	c, err := s.clientRow(ctx, id)
	if err != nil {
		return err
	}
	err = s.inTx(ctx, func(ctx context.Context, tx *ent.Client) error {
		grants, err := tx.OAuthGrant.Query().Where(oauthgrant.ClientID(c.ID)).IDs(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.Token.Delete().Where(token.OauthGrantIDIn(grants...)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.OAuthRefreshToken.Delete().Where(oauthrefreshtoken.GrantIDIn(grants...)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.OAuthGrant.Delete().Where(oauthgrant.ClientID(c.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := tx.OAuthClient.DeleteOneID(c.ID).Exec(ctx); err != nil {
			return err
		}
		before := clientFields(c)
		before["grants"] = len(grants)
		return audit.Record(ctx, tx, audit.Entry{Action: actionClientDelete, Target: clientTarget(c), Before: before})
	})
	s.auth.ForgetKeys()
	if err != nil {
		return internal(err)
	}
	return nil
}

// internal hides a store failure from callers of the management API.
func internal(err error) error {
	return apperr.Wrap(err, apperr.Internal, "Internal server error.")
}

// inTx runs fn in one transaction of the store.
func (s *Service) inTx(ctx context.Context, fn func(ctx context.Context, tx *ent.Client) error) error {
	return s.store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error { return fn(ctx, c) })
}
