package signin_test

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/auditentry"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/ent/useridentity"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

func timeNow() time.Time { return time.Now().UTC() }

// ssoZitadel is Geopub with the zitadel provider configured as "corp",
// its groups claim mapped: gis-editors edit data in the editors group,
// gis-viewers are members of the viewers group.
type ssoZitadel struct {
	env              *servertest.Env
	op               *ssoOP
	editors, viewers *ent.Group
	other            *ent.Group // a group the mapping does not name
}

func ssoStartZitadel(t *testing.T, st *store.Store, users ssoOPUsers) *ssoZitadel {
	t.Helper()
	op, ready := ssoStartOP(t, users, "geopub-web", "op-client-secret")
	cfg := ssoConfig(t, map[string]any{
		"name": "corp", "title": "Corp ID", "issuer": op.Issuer,
		"client_id": "geopub-web", "client_secret": "op-client-secret",
		"groups_claim": "groups",
		"groups": []map[string]string{
			{"claim_value": "gis-editors", "group": "editors", "role": "edit_data"},
			{"claim_value": "gis-viewers", "group": "viewers"},
		},
	})
	z := &ssoZitadel{env: ssoEnv(t, st, cfg), op: op}
	ready(z.env.HTTP.URL + "/auth/oidc/corp/callback")
	ctx := context.Background()
	c := st.Client
	z.editors = c.Group.Create().SetName("Editors").SetURLSlug("editors").SaveX(ctx)
	z.viewers = c.Group.Create().SetName("Viewers").SetURLSlug("viewers").SaveX(ctx)
	z.other = c.Group.Create().SetName("Other").SetURLSlug("other").SaveX(ctx)
	return z
}

// signIn signs username in through the provider's login form with a
// plain HTTP client that follows redirects, and returns the client (its
// cookie jar holds the session) and the page it ended on.
func (z *ssoZitadel) signIn(t *testing.T, c *http.Client, username string) string {
	t.Helper()
	resp, body := ssoGet(t, c, z.env.HTTP.URL+"/auth/oidc/corp/start?next=/signin/")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Request.URL.String(), z.op.Issuer+"/login/username") {
		t.Fatalf("start: %d at %s: %s", resp.StatusCode, resp.Request.URL, body)
	}
	id := resp.Request.URL.Query().Get("authRequestID")
	resp, err := c.PostForm(z.op.Issuer+"/login/username", url.Values{"id": {id}, "username": {username}, "password": {ssoOPPassword}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page := readAll(resp)
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/signin/" {
		t.Fatalf("after the provider's form: %d at %s: %s", resp.StatusCode, resp.Request.URL, page)
	}
	return page
}

// memberships is the user's groups and roles.
func (z *ssoZitadel) memberships(t *testing.T, uid int) map[int]groupmembership.Permission {
	t.Helper()
	ms, err := z.env.Store.Client.GroupMembership.Query().Where(groupmembership.UserID(uid)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]groupmembership.Permission{}
	for _, m := range ms {
		out[m.GroupID] = m.Permission
	}
	return out
}

// TestSSOZitadelSignInMapsGroups signs in through zitadel's provider: the
// user is created (remote, verified, linked by subject), the session
// works on the REST API, and the groups claim (from the provider's
// UserInfo) sets the mapped memberships, adding and removing them on
// later sign-ins without touching the others.
func TestSSOZitadelSignInMapsGroups(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		z := ssoStartZitadel(t, st, ssoOPUsers{"u1": ssoOPUser("u1", "ada", "Ada@Example.org", true)})
		z.op.SetGroups("u1", "gis-editors", "gis-viewers", "unmapped")
		c := ssoBrowser(t, true)
		page := z.signIn(t, c, "ada")
		ssoContains(t, "the sign-in page after signing in", page, "ada@example.org")
		if email, status := ssoMe(t, z.env, c); email != "ada@example.org" {
			t.Fatalf("users/me with the SSO session: %d %q", status, email)
		}
		ctx := context.Background()
		u := z.env.Store.Client.User.Query().Where(user.Email("ada@example.org")).OnlyX(ctx)
		if !u.RemoteAuth || !u.EmailVerified || u.PasswordHash != "" || u.FirstName != "Ada" {
			t.Errorf("created user: remote %v verified %v password %q first %q", u.RemoteAuth, u.EmailVerified, u.PasswordHash, u.FirstName)
		}
		link := z.env.Store.Client.UserIdentity.Query().Where(useridentity.UserID(u.ID)).OnlyX(ctx)
		if link.Provider != "corp" || link.Subject != "u1" {
			t.Errorf("link: %s %s", link.Provider, link.Subject)
		}
		got := z.memberships(t, u.ID)
		if got[z.editors.ID] != groupmembership.PermissionEditData || got[z.viewers.ID] != groupmembership.PermissionMember {
			t.Fatalf("memberships after the first sign-in: %v", got)
		}
		// A membership given by other means, in a group the mapping
		// does not name, stays.
		z.env.Store.Client.GroupMembership.Create().SetGroupID(z.other.ID).SetUserID(u.ID).
			SetPermission(groupmembership.PermissionAdmin).ExecX(ctx)

		z.op.SetGroups("u1", "gis-viewers")
		z.signIn(t, ssoBrowser(t, true), "ada")
		got = z.memberships(t, u.ID)
		if _, ok := got[z.editors.ID]; ok || got[z.viewers.ID] != groupmembership.PermissionMember ||
			got[z.other.ID] != groupmembership.PermissionAdmin {
			t.Fatalf("memberships after the claim dropped gis-editors: %v", got)
		}
		z.op.SetGroups("u1")
		z.signIn(t, ssoBrowser(t, true), "ada")
		got = z.memberships(t, u.ID)
		if _, ok := got[z.viewers.ID]; ok || got[z.other.ID] != groupmembership.PermissionAdmin {
			t.Fatalf("memberships after an empty claim: %v", got)
		}
		if n := z.env.Store.Client.User.Query().Where(user.Email("ada@example.org")).CountX(ctx); n != 1 {
			t.Fatalf("%d users after three sign-ins, want 1", n)
		}
		// Each membership the claim gave or took is in the audit log once,
		// by the provider's claim for the user signing in; the other
		// group's membership is not.
		var entries []string
		for _, en := range z.env.Store.Client.AuditEntry.Query().Where(auditentry.ActionHasPrefix("membership.")).AllX(ctx) {
			if en.ActorKind != "identity_provider" || en.ActorUserID == nil || *en.ActorUserID != u.ID || !strings.Contains(en.ActorLabel, "corp") {
				t.Errorf("%s by %s user %v %q, want the identity provider corp for user %d", en.Action, en.ActorKind, en.ActorUserID, en.ActorLabel, u.ID)
			}
			entries = append(entries, en.Action+" "+en.TargetID)
		}
		sort.Strings(entries)
		want := []string{"membership.add " + strconv.Itoa(z.editors.ID), "membership.add " + strconv.Itoa(z.viewers.ID),
			"membership.remove " + strconv.Itoa(z.editors.ID), "membership.remove " + strconv.Itoa(z.viewers.ID)}
		sort.Strings(want)
		if strings.Join(entries, ", ") != strings.Join(want, ", ") {
			t.Errorf("membership entries %v, want %v", entries, want)
		}
	})
}

// TestSSOZitadelLinksVerifiedEmailOnly: an existing account is linked
// when the provider says its address is verified; an unverified address
// that belongs to an account is refused, with no session.
func TestSSOZitadelLinksVerifiedEmailOnly(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		z := ssoStartZitadel(t, st, ssoOPUsers{
			"v": ssoOPUser("v", "verified", "known@example.org", true),
			"n": ssoOPUser("n", "unverified", "other@example.org", false),
		})
		known := z.env.NewUser(t, "known")
		z.env.Store.Client.User.UpdateOneID(known.ID).SetEmail("known@example.org").ExecX(context.Background())
		other := z.env.NewUser(t, "other")
		z.env.Store.Client.User.UpdateOneID(other.ID).SetEmail("other@example.org").ExecX(context.Background())

		c := ssoBrowser(t, true)
		z.signIn(t, c, "verified")
		if email, _ := ssoMe(t, z.env, c); email != "known@example.org" {
			t.Fatalf("signed in as %q, want the existing known@example.org", email)
		}
		if !z.env.Store.Client.UserIdentity.Query().Where(useridentity.UserID(known.ID)).ExistX(context.Background()) {
			t.Fatal("the verified address was not linked")
		}

		before := ssoSessions(t, z.env)
		c = ssoBrowser(t, true)
		resp, _ := ssoGet(t, c, z.env.HTTP.URL+"/auth/oidc/corp/start?next=/signin/")
		id := resp.Request.URL.Query().Get("authRequestID")
		resp, err := c.PostForm(z.op.Issuer+"/login/username", url.Values{"id": {id}, "username": {"unverified"}, "password": {ssoOPPassword}})
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(resp)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("unverified address of an existing account: %d %s", resp.StatusCode, body)
		}
		ssoContains(t, "refusal", body, "does not say the address is verified")
		if n := ssoSessions(t, z.env); n != before {
			t.Fatalf("sessions %d -> %d after a refused sign-in", before, n)
		}
	})
}
