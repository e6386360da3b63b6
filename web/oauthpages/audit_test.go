package oauthpages_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/auditentry"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// oauthAudit returns the audit entries written after entry id since,
// oldest first, as "action actor_kind actor_user_id" lines with the entries.
func oauthAudit(t *testing.T, e *servertest.Env, since int) ([]string, []*ent.AuditEntry, int) {
	t.Helper()
	got := e.Store.Client.AuditEntry.Query().Where(auditentry.IDGT(since)).Order(ent.Asc(auditentry.FieldID)).AllX(t.Context())
	lines := make([]string, len(got))
	last := since
	for i, en := range got {
		uid := 0
		if en.ActorUserID != nil {
			uid = *en.ActorUserID
		}
		lines[i] = fmt.Sprintf("%s %s %d", en.Action, en.ActorKind, uid)
		last = en.ID
	}
	return lines, got, last
}

// The authorization server's changes are audited like the API's: client
// registrations by the admin, consent by the user, tokens issued and
// revoked by the client acting for the user, with why a grant died.
func TestOAuthAuditEntries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := servertest.New(t, s)
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		ann := e.NewUser(t, "Ann")
		_, _, since := oauthAudit(t, e, 0)
		expect := func(step string, want ...string) []*ent.AuditEntry {
			t.Helper()
			lines, got, last := oauthAudit(t, e, since)
			since = last
			if strings.Join(lines, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s: entries\n%s\nwant\n%s", step, strings.Join(lines, "\n"), strings.Join(want, "\n"))
			}
			return got
		}
		as := func(action, kind string, u *servertest.User) string {
			return fmt.Sprintf("%s %s %d", action, kind, u.ID)
		}

		id, _ := oauthClient(t, e, admin, "public", "read")
		created := expect("register", as("oauth_client.create", "token", admin))[0]
		if created.After["client_id"] != id || created.TargetType != "oauth_client" {
			t.Errorf("oauth_client.create: target %s, after %v", created.TargetType, created.After)
		}
		path := "/oauth-clients/" + created.TargetID + "/"
		e.Do(t, servertest.Request{Method: http.MethodPut, Path: path, Key: admin.Key, Body: map[string]any{"name": "Renamed"}})
		upd := expect("rename", as("oauth_client.update", "token", admin))[0]
		if upd.Before["name"] != "QGIS Plugin" || upd.After["name"] != "Renamed" || len(upd.After) != 1 {
			t.Errorf("oauth_client.update: before %v after %v", upd.Before, upd.After)
		}
		e.Do(t, servertest.Request{Method: http.MethodPut, Path: path, Key: admin.Key, Body: map[string]any{"name": "Renamed"}})
		expect("a rename to the same name")

		cfg := oauthConfig(e, id)
		b := oauthSignIn(t, e, ann)
		expect("signing in", as("session.start", "session", ann))
		code, verifier := oauthCode(t, b, cfg)
		consent := expect("consent", as("oauth_grant.consent", "session", ann))[0]
		if consent.After["scope"] != "read" || consent.TargetType != "oauth_grant" {
			t.Errorf("oauth_grant.consent: %s %v", consent.TargetType, consent.After)
		}
		t1 := oauthTokens(t, e, url.Values{"grant_type": {"authorization_code"}, "client_id": {id}, "code": {code},
			"code_verifier": {verifier}, "redirect_uri": {oauthRedirect}}, nil)
		issued := expect("exchange", as("token.create", "oauth_client", ann))[0]
		if !strings.Contains(issued.ActorLabel, id) {
			t.Errorf("the client acting is labelled %q, want its client_id %s in it", issued.ActorLabel, id)
		}
		t2 := oauthTokens(t, e, url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {t1.RefreshToken}}, nil)
		expect("refresh", as("token.create", "oauth_client", ann))
		oauthPost(t, e, "/o/token/", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {t1.RefreshToken}}, nil)
		revoked := expect("a replayed refresh token", as("oauth_grant.revoke", "oauth_client", ann))[0]
		if revoked.After["reason"] != "a rotated refresh token was used again" || revoked.After["tokens_deleted"] != float64(2) {
			t.Errorf("oauth_grant.revoke after a replay: %v", revoked.After)
		}
		oauthPost(t, e, "/o/token/", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {t2.RefreshToken}}, nil)
		expect("a dead grant's refresh token")

		code, verifier = oauthCode(t, b, cfg)
		expect("second consent", as("oauth_grant.consent", "session", ann))
		t3 := oauthTokens(t, e, url.Values{"grant_type": {"authorization_code"}, "client_id": {id}, "code": {code},
			"code_verifier": {verifier}, "redirect_uri": {oauthRedirect}}, nil)
		expect("second exchange", as("token.create", "oauth_client", ann))
		oauthPost(t, e, "/o/revoke_token/", url.Values{"client_id": {id}, "token": {t3.AccessToken}}, nil)
		expect("revoking the access token", as("token.delete", "oauth_client", ann))
		oauthPost(t, e, "/o/revoke_token/", url.Values{"client_id": {id}, "token": {t3.RefreshToken}}, nil)
		byClient := expect("revoking the refresh token", as("oauth_grant.revoke", "oauth_client", ann))[0]
		if byClient.After["reason"] != "revoked by the client (RFC 7009)" {
			t.Errorf("oauth_grant.revoke by the client: %v", byClient.After)
		}

		if r := e.Do(t, servertest.Request{Method: http.MethodDelete, Path: path, Key: admin.Key}); r.Status != http.StatusNoContent {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		deleted := expect("delete", as("oauth_client.delete", "token", admin))[0]
		if deleted.Before["grants"] != float64(2) || deleted.Before["name"] != "Renamed" {
			t.Errorf("oauth_client.delete: %v", deleted.Before)
		}
		for _, en := range []*ent.AuditEntry{created, upd, deleted} {
			for _, m := range []map[string]any{en.Before, en.After} {
				for k := range m {
					if strings.Contains(k, "secret") {
						t.Errorf("%s recorded %q", en.Action, k)
					}
				}
			}
		}
	})
}
