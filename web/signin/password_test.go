package signin_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// TestSSOPasswordDisabledForSSOUsers: with the site setting
// sso_password_disabled on, a user linked to a provider may not sign in
// with a password (POST /session, the password grant of POST /tokens, the
// sign-in page's form: 403 naming SSO); a user without a link still may,
// and so may the linked user while the setting is off.
func TestSSOPasswordDisabledForSSOUsers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		h := ssoStartHostile(t, st)
		admin := h.env.NewUser(t, "admin", servertest.SiteAdmin)
		linked := h.env.NewUser(t, "linked")
		plain := h.env.NewUser(t, "plain")
		// linked signs in once through the provider with its verified
		// address, which links the account.
		c := ssoBrowser(t, false)
		resp, body := h.attempt(t, c, func(n string) string {
			return ssoSign(t, h.good, ssoClaims(h.op.Issuer(), "geopub", n, "sub-linked", linked.Email))
		})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("linking sign-in: %d %s", resp.StatusCode, body)
		}
		session := func(email string) *servertest.Response {
			b, _ := json.Marshal(map[string]string{"email": email, "password": servertest.Password})
			return h.env.Do(t, servertest.Request{Method: http.MethodPost, Path: "/session/", Body: string(b)})
		}
		token := func(email string) *servertest.Response {
			b, _ := json.Marshal(map[string]string{"grant_type": "password", "username": email,
				"password": servertest.Password, "name": "t", "scope": "layers:read"})
			return h.env.Do(t, servertest.Request{Method: http.MethodPost, Path: "/tokens/", Body: string(b)})
		}
		if r := session(linked.Email); r.Status != http.StatusOK {
			t.Fatalf("linked user with the setting off: %d %s", r.Status, r.Body)
		}
		put := h.env.Do(t, servertest.Request{Method: http.MethodPut, Path: "/site/settings/", Key: admin.Key,
			Body: `{"sso_password_disabled": true}`})
		if put.Status != http.StatusOK || !strings.Contains(string(put.Body), `"sso_password_disabled":true`) {
			t.Fatalf("turning the setting on: %d %s", put.Status, put.Body)
		}
		if g := h.env.GraphQL(t, admin.Key, `{ siteSettings { ssoPasswordDisabled } }`, nil); len(g.Errors) > 0 ||
			string(g.Data) != `{"siteSettings":{"ssoPasswordDisabled":true}}` {
			t.Fatalf("GraphQL siteSettings: %s %v", g.Data, g.Errors)
		}
		for name, r := range map[string]*servertest.Response{"POST /session": session(linked.Email), "POST /tokens": token(linked.Email)} {
			if r.Status != http.StatusForbidden || !strings.Contains(r.Detail(t), "single sign-on (SSO)") {
				t.Errorf("%s for the linked user: %d %s", name, r.Status, r.Body)
			}
		}
		form := url.Values{"email": {linked.Email}, "password": {servertest.Password}}
		fr, err := ssoBrowser(t, false).PostForm(h.env.HTTP.URL+"/signin/?next=/", form)
		if err != nil {
			t.Fatal(err)
		}
		page := readAll(fr)
		fr.Body.Close()
		if fr.StatusCode != http.StatusForbidden || !strings.Contains(page, "single sign-on (SSO)") || ssoHasSessionCookie(fr) {
			t.Errorf("sign-in form for the linked user: %d %s", fr.StatusCode, page)
		}
		// A wrong password still gets the usual answer, telling nothing.
		b, _ := json.Marshal(map[string]string{"email": linked.Email, "password": "wrong password!"})
		if r := h.env.Do(t, servertest.Request{Method: http.MethodPost, Path: "/session/", Body: string(b)}); r.Status != http.StatusUnauthorized {
			t.Errorf("wrong password of the linked user: %d %s", r.Status, r.Body)
		}
		if r := session(plain.Email); r.Status != http.StatusOK {
			t.Errorf("user without a link: %d %s", r.Status, r.Body)
		}
		if r := token(plain.Email); r.Status != http.StatusCreated {
			t.Errorf("password grant of a user without a link: %d %s", r.Status, r.Body)
		}
		fr, err = ssoBrowser(t, false).PostForm(h.env.HTTP.URL+"/signin/?next=/layers/", url.Values{"email": {plain.Email}, "password": {servertest.Password}})
		if err != nil {
			t.Fatal(err)
		}
		fr.Body.Close()
		if fr.StatusCode != http.StatusSeeOther || fr.Header.Get("Location") != "/layers/" || !ssoHasSessionCookie(fr) {
			t.Errorf("sign-in form for the user without a link: %d %q", fr.StatusCode, fr.Header.Get("Location"))
		}
	})
}

// TestSSOProvidersListed: GET /session/providers lists the providers to
// anyone, and the sign-in page has a button per provider carrying next.
func TestSSOProvidersListed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		h := ssoStartHostile(t, st)
		r := h.env.Do(t, servertest.Request{Method: http.MethodGet, Path: "/session/providers/"})
		if r.Status != http.StatusOK {
			t.Fatalf("providers: %d %s", r.Status, r.Body)
		}
		var list []map[string]string
		r.JSON(t, &list)
		if len(list) != 1 || list[0]["name"] != "scripted" || list[0]["start_url"] != h.env.HTTP.URL+"/auth/oidc/scripted/start" {
			t.Fatalf("providers: %s", r.Body)
		}
		g := h.env.GraphQL(t, "", `{ signInProviders { name title startPath } }`, nil)
		if len(g.Errors) > 0 || string(g.Data) != `{"signInProviders":[{"name":"scripted","title":"scripted","startPath":"/auth/oidc/scripted/start"}]}` {
			t.Fatalf("GraphQL signInProviders: %s %v", g.Data, g.Errors)
		}
		resp, page := ssoGet(t, ssoBrowser(t, false), h.env.HTTP.URL+"/signin/?next=/oauth/authorize%3Fclient_id%3Dx%26scope%3Dy")
		if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Fatalf("sign-in page: %d %v", resp.StatusCode, resp.Header)
		}
		ssoContains(t, "sign-in page", page, `href="/auth/oidc/scripted/start?next=%2Foauth%2Fauthorize%3Fclient_id%3Dx%26scope%3Dy"`)
		ssoContains(t, "sign-in page", page, `name="next" value="/oauth/authorize?client_id=x&amp;scope=y"`)
	})
}
