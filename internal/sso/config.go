// Package sso signs users in through OpenID Connect providers the operator
// configures: Geopub is the relying party. It discovers each provider
// (.well-known/openid-configuration), sends the browser there with the
// authorization code flow, PKCE (S256), a state and a nonce bound to the
// browser, checks the ID token that comes back (signature by the
// provider's JWKS, issuer, audience and azp, nonce, expiry and issue time)
// and finds, links or creates the user; an optional groups claim sets the
// memberships it manages. Starting the cookie session is the door's, through
// internal/auth, as for a password sign-in.
package sso

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/geopub/geopub/ent/groupmembership"
)

// Config is the operator's OIDC configuration: the providers, in the order
// the sign-in page offers them.
type Config struct {
	Providers []ProviderConfig `json:"providers"`
}

// ProviderConfig is one OpenID provider.
type ProviderConfig struct {
	// Name is the provider's key in URLs (/auth/oidc/{name}/...) and in
	// user links: lower-case letters, digits, '-' and '_'. Renaming a
	// provider unlinks its users.
	Name string `json:"name"`
	// Title is what the sign-in button says ("Sign in with {title}").
	Title string `json:"title"`
	// Issuer is the provider's issuer URL; discovery reads
	// {issuer}/.well-known/openid-configuration and its "issuer" must be
	// this exact string.
	Issuer string `json:"issuer"`
	// ClientID is Geopub's client at the provider.
	ClientID string `json:"client_id"`
	// ClientSecret, or the name of the environment variable holding it
	// (ClientSecretEnv), for a confidential client. Public clients
	// (Public) have neither and rely on PKCE alone.
	ClientSecret    string `json:"client_secret,omitempty"`
	ClientSecretEnv string `json:"client_secret_env,omitempty"`
	Public          bool   `json:"public,omitempty"`
	// Scopes asked for; default openid, email, profile ("openid" is added
	// when missing).
	Scopes []string `json:"scopes,omitempty"`
	// Claims names the claims to read; defaults are the standard ones.
	Claims ClaimNames `json:"claims"`
	// RedirectURL overrides the callback URL sent to the provider; by
	// default {base URL}/auth/oidc/{name}/callback.
	RedirectURL string `json:"redirect_url,omitempty"`
	// GroupsClaim, when set, is the claim listing the user's groups at the
	// provider (an array of strings, or one string); Groups maps its
	// values to Geopub groups.
	GroupsClaim string         `json:"groups_claim,omitempty"`
	Groups      []GroupMapping `json:"groups,omitempty"`
}

// ClaimNames are the claims that carry what Geopub reads of a user.
type ClaimNames struct {
	Subject       string `json:"subject,omitempty"`        // default "sub"
	Email         string `json:"email,omitempty"`          // default "email"
	EmailVerified string `json:"email_verified,omitempty"` // default "email_verified"
	GivenName     string `json:"given_name,omitempty"`     // default "given_name"
	FamilyName    string `json:"family_name,omitempty"`    // default "family_name"
	Name          string `json:"name,omitempty"`           // default "name", split when the two above are absent
}

// GroupMapping gives members of the provider's group ClaimValue the role
// Role in the Geopub group whose URL slug is Group.
type GroupMapping struct {
	ClaimValue string `json:"claim_value"`
	Group      string `json:"group"`
	Role       string `json:"role"`
}

var nameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// LoadConfig reads the JSON file at path; getenv resolves
// client_secret_env (os.Getenv when nil). Unknown keys are errors, so a
// misspelt setting is not silently ignored.
func LoadConfig(path string, getenv func(string) string) (Config, error) {
	var c Config
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("reading the OIDC configuration: %w", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("reading the OIDC configuration %s: %w", path, err)
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if err := c.resolve(getenv); err != nil {
		return c, fmt.Errorf("OIDC configuration %s: %w", path, err)
	}
	return c, nil
}

// resolve fills defaults, reads secrets from the environment and checks
// every provider.
func (c *Config) resolve(getenv func(string) string) error {
	seen := map[string]bool{}
	for i := range c.Providers {
		p := &c.Providers[i]
		if err := p.resolve(getenv); err != nil {
			return fmt.Errorf("provider %d (%q): %w", i+1, p.Name, err)
		}
		if seen[p.Name] {
			return fmt.Errorf("provider %q is configured twice", p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

func (p *ProviderConfig) resolve(getenv func(string) string) error {
	if !nameRe.MatchString(p.Name) {
		return errors.New("name must be 1-64 lower-case letters, digits, '-' or '_'")
	}
	if p.Title == "" {
		p.Title = p.Name
	}
	if !strings.HasPrefix(p.Issuer, "https://") && !strings.HasPrefix(p.Issuer, "http://") {
		return errors.New("issuer must be an http(s) URL")
	}
	if p.ClientID == "" {
		return errors.New("client_id is required")
	}
	if p.ClientSecretEnv != "" {
		if p.ClientSecret != "" {
			return errors.New("give client_secret or client_secret_env, not both")
		}
		p.ClientSecret = getenv(p.ClientSecretEnv)
		if p.ClientSecret == "" {
			return fmt.Errorf("environment variable %s (client_secret_env) is empty", p.ClientSecretEnv)
		}
	}
	switch {
	case p.Public && p.ClientSecret != "":
		return errors.New("a public client has no client secret")
	case !p.Public && p.ClientSecret == "":
		return errors.New("client_secret or client_secret_env is required (or public: true)")
	}
	if len(p.Scopes) == 0 {
		p.Scopes = []string{"openid", "email", "profile"}
	}
	hasOpenID := false
	for _, s := range p.Scopes {
		hasOpenID = hasOpenID || s == "openid"
	}
	if !hasOpenID {
		p.Scopes = append([]string{"openid"}, p.Scopes...)
	}
	p.Claims.defaults()
	if len(p.Groups) > 0 && p.GroupsClaim == "" {
		return errors.New("groups needs groups_claim")
	}
	for j, g := range p.Groups {
		if g.ClaimValue == "" || g.Group == "" {
			return fmt.Errorf("groups[%d]: claim_value and group are required", j)
		}
		if g.Role == "" {
			p.Groups[j].Role = string(groupmembership.PermissionMember)
		} else if err := groupmembership.PermissionValidator(groupmembership.Permission(g.Role)); err != nil {
			return fmt.Errorf("groups[%d]: role must be member, edit_data, edit_users or admin", j)
		}
	}
	return nil
}

func (c *ClaimNames) defaults() {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&c.Subject, "sub")
	def(&c.Email, "email")
	def(&c.EmailVerified, "email_verified")
	def(&c.GivenName, "given_name")
	def(&c.FamilyName, "family_name")
	def(&c.Name, "name")
}
