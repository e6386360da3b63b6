package signin_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// ssoScripted is a hostile loopback provider: real discovery, JWKS and
// token endpoint, but the ID token it hands out is whatever the test
// scripts, signed with go-jose by a key the test picks. Its token
// endpoint checks the PKCE verifier against the challenge of the
// authorization request, as a real provider does.
type ssoScripted struct {
	srv *httptest.Server

	mu        sync.Mutex
	published []jose.JSONWebKey // the JWKS
	challenge string            // code_challenge of the last authorization request
	token     func() string     // the next ID token
	jwksReads int
}

// ssoKey is a signing key with its id.
type ssoKey struct {
	ID   string
	Priv *rsa.PrivateKey
}

func ssoNewKey(t *testing.T, id string) ssoKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return ssoKey{ID: id, Priv: k}
}

func ssoStartScripted(t *testing.T, keys ...ssoKey) *ssoScripted {
	t.Helper()
	p := &ssoScripted{}
	for _, k := range keys {
		p.Publish(k)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		iss := p.srv.URL
		writeJSONTest(w, map[string]any{"issuer": iss, "authorization_endpoint": iss + "/authorize",
			"token_endpoint": iss + "/token", "jwks_uri": iss + "/jwks",
			"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.jwksReads++
		writeJSONTest(w, jose.JSONWebKeySet{Keys: p.published})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		p.mu.Lock()
		ok := p.challenge != "" && base64.RawURLEncoding.EncodeToString(sum[:]) == p.challenge
		tok := p.token
		p.mu.Unlock()
		if !ok || r.PostForm.Get("grant_type") != "authorization_code" || tok == nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		writeJSONTest(w, map[string]any{"access_token": "scripted-access", "token_type": "Bearer",
			"expires_in": 300, "id_token": tok()})
	})
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// Issuer is the provider's issuer URL.
func (p *ssoScripted) Issuer() string { return p.srv.URL }

// Publish adds k's public key to the JWKS.
func (p *ssoScripted) Publish(k ssoKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.published = append(p.published, jose.JSONWebKey{Key: &k.Priv.PublicKey, KeyID: k.ID, Algorithm: "RS256", Use: "sig"})
}

// Expect records the PKCE challenge of an authorization request and the
// ID token the code will be exchanged for.
func (p *ssoScripted) Expect(challenge string, token func() string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.challenge, p.token = challenge, token
}

// JWKSReads is how often the JWKS was read.
func (p *ssoScripted) JWKSReads() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.jwksReads
}

// ssoSign signs claims as a JWT with k (RS256, kid k.ID).
func ssoSign(t *testing.T, k ssoKey, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k.Priv, KeyID: k.ID}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ssoClaims are the claims of a valid ID token for client, nonce and
// subject at iss, issued now.
func ssoClaims(iss, client, nonce, sub, email string) map[string]any {
	now := time.Now()
	return map[string]any{"iss": iss, "aud": client, "sub": sub, "nonce": nonce,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "email": email, "email_verified": true,
		"given_name": "Grace", "family_name": "Hopper"}
}

func writeJSONTest(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
