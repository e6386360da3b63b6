package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	entgo "entgo.io/ent"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/auditentry"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/internal/audit"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/site"
	"github.com/geopub/geopub/internal/store"
)

// observeAuditEntries counts the audit entries committed by the store's
// InTx transactions, as the store's own observers see them.
func observeAuditEntries(st *store.Store) *atomic.Int64 {
	var observed atomic.Int64
	st.Observe("test: audit entries", func() store.TxObservation {
		var n int64
		return store.TxObservation{
			Hooks: []entgo.Hook{func(next entgo.Mutator) entgo.Mutator {
				return entgo.MutateFunc(func(ctx context.Context, m entgo.Mutation) (entgo.Value, error) {
					v, err := next.Mutate(ctx, m)
					if err == nil && m.Type() == ent.TypeAuditEntry {
						n++
					}
					return v, err
				})
			}},
			AfterCommit: func() { observed.Add(n) },
		}
	})
	return &observed
}

// auditJSONEntry is an entry as GET /audit/ answers it.
type auditJSONEntry struct {
	ID        int    `json:"id"`
	CreatedAt string `json:"created_at"`
	Actor     struct {
		Kind      string `json:"kind"`
		UserID    *int   `json:"user_id"`
		Label     string `json:"label"`
		SessionID *int   `json:"session_id"`
		TokenID   *int   `json:"token_id"`
	} `json:"actor"`
	Action string `json:"action"`
	Target struct {
		Type  string `json:"type"`
		ID    string `json:"id"`
		Label string `json:"label"`
	} `json:"target"`
	Before     map[string]any `json:"before"`
	After      map[string]any `json:"after"`
	ClientAddr string         `json:"client_addr"`
	GroupIDs   []int          `json:"group_ids"`
}

// auditAfter returns the entries written after entry id last.
func auditAfter(t *testing.T, e *env, last int) []*ent.AuditEntry {
	t.Helper()
	return e.Store.Client.AuditEntry.Query().Where(auditentry.IDGT(last)).Order(ent.Asc(auditentry.FieldID)).AllX(t.Context())
}

// auditLast is the id of the newest entry, 0 when there is none.
func auditLast(t *testing.T, e *env) int {
	t.Helper()
	ids := e.Store.Client.AuditEntry.Query().Order(ent.Desc(auditentry.FieldID)).Limit(1).IDsX(t.Context())
	if len(ids) == 0 {
		return 0
	}
	return ids[0]
}

// auditCase is one audited action done through the router, and the entry
// it must leave.
type auditCase struct {
	name   string
	do     func(t *testing.T) // the action; it checks its own answer
	action string
	typ    string
	id     func() string
	actor  func() *ent.User
	kind   string // session or token
	before map[string]any
	after  map[string]any
	groups []int
}

// auditStatus fails unless the action succeeded: the status wanted, or
// any 2xx when want is 0.
func auditStatus(t *testing.T, r *servertest.Response, want int) {
	t.Helper()
	if want == 0 && r.Status/100 == 2 || r.Status == want {
		return
	}
	t.Fatalf("status = %d, want %d; body: %s", r.Status, want, r.Body)
}

// auditSubset fails unless every key of want has that value in got (as
// JSON compares them); a nil want checks nothing.
func auditSubset(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if !audit.SameJSON(normalJSON(got[k]), normalJSON(v)) {
			t.Fatalf("%s[%q] = %#v, want %#v (all: %v)", what, k, got[k], v, got)
		}
	}
}

// normalJSON makes ints and float64s compare alike.
func normalJSON(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func TestAuditEveryActionLeavesOneEntry(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		admin := e.NewUser(t, "Admin", servertest.SiteAdmin)
		owner := e.NewUser(t, "Owner")
		member := e.NewUser(t, "Member")
		leaver := e.NewUser(t, "Leaver")
		// quietSession gives member a session without signing in (which
		// would write its own session.start entry).
		quietSession := func(t *testing.T) int {
			now := time.Now().UTC()
			return e.Store.Client.Session.Create().SetUserID(member.ID).SetTokenHash(auth.HashKey(fmt.Sprintf("quiet %d", now.UnixNano()))).
				SetCsrfToken("csrf").SetCreatedAt(now).SetExpiresAt(now.Add(time.Hour)).SaveX(t.Context()).ID
		}
		g := e.SeedGroups(t, "audited", 1, owner.User, groupmembership.PermissionAdmin)[0]
		pub := seedLayer(t, e, owner.User, layer.TypeLayer, "Audited roads", false)
		gone := seedLayer(t, e, owner.User, layer.TypeLayer, "Doomed", false)
		draft := seedLayer(t, e, owner.User, layer.TypeLayer, "Fresh", true)
		draftV := e.Store.Client.LayerVersion.Query().Where(layerversion.LayerID(draft.ID)).OnlyX(ctx)
		// A published layer with a draft to delete.
		extra := e.Store.Client.LayerVersion.Create().SetLayerID(pub.ID).SetName("next").SetCreatedBy(owner.ID).
			SetDatasourceIds([]int{}).SetState(layerversion.StateDraft).SetStatus(layerversion.StatusOk).SetProgress(1).SaveX(ctx)
		feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
		defer feed.Close()

		lid := strconv.Itoa(pub.ID)
		layerURL := "/layers/" + lid + "/"
		var tokenID, sourceID, templateID int
		var serviceID string
		template := map[string]any{"title": "City tiles", "scope": []string{"layer"}, "access_policy": "all-users",
			"template_urls": []map[string]any{{"service_url": "https://tiles.example.com/{shortname}/{z}/{x}/{y}.png"}}}
		var cookie *http.Cookie
		var csrf string
		groupID := g.ID
		who := func(u *servertest.User) func() *ent.User { return func() *ent.User { return u.User } }
		fixed := func(s string) func() string { return func() string { return s } }

		cases := []auditCase{
			{name: "TokenCreate", action: "token.create", typ: "token", actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					r := e.Do(t, req{Method: "POST", Path: "/tokens/", Key: owner.Key, Body: map[string]any{"name": "audited", "scope": "layers:read"}})
					auditStatus(t, r, http.StatusCreated)
					var tok struct {
						ID int `json:"id"`
					}
					r.JSON(t, &tok)
					tokenID = tok.ID
				},
				id:    func() string { return strconv.Itoa(tokenID) },
				after: map[string]any{"name": "audited", "scope": "layers:read"}},
			{name: "TokenUpdate", action: "token.update", typ: "token", actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/tokens/%d/", tokenID), Key: owner.Key,
						Body: map[string]any{"name": "renamed", "scope": "layers:read"}}), 0)
				},
				id:     func() string { return strconv.Itoa(tokenID) },
				before: map[string]any{"name": "audited"}, after: map[string]any{"name": "renamed"}},
			{name: "TokenDelete", action: "token.delete", typ: "token", actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/tokens/%d/", tokenID), Key: owner.Key}), 0)
				},
				id: func() string { return strconv.Itoa(tokenID) }, before: map[string]any{"name": "renamed"}},
			{name: "SessionStart", action: "session.start", typ: "session", actor: who(member), kind: "session",
				do: func(t *testing.T) {
					r := e.Do(t, req{Method: "POST", Path: "/session/", Body: map[string]any{"email": member.Email, "password": servertest.Password}})
					auditStatus(t, r, http.StatusOK)
					var s struct {
						CSRF string `json:"csrf_token"`
					}
					r.JSON(t, &s)
					csrf = s.CSRF
					for _, c := range (&http.Response{Header: r.Header}).Cookies() {
						if c.Value != "" && !strings.Contains(strings.ToLower(c.Name), "csrf") {
							cookie = c
						}
					}
					if cookie == nil {
						t.Fatalf("no session cookie in %v", r.Header)
					}
				},
				id:    func() string { return "" },
				after: map[string]any{"user_id": member.ID}},
			{name: "SessionEnd", action: "session.end", typ: "session", actor: who(member), kind: "session",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "DELETE", Path: "/session/", Header: map[string]string{
						"Cookie": cookie.Name + "=" + cookie.Value, auth.CSRFHeader: csrf}}), 0)
				},
				id:     func() string { return "" },
				before: map[string]any{"user_id": member.ID}},
			{name: "PermissionGrant", action: "permission.grant", typ: "layer", id: fixed(lid), actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "POST", Path: layerURL + "permissions/", Key: owner.Key,
						Body: map[string]any{"group": strconv.Itoa(groupID), "permission": "view"}}), http.StatusCreated)
				},
				after: map[string]any{"subject": fmt.Sprintf("group.%d", groupID), "permission": "view"}, groups: []int{groupID}},
			{name: "PermissionChange", action: "permission.change", typ: "layer", id: fixed(lid), actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("%spermissions/group.%d/", layerURL, groupID), Key: owner.Key,
						Body: map[string]any{"permission": "download"}}), 0)
				},
				before: map[string]any{"permission": "view"}, after: map[string]any{"permission": "download"}, groups: []int{groupID}},
			{name: "PermissionRevoke", action: "permission.revoke", typ: "layer", id: fixed(lid), actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("%spermissions/group.%d/", layerURL, groupID), Key: owner.Key}), 0)
				},
				before: map[string]any{"permission": "download"}, groups: []int{groupID}},
			{name: "PermissionReplace", action: "permission.replace", typ: "layer", id: fixed(lid), actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "PUT", Path: layerURL + "permissions/", Key: owner.Key, Body: []map[string]any{
						{"user": owner.ID, "permission": "admin"}, {"group": strconv.Itoa(groupID), "permission": "view"}}}), 0)
				},
				after:  map[string]any{"grants": map[string]any{fmt.Sprintf("user.%d", owner.ID): "admin", fmt.Sprintf("group.%d", groupID): "view"}},
				groups: []int{groupID}},
			{name: "MembershipAdd", action: "membership.add", typ: "group", id: fixed(strconv.Itoa(groupID)), actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/groups/%d/permissions/", groupID), Key: owner.Key,
						Body: map[string]any{"user": member.ID, "permission": "member"}}), http.StatusCreated)
				},
				after: map[string]any{"user_id": member.ID, "permission": "member"}, groups: []int{groupID}},
			{name: "MembershipChange", action: "membership.change", typ: "group", id: fixed(strconv.Itoa(groupID)), actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/groups/%d/permissions/user.%d/", groupID, member.ID), Key: owner.Key,
						Body: map[string]any{"permission": "edit_data"}}), 0)
				},
				before: map[string]any{"permission": "member"}, after: map[string]any{"permission": "edit_data"}, groups: []int{groupID}},
			{name: "MembershipRemove", action: "membership.remove", typ: "group", id: fixed(strconv.Itoa(groupID)), actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/groups/%d/permissions/user.%d/", groupID, member.ID), Key: owner.Key}), 0)
				},
				before: map[string]any{"permission": "edit_data"}, groups: []int{groupID}},
			{name: "Publish", action: "layer.publish", typ: "layer", id: fixed(strconv.Itoa(draft.ID)), actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "POST", Path: "/publish/", Key: owner.Key, Body: map[string]any{
						"items": []string{fmt.Sprintf("%s/layers/%d/versions/%d/", e.API, draft.ID, draftV.ID)}}}), 0)
				},
				before: map[string]any{"published_version_id": nil}, after: map[string]any{"published_version_id": draftV.ID}},
			{name: "VersionDelete", action: "version.delete", typ: "layer", id: fixed(lid), actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("%sversions/%d/", layerURL, extra.ID), Key: owner.Key}), 0)
				},
				before: map[string]any{"version_id": extra.ID}, after: map[string]any{"state": "deleted"}},
			{name: "ServiceSwitch", action: "service.disable", typ: "service", id: fixed("layer/" + lid + "/kart"), actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "PUT", Path: layerURL + "services/kart/", Key: owner.Key, Body: map[string]any{"enabled": false}}), 0)
				},
				before: map[string]any{"enabled": true}, after: map[string]any{"enabled": false}},
			{name: "SiteSettings", action: "site.settings", typ: "site", id: fixed("settings"), actor: who(admin), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "PUT", Path: "/site/settings/", Key: admin.Key, Body: map[string]any{"esri_map": false}}), 0)
				},
				before: map[string]any{"esri_map": true}, after: map[string]any{"esri_map": false}},
			{name: "TemplateCreate", action: "external_service_template.create", typ: "external_service_template", actor: who(admin), kind: "token",
				do: func(t *testing.T) {
					if err := site.Set(ctx, e.Store.Client, site.ExternalServices, true); err != nil {
						t.Fatal(err)
					}
					r := e.Do(t, req{Method: "POST", Path: "/site/external-service-templates/", Key: admin.Key, Body: template})
					auditStatus(t, r, http.StatusCreated)
					var tpl struct {
						ID int `json:"id"`
					}
					r.JSON(t, &tpl)
					templateID = tpl.ID
				},
				id:    func() string { return strconv.Itoa(templateID) },
				after: map[string]any{"title": "City tiles", "enabled": true}},
			{name: "TemplateUpdate", action: "external_service_template.update", typ: "external_service_template", actor: who(admin), kind: "token",
				do: func(t *testing.T) {
					changed := maps.Clone(template)
					changed["title"] = "Town tiles"
					auditStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/site/external-service-templates/%d", templateID), Key: admin.Key, Body: changed}), 0)
				},
				id:     func() string { return strconv.Itoa(templateID) },
				before: map[string]any{"title": "City tiles"}, after: map[string]any{"title": "Town tiles"}},
			{name: "ServiceAttach", action: "service.attach", typ: "service", actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					r := e.Do(t, req{Method: "POST", Path: layerURL + "external-services/", Key: owner.Key, Body: map[string]any{"template_id": templateID}})
					auditStatus(t, r, http.StatusCreated)
					var svc struct {
						ID string `json:"id"`
					}
					r.JSON(t, &svc)
					serviceID = svc.ID
				},
				id:    func() string { return "layer/" + lid + "/" + serviceID },
				after: map[string]any{"enabled": true}},
			{name: "TemplateDelete", action: "external_service_template.delete", typ: "external_service_template", actor: who(admin), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/site/external-service-templates/%d", templateID), Key: admin.Key}), 0)
				},
				id:     func() string { return strconv.Itoa(templateID) },
				before: map[string]any{"title": "Town tiles", "services": 1}},
			{name: "UserLock", action: "user.lock", typ: "user", id: fixed(strconv.Itoa(leaver.ID)), actor: who(admin), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/users/%d/lock/", leaver.ID), Key: admin.Key}), 0)
				},
				before: map[string]any{"is_locked": false}, after: map[string]any{"is_locked": true}},
			{name: "UserUnlock", action: "user.unlock", typ: "user", id: fixed(strconv.Itoa(leaver.ID)), actor: who(admin), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/users/%d/unlock/", leaver.ID), Key: admin.Key}), 0)
				},
				before: map[string]any{"is_locked": true}, after: map[string]any{"is_locked": false}},
			{name: "PasswordChange", action: "user.password", typ: "user", id: fixed(strconv.Itoa(member.ID)), actor: who(member), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "PUT", Path: "/users/me/password/", Key: member.Key,
						Body: map[string]any{"current_password": servertest.Password, "new_password": "an entirely new passphrase 42"}}), 0)
				},
				after: map[string]any{"sessions_ended": 0}},
			{name: "OwnSessionEnd", action: "session.end", typ: "session", id: fixed(""), actor: who(member), kind: "token",
				do: func(t *testing.T) {
					sid := quietSession(t)
					auditStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/users/me/sessions/%d/", sid), Key: member.Key}), 0)
				},
				before: map[string]any{"user_id": member.ID}},
			{name: "OtherSessionsEnd", action: "session.end", typ: "session", id: fixed(""), actor: who(member), kind: "token",
				do: func(t *testing.T) {
					quietSession(t)
					quietSession(t)
					auditStatus(t, e.Do(t, req{Method: "POST", Path: "/users/me/sessions/end-others/", Key: member.Key}), 0)
				},
				before: map[string]any{"user_id": member.ID}, after: map[string]any{"sessions_ended": 2}},
			{name: "UserDelete", action: "user.delete", typ: "user", id: fixed(strconv.Itoa(leaver.ID)), actor: who(admin), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/users/%d/?receiver=user.%d", leaver.ID, owner.ID), Key: admin.Key}), 0)
				},
				before: map[string]any{"email": leaver.Email}},
			{name: "SourceCreate", action: "source.create", typ: "source", actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					r := e.Do(t, req{Method: "POST", Path: "/sources/", Key: owner.Key, Body: map[string]any{
						"type": "url", "title": "Feed", "url_remote": feed.URL + "/feed.geojson"}})
					auditStatus(t, r, http.StatusCreated)
					var s struct {
						ID int `json:"id"`
					}
					r.JSON(t, &s)
					sourceID = s.ID
				},
				id: func() string { return strconv.Itoa(sourceID) }, after: map[string]any{"title": "Feed", "type": "url"}},
			{name: "SourceUpdate", action: "source.update", typ: "source", actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "PUT", Path: fmt.Sprintf("/sources/%d/", sourceID), Key: owner.Key,
						Body: map[string]any{"title": "Feed two"}}), 0)
				},
				id: func() string { return strconv.Itoa(sourceID) }, before: map[string]any{"title": "Feed"}, after: map[string]any{"title": "Feed two"}},
			{name: "SourceDelete", action: "source.delete", typ: "source", actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/sources/%d/", sourceID), Key: owner.Key}), 0)
				},
				id: func() string { return strconv.Itoa(sourceID) }, before: map[string]any{"title": "Feed two"}},
			{name: "DatasetDelete", action: "layer.delete", typ: "layer", id: fixed(strconv.Itoa(gone.ID)), actor: who(owner), kind: "token",
				do: func(t *testing.T) {
					auditStatus(t, e.Do(t, req{Method: "DELETE", Path: fmt.Sprintf("/layers/%d/", gone.ID), Key: owner.Key}), 0)
				},
				before: map[string]any{"title": "Doomed"}},
		}
		observed := observeAuditEntries(e.Store)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				last := auditLast(t, e)
				seen := observed.Load()
				c.do(t)
				got := auditAfter(t, e, last)
				// Through the store's InTx: SQLite's write gate and the
				// store's observers (change feed, caches) see the change.
				if n := observed.Load() - seen; n != 1 {
					t.Fatalf("the store's transaction observers saw %d entries committed, want 1", n)
				}
				if len(got) != 1 {
					acts := make([]string, len(got))
					for i, g := range got {
						acts[i] = g.Action
					}
					t.Fatalf("%d entries (%v), want exactly one", len(got), acts)
				}
				en := got[0]
				if en.Action != c.action || en.TargetType != c.typ {
					t.Fatalf("entry %s on %s, want %s on %s", en.Action, en.TargetType, c.action, c.typ)
				}
				if id := c.id(); id != "" && en.TargetID != id {
					t.Fatalf("target id = %q, want %q", en.TargetID, id)
				}
				if u := c.actor(); en.ActorUserID == nil || *en.ActorUserID != u.ID || en.ActorKind != c.kind {
					t.Fatalf("actor = %s user %v, want %s user %d", en.ActorKind, en.ActorUserID, c.kind, u.ID)
				}
				if c.kind == "token" && en.ActorTokenID == nil || c.kind == "session" && en.ActorSessionID == nil {
					t.Fatalf("the actor's %s id is missing", c.kind)
				}
				if en.ClientAddr != "127.0.0.1" {
					t.Fatalf("client address = %q, want 127.0.0.1", en.ClientAddr)
				}
				auditSubset(t, "before", en.Before, c.before)
				auditSubset(t, "after", en.After, c.after)
				for _, g := range c.groups {
					if !strings.Contains(en.GroupIds, ","+strconv.Itoa(g)+",") {
						t.Fatalf("groups = %q, want %d among them", en.GroupIds, g)
					}
				}
				for _, m := range []map[string]any{en.Before, en.After} {
					for k := range m {
						if strings.Contains(k, "hash") || strings.Contains(k, "password") || k == "key" {
							t.Fatalf("a secret's field %q was recorded", k)
						}
					}
				}
			})
		}
	})
}
