package sso

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/oidclogin"
	"github.com/geopub/geopub/internal/apperr"
)

// Begun is a sign-in sent to the provider.
type Begun struct {
	// AuthURL is the provider's authorization URL the browser goes to.
	AuthURL string
	// Binding is the value of the cookie that ties the sign-in to this
	// browser; the callback must bring it back.
	Binding string
}

// Begin starts a sign-in with provider name: it records the state, nonce
// and PKCE verifier (one use, LoginTTL) and returns where to send the
// browser. redirectURI is the callback URL under the site's base URL (the
// provider's redirect_url setting wins); next is kept only when SafeNext
// accepts it.
func (s *Service) Begin(ctx context.Context, name, redirectURI, next string) (*Begun, error) {
	p, err := s.lookup(name)
	if err != nil {
		return nil, err
	}
	op, err := s.discover(p)
	if err != nil {
		s.logger.WarnContext(ctx, "oidc discovery failed", "provider", name, "err", err)
		return nil, err
	}
	if p.cfg.RedirectURL != "" {
		redirectURI = p.cfg.RedirectURL
	}
	state, nonce, binding := randomValue(), randomValue(), randomValue()
	verifier := oauth2.GenerateVerifier()
	now := s.now().UTC()
	if _, err := s.client.OIDCLogin.Delete().Where(oidclogin.ExpiresAtLTE(now)).Exec(ctx); err != nil {
		return nil, err
	}
	err = s.client.OIDCLogin.Create().
		SetStateHash(hash(state)).SetBindingHash(hash(binding)).SetProvider(name).
		SetNonce(nonce).SetCodeVerifier(verifier).SetRedirectURI(redirectURI).
		SetNext(SafeNext(next)).SetCreatedAt(now).SetExpiresAt(now.Add(LoginTTL)).
		Exec(ctx)
	if err != nil {
		return nil, err
	}
	conf := p.oauth(op, redirectURI)
	url := conf.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier))
	return &Begun{AuthURL: url, Binding: binding}, nil
}

// Callback is what the provider sent back with the browser.
type Callback struct {
	State, Code string
	// Error and ErrorDescription are the provider's refusal (RFC 6749
	// 4.1.2.1), such as access_denied.
	Error, ErrorDescription string
	// Binding is the browser's binding cookie ("" when it has none).
	Binding string
}

// Result is a completed sign-in.
type Result struct {
	User *ent.User
	// Next is the local path to go to.
	Next string
	// Created tells whether the user was created by this sign-in.
	Created bool
}

// Complete finishes a sign-in with provider name: the state must name a
// sign-in under way begun by this browser (it is used up either way), the
// code is exchanged with the PKCE verifier, the ID token checked, and the
// user found, linked or created. Every refusal is an apperr error with a
// message for the person signing in, and is logged with its reason.
func (s *Service) Complete(ctx context.Context, name string, cb Callback) (*Result, error) {
	res, err := s.complete(ctx, name, cb)
	if err != nil {
		s.logger.WarnContext(ctx, "oidc sign-in refused", "provider", name, "err", err)
		return nil, err
	}
	s.logger.InfoContext(ctx, "oidc sign-in", "provider", name, "user", res.User.ID, "created", res.Created)
	return res, nil
}

func (s *Service) complete(ctx context.Context, name string, cb Callback) (*Result, error) {
	p, err := s.lookup(name)
	if err != nil {
		return nil, err
	}
	login, err := s.takeLogin(ctx, name, cb)
	if err != nil {
		return nil, err
	}
	if cb.Error != "" {
		msg := fmt.Sprintf("The identity provider %s did not sign you in (%s)", p.cfg.Title, printable(cb.Error, 64))
		if d := printable(cb.ErrorDescription, 300); d != "" {
			msg += ": " + d
		}
		return nil, apperr.New(apperr.Unauthenticated, "%s.", msg)
	}
	if cb.Code == "" {
		return nil, apperr.New(apperr.Invalid, "The identity provider sent no authorization code.")
	}
	op, err := s.discover(p)
	if err != nil {
		return nil, err
	}
	hc := oidc.ClientContext(ctx, s.http)
	tok, err := p.oauth(op, login.RedirectURI).Exchange(hc, cb.Code, oauth2.VerifierOption(login.CodeVerifier))
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unauthenticated, "The identity provider did not accept the sign-in code. Sign in again.")
	}
	id, err := s.verify(hc, p, op, tok, login.Nonce)
	if err != nil {
		return nil, err
	}
	u, created, err := s.signIn(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return &Result{User: u, Next: SafeNext(login.Next), Created: created}, nil
}

// takeLogin finds the sign-in the state names and deletes it, so a state
// is used once; it must belong to provider name and to this browser, and
// not have expired.
func (s *Service) takeLogin(ctx context.Context, name string, cb Callback) (*ent.OIDCLogin, error) {
	expired := apperr.New(apperr.Invalid, "This sign-in has expired or was already used. Sign in again.")
	if cb.State == "" {
		return nil, apperr.New(apperr.Invalid, "The identity provider's answer has no state. Sign in again.")
	}
	login, err := s.client.OIDCLogin.Query().Where(oidclogin.StateHash(hash(cb.State))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, expired
	}
	if err != nil {
		return nil, err
	}
	n, err := s.client.OIDCLogin.Delete().Where(oidclogin.ID(login.ID)).Exec(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 { // another request used it first
		return nil, expired
	}
	if subtle.ConstantTimeCompare([]byte(login.BindingHash), []byte(hash(cb.Binding))) != 1 {
		return nil, apperr.New(apperr.Invalid, "This sign-in was begun in another browser. Sign in again.")
	}
	if login.Provider != name {
		return nil, apperr.New(apperr.Invalid, "This sign-in was begun with another identity provider. Sign in again.")
	}
	if !login.ExpiresAt.After(s.now()) {
		return nil, expired
	}
	return login, nil
}

// oauth is the provider's OAuth 2.0 client configuration.
func (p *provider) oauth(op *oidc.Provider, redirectURI string) *oauth2.Config {
	ep := op.Endpoint()
	if p.cfg.Public {
		ep.AuthStyle = oauth2.AuthStyleInParams
	}
	return &oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret,
		Endpoint: ep, RedirectURL: redirectURI, Scopes: p.cfg.Scopes}
}

// randomValue is 32 random bytes, base64url.
func randomValue() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hash is the stored form of a state or binding value.
func hash(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:])
}

// printable keeps what a provider's error text may show: printable ASCII,
// at most n bytes.
func printable(s string, n int) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s) && len(out) < n; i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			out = append(out, c)
		}
	}
	return string(out)
}
