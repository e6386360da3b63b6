package rest_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent/auditentry"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/server/servertest"
)

// auditSeed makes entries of two kinds: one concerning group g (a grant
// to it) and one concerning no group (a token of the outsider).
func auditSeed(t *testing.T, e *env) (admin, gadmin, outsider *user, groupID int) {
	t.Helper()
	admin = e.NewUser(t, "Admin", servertest.SiteAdmin)
	owner := e.NewUser(t, "Owner")
	gadmin = e.NewUser(t, "GroupAdmin")
	outsider = e.NewUser(t, "Outsider")
	g := e.SeedGroups(t, "readers", 1, gadmin.User, groupmembership.PermissionAdmin)[0]
	l := seedLayer(t, e, owner.User, layer.TypeLayer, "Read roads", false)
	auditStatus(t, e.Do(t, req{Method: "POST", Path: fmt.Sprintf("/layers/%d/permissions/", l.ID), Key: owner.Key,
		Body: map[string]any{"group": strconv.Itoa(g.ID), "permission": "view"}}), http.StatusCreated)
	auditStatus(t, e.Do(t, req{Method: "POST", Path: "/tokens/", Key: outsider.Key, Body: map[string]any{"name": "mine"}}), http.StatusCreated)
	return admin, gadmin, outsider, g.ID
}

func auditList(t *testing.T, e *env, key, query string) []auditJSONEntry {
	t.Helper()
	r := e.Do(t, req{Path: "/audit/" + query, Key: key})
	auditStatus(t, r, http.StatusOK)
	var out []auditJSONEntry
	r.JSON(t, &out)
	return out
}

func TestAuditReadersSeeWhatConcernsThem(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin, gadmin, outsider, groupID := auditSeed(t, e)

		if r := e.Do(t, req{Path: "/audit/"}); r.Status != http.StatusUnauthorized {
			t.Fatalf("anonymous: status %d, want 401", r.Status)
		}
		if got := auditList(t, e, outsider.Key, ""); len(got) != 0 {
			t.Fatalf("an outsider read %d entries, want none", len(got))
		}
		if r := e.Do(t, req{Path: "/audit/", Key: e.Token(t, admin.User, "layers:read")}); r.Status != http.StatusUnauthorized {
			t.Fatalf("a token without users:read: status %d, want 401 naming the scope", r.Status)
		}
		mine := auditList(t, e, gadmin.Key, "?page_size=200")
		if len(mine) == 0 {
			t.Fatal("the group admin reads none of their group's entries")
		}
		for _, en := range mine {
			found := false
			for _, g := range en.GroupIDs {
				found = found || g == groupID
			}
			if !found {
				t.Fatalf("the group admin read entry %d (%s) of groups %v", en.ID, en.Action, en.GroupIDs)
			}
		}
		total := e.Store.Client.AuditEntry.Query().CountX(t.Context())
		all := auditList(t, e, admin.Key, "?page_size=200")
		if len(all) != total {
			t.Fatalf("the site admin read %d entries of %d", len(all), total)
		}
		// Filters.
		for q, want := range map[string]func(auditJSONEntry) bool{
			"?action=permission.":         func(en auditJSONEntry) bool { return strings.HasPrefix(en.Action, "permission.") },
			"?action=token.create":        func(en auditJSONEntry) bool { return en.Action == "token.create" },
			"?action=%20token.create%20":  func(en auditJSONEntry) bool { return en.Action == "token.create" },
			"?actor=" + itoa(outsider.ID): func(en auditJSONEntry) bool { return en.Actor.UserID != nil && *en.Actor.UserID == outsider.ID },
			"?target_type=layer":          func(en auditJSONEntry) bool { return en.Target.Type == "layer" },
		} {
			got := auditList(t, e, admin.Key, q)
			if len(got) == 0 {
				t.Fatalf("%s: no entries", q)
			}
			for _, en := range got {
				if !want(en) {
					t.Fatalf("%s: entry %d (%s) does not match", q, en.ID, en.Action)
				}
			}
		}
		if got := auditList(t, e, admin.Key, "?from=2999-01-01T00:00:00Z"); len(got) != 0 {
			t.Fatalf("from the future: %d entries", len(got))
		}
		// Bad input: 400 naming the parameter (the API's field errors).
		for q, field := range map[string]string{"?from=yesterday": "from", "?page_size=0": "page_size", "?page_size=201": "page_size",
			"?after=x": "after", "?target_id=4": "target_id", "?actor=me": "actor"} {
			r := e.Do(t, req{Path: "/audit/" + q, Key: admin.Key})
			if r.Status != http.StatusBadRequest || !bytes.Contains(r.Body, []byte(`"`+field+`"`)) {
				t.Fatalf("%s: status %d body %s, want 400 naming %s", q, r.Status, r.Body, field)
			}
		}
		// Paging: one entry a page, the Link header leads on.
		r := e.Do(t, req{Path: "/audit/?page_size=1", Key: admin.Key})
		auditStatus(t, r, http.StatusOK)
		if !strings.Contains(r.Header.Get("Link"), `rel="page-next"`) {
			t.Fatalf("Link = %q, want a page-next", r.Header.Get("Link"))
		}
	})
}

func TestAuditCSVMatchesJSON(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin, _, _, _ := auditSeed(t, e)
		entries := auditList(t, e, admin.Key, "?page_size=200")
		for _, how := range []req{
			{Path: "/audit.csv?page_size=1000", Key: admin.Key},
			{Path: "/audit/?page_size=1000", Key: admin.Key, Header: map[string]string{"Accept": "text/csv"}},
		} {
			r := e.Do(t, how)
			auditStatus(t, r, http.StatusOK)
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
				t.Fatalf("Content-Type = %q", ct)
			}
			rows, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
			if err != nil {
				t.Fatalf("CSV does not parse: %v", err)
			}
			if len(rows) != len(entries)+1 || rows[0][0] != "id" {
				t.Fatalf("%d rows, want a header and %d", len(rows), len(entries))
			}
			for i, en := range entries {
				row := rows[i+1]
				col := map[string]string{}
				for j, name := range rows[0] {
					col[name] = row[j]
				}
				if col["id"] != itoa(en.ID) || col["action"] != en.Action || col["target_type"] != en.Target.Type ||
					col["target_id"] != en.Target.ID || col["target_label"] != en.Target.Label || col["client_addr"] != en.ClientAddr ||
					col["actor_kind"] != en.Actor.Kind || col["actor_label"] != en.Actor.Label {
					t.Fatalf("row %d = %v, JSON entry %+v", i, col, en)
				}
				for name, m := range map[string]map[string]any{"before": en.Before, "after": en.After} {
					if m == nil {
						if col[name] != "" {
							t.Fatalf("row %d %s = %q, want empty", i, name, col[name])
						}
						continue
					}
					var got map[string]any
					if err := json.Unmarshal([]byte(col[name]), &got); err != nil {
						t.Fatalf("row %d %s: %v", i, name, err)
					}
					auditSubset(t, name, got, m)
				}
			}
		}
	})
}

func TestAuditEntriesCannotBeAltered(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin, _, _, _ := auditSeed(t, e)
		ctx := t.Context()
		c := e.Store.Client
		first := c.AuditEntry.Query().FirstX(ctx)
		if err := c.AuditEntry.UpdateOneID(first.ID).Exec(ctx); err == nil {
			t.Fatal("the Ent hook let an update through")
		}
		if err := c.AuditEntry.DeleteOneID(first.ID).Exec(ctx); err == nil {
			t.Fatal("the Ent hook let a delete through")
		}
		if _, err := e.Store.DB.ExecContext(ctx, "UPDATE audit_entries SET action = 'forged'"); err == nil {
			t.Fatal("the trigger let an UPDATE through")
		}
		if _, err := e.Store.DB.ExecContext(ctx, "DELETE FROM audit_entries"); err == nil {
			t.Fatal("the trigger let a DELETE through")
		}
		if got := c.AuditEntry.Query().CountX(ctx); got == 0 {
			t.Fatal("entries are gone")
		}
		again := c.AuditEntry.GetX(ctx, first.ID)
		if again.Action != first.Action {
			t.Fatalf("action = %q, was %q", again.Action, first.Action)
		}
		// No route writes an entry.
		for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
			for _, p := range []string{"/audit/", fmt.Sprintf("/audit/%d/", first.ID)} {
				if r := e.Do(t, req{Method: m, Path: p, Key: admin.Key, Body: map[string]any{}}); r.Status/100 == 2 {
					t.Fatalf("%s %s answered %d", m, p, r.Status)
				}
			}
		}
		// No GraphQL mutation names the audit log.
		g := e.GraphQL(t, admin.Key, `{ __type(name: "Mutation") { fields { name } } }`, nil)
		if bytes.Contains(bytes.ToLower(g.Data), []byte("audit")) {
			t.Fatalf("a mutation names the audit log: %s", g.Data)
		}
		// The GraphQL connection reads what REST reads.
		g = e.GraphQL(t, admin.Key, `{ auditEntries(first: 1000) { totalCount edges { node { id action target { type id } } } } }`, nil)
		if len(g.Errors) > 0 {
			t.Fatalf("auditEntries: %v", g.Errors)
		}
		var data struct {
			AuditEntries struct {
				TotalCount int
				Edges      []struct{ Node struct{ ID, Action string } }
			}
		}
		if err := json.Unmarshal(g.Data, &data); err != nil {
			t.Fatal(err)
		}
		if want := c.AuditEntry.Query().CountX(ctx); data.AuditEntries.TotalCount != want || len(data.AuditEntries.Edges) != want {
			t.Fatalf("GraphQL read %d of %d entries (totalCount %d)", len(data.AuditEntries.Edges), want, data.AuditEntries.TotalCount)
		}
		// Its filter is read as REST's: spaces around the action do not count.
		g = e.GraphQL(t, admin.Key, `{ auditEntries(filter: {action: " token.create "}) { totalCount } }`, nil)
		want := c.AuditEntry.Query().Where(auditentry.Action("token.create")).CountX(ctx)
		if len(g.Errors) > 0 || want == 0 || string(g.Data) != fmt.Sprintf(`{"auditEntries":{"totalCount":%d}}`, want) {
			t.Fatalf("auditEntries filtered by a spaced action: %s %v, want %d", g.Data, g.Errors, want)
		}
	})
}
