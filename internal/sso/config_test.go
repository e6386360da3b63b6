package sso

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "oidc.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfigFillsDefaultsAndReadsSecretsFromEnv(t *testing.T) {
	p := writeConfig(t, `{"providers":[{"name":"corp","issuer":"https://id.example.org","client_id":"g",
		"client_secret_env":"CORP_SECRET","scopes":["email"],"groups_claim":"groups",
		"groups":[{"claim_value":"a","group":"g-a"}]}]}`)
	cfg, err := LoadConfig(p, func(k string) string {
		if k == "CORP_SECRET" {
			return "s3"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	pc := cfg.Providers[0]
	if pc.ClientSecret != "s3" || pc.Title != "corp" || pc.Scopes[0] != "openid" || pc.Claims.Subject != "sub" ||
		pc.Claims.Email != "email" || pc.Groups[0].Role != "member" {
		t.Fatalf("resolved: %+v", pc)
	}
}

func TestLoadConfigRefusesBadProviders(t *testing.T) {
	for name, body := range map[string]string{
		"unknown key":        `{"providers":[{"name":"a","issuer":"https://x","client_id":"c","public":true,"client_sercet":"x"}]}`,
		"bad name":           `{"providers":[{"name":"A B","issuer":"https://x","client_id":"c","public":true}]}`,
		"no issuer URL":      `{"providers":[{"name":"a","issuer":"x","client_id":"c","public":true}]}`,
		"no client":          `{"providers":[{"name":"a","issuer":"https://x","public":true}]}`,
		"no secret":          `{"providers":[{"name":"a","issuer":"https://x","client_id":"c"}]}`,
		"public with secret": `{"providers":[{"name":"a","issuer":"https://x","client_id":"c","public":true,"client_secret":"s"}]}`,
		"empty secret env":   `{"providers":[{"name":"a","issuer":"https://x","client_id":"c","client_secret_env":"NOPE"}]}`,
		"twice":              `{"providers":[{"name":"a","issuer":"https://x","client_id":"c","public":true},{"name":"a","issuer":"https://y","client_id":"c","public":true}]}`,
		"bad role":           `{"providers":[{"name":"a","issuer":"https://x","client_id":"c","public":true,"groups_claim":"g","groups":[{"claim_value":"v","group":"s","role":"owner"}]}]}`,
		"groups, no claim":   `{"providers":[{"name":"a","issuer":"https://x","client_id":"c","public":true,"groups":[{"claim_value":"v","group":"s"}]}]}`,
	} {
		if _, err := LoadConfig(writeConfig(t, body), func(string) string { return "" }); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSafeNextKeepsOnlyLocalPaths(t *testing.T) {
	for in, want := range map[string]string{
		"/layers/1/":                       "/layers/1/",
		"/oauth/authorize?client_id=a&x=1": "/oauth/authorize?client_id=a&x=1",
		"":                                 "/",
		"https://evil.example/":            "/",
		"//evil.example/":                  "/",
		"/\\evil.example":                  "/",
		"evil":                             "/",
		"/a\nb":                            "/",
		"javascript:alert(1)":              "/",
		"/" + strings.Repeat("a", 3000):    "/",
	} {
		if got := SafeNext(in); got != want {
			t.Errorf("SafeNext(%q) = %q, want %q", in, got, want)
		}
	}
}
