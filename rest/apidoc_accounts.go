package rest

import (
	"net/http"

	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/auth"
)

// accountOps documents the session, token, user and notification routes.
func accountOps(ops *[]*apidoc.Operation) {
	s := docs{ops: ops, tag: "Session and tokens", read: "*", write: "*"}
	s.op(http.MethodPost, "/session", "Sign in with e-mail and password; sets the session and CSRF cookies").Public().
		AcceptsJSON(loginBody{}).ReturnsJSON(200, "The session.", sessionJSON{}).
		Fails(http.StatusTooManyRequests, "Too many failed sign-ins; retry after Retry-After seconds.").
		Fails(http.StatusForbidden, "The account signs in through single sign-on, and the site setting sso_password_disabled is on.")
	s.op(http.MethodGet, "/session", "The caller's session").ReturnsJSON(200, "The session.", sessionJSON{})
	s.op(http.MethodDelete, "/session", "Sign out").NoContent("Signed out.")
	s.op(http.MethodPost, "/tokens", "Create an API token with the password grant").Public().
		AcceptsJSON(tokenRequest{}).Accepts("application/x-www-form-urlencoded", tokenRequest{}).
		ReturnsJSON(201, "The token, with its key (shown only here).", tokenJSON{}).
		Fails(http.StatusTooManyRequests, "Too many failed attempts; retry after Retry-After seconds.")
	t := docs{ops: ops, tag: "Session and tokens", read: auth.ScopeTokensRead, write: auth.ScopeTokensWrite}
	t.op(http.MethodGet, "/tokens", "The caller's tokens").ReturnsJSON(200, "The tokens, without keys.", []tokenJSON{})
	t.op(http.MethodGet, "/tokens/{tid:[0-9]+}", "A token").ReturnsJSON(200, "The token, without its key.", tokenJSON{})
	t.op(http.MethodPut, "/tokens/{tid:[0-9]+}", "Rename a token or change its referrers").
		AcceptsJSON(tokenUpdate{}).ReturnsJSON(200, "The token.", tokenJSON{})
	t.op(http.MethodDelete, "/tokens/{tid:[0-9]+}", "Revoke a token").NoContent("Revoked.")

	u := docs{ops: ops, tag: "Users", read: auth.ScopeUsersRead, write: auth.ScopeUsersWrite}
	u.op(http.MethodGet, "/users", "Users (site administrators)").Paging().
		WithQuery(qText, apidoc.Param{Name: "group", Description: "A group id; repeatable."},
			apidoc.Param{Name: "seat_type", Description: "paid or none."}).
		ReturnsJSON(200, "A page of users.", []userJSON{})
	u.op(http.MethodGet, "/users/me", "The caller").ReturnsJSON(200, "The caller's account.", meJSON{})
	u.op(http.MethodGet, "/users/{uid:[0-9]+}", "A user").ReturnsJSON(200, "The user.", userJSON{})
	u.op(http.MethodGet, "/users/{uid:[0-9]+}/access", "What a user may do on the site").
		ReturnsJSON(200, "The user's access.", apidoc.Object)

	n := docs{ops: ops, tag: "Notifications", read: auth.ScopeNotificationsRead, write: auth.ScopeNotificationsRead}
	n.op(http.MethodGet, "/notifications", "The caller's notifications").
		ReturnsJSON(200, "The notifications, newest first.", []notificationJSON{})
	n.op(http.MethodPost, "/notifications/read", "Mark notifications read").Accepts("application/json", apidoc.Object).
		ReturnsJSON(200, "How many were marked.", apidoc.Schema{"type": "object", "properties": map[string]any{"marked": apidoc.Integer}})
}

// groupOps documents groups, members and access requests.
func groupOps(ops *[]*apidoc.Operation) {
	g := docs{ops: ops, tag: "Groups", read: auth.ScopeUsersRead, write: auth.ScopeUsersWrite}
	g.op(http.MethodGet, "/groups", "Groups").Paging().
		WithQuery(qText, qSort, qFacets,
			apidoc.Param{Name: "access_requests_enabled", Schema: apidoc.Boolean},
			apidoc.Param{Name: "type", Description: "normal or members; repeatable."},
			apidoc.Param{Name: "created_at.after", Description: "Created after this ISO 8601 time."},
			apidoc.Param{Name: "created_at.before", Description: "Created before this ISO 8601 time."},
			apidoc.Param{Name: "updated_at.after", Description: "Updated after this ISO 8601 time."},
			apidoc.Param{Name: "updated_at.before", Description: "Updated before this ISO 8601 time."}).
		WithHeader(hExpand).
		ReturnsJSON(200, "A page of group summaries (full groups with Expand: list).", []groupEmbed{})
	for _, base := range []string{"/groups", "/group"} {
		g.op(http.MethodGet, base+"/{gid:[0-9]+}", "A group").WithHeader(hExpand).
			ReturnsJSON(200, "The group detail.", groupJSON{})
	}
	g.op(http.MethodPost, "/group", "Create a group (site administrators)").
		AcceptsJSON(groupCreateBody{}).ReturnsJSON(201, "The group detail.", groupJSON{})

	m := "/groups/{gid:[0-9]+}/permissions"
	one := m + "/user.{uid:[0-9]+}"
	g.op(http.MethodGet, m, "A group's members").ReturnsJSON(200, "The members.", []memberJSON{})
	g.op(http.MethodPost, m, "Add a member").AcceptsJSON(memberBody{}).
		ReturnsJSON(201, "The membership.", memberJSON{}).Fails(http.StatusConflict, "The user already belongs to the group.")
	g.op(http.MethodPatch, m, "Add, change and remove members in one request").AcceptsJSON([]actionBody{}).
		NoContent("Done.").Fails(http.StatusConflict, "A user to add already belongs to the group.")
	g.op(http.MethodGet, one, "A member's permission").ReturnsJSON(200, "The membership.", memberJSON{})
	g.op(http.MethodPut, one, "Change a member's permission").AcceptsJSON(memberBody{}).ReturnsJSON(200, "The membership.", memberJSON{})
	g.op(http.MethodDelete, one, "Remove a member").NoContent("Removed.")

	ra := "/groups/{gid:[0-9]+}/request-access"
	g.op(http.MethodGet, ra, "The caller's access request to a group").ReturnsJSON(200, "The access request.", accessRequestJSON{})
	g.op(http.MethodPost, ra, "Ask to join a group").ReturnsJSON(202, "The access request.", accessRequestJSON{}).
		Fails(http.StatusConflict, "The caller already belongs to the group.")
	g.op(http.MethodDelete, ra, "Withdraw the caller's access request").NoContent("Withdrawn.")
	ar := "/groups/{gid:[0-9]+}/access-requests"
	g.op(http.MethodGet, ar, "A group's access requests").
		WithQuery(apidoc.Param{Name: "security", Description: "mfa, remote_auth or verified, or the same with a leading -."}).
		ReturnsJSON(200, "The access requests, each with its user.", []accessRequestJSON{})
	g.op(http.MethodGet, ar+"/{rid:[0-9]+}", "An access request").ReturnsJSON(200, "The access request.", accessRequestJSON{})
	g.op(http.MethodDelete, ar+"/{rid:[0-9]+}", "Decline an access request").NoContent("Declined.")
	g.op(http.MethodPost, ar+"/{rid:[0-9]+}/approve", "Approve an access request").
		ReturnsJSON(201, "The new membership.", memberJSON{})
}

// siteOps documents the site settings and external service templates.
func siteOps(ops *[]*apidoc.Operation) {
	s := docs{ops: ops, tag: "Site", anon: true}
	s.op(http.MethodGet, "/site/settings", "The site settings").ReturnsJSON(200, "The settings.", siteSettingsJSON{})
	s.op(http.MethodPut, "/site/settings", "Change the site settings (site administrators)").
		AcceptsJSON(siteSettingsJSON{}).ReturnsJSON(200, "The settings.", siteSettingsJSON{})
	t := "/site/external-service-templates"
	s.op(http.MethodGet, t, "External service templates").Private().ReturnsJSON(200, "The templates.", []templateJSON{})
	s.op(http.MethodPost, t, "Add an external service template (site administrators)").
		AcceptsJSON(templateBody{}).ReturnsJSON(201, "The template.", templateJSON{})
	s.op(http.MethodGet, t+"/{tid:[0-9]+}", "An external service template").Private().ReturnsJSON(200, "The template.", templateJSON{})
	s.op(http.MethodPut, t+"/{tid:[0-9]+}", "Change an external service template").
		AcceptsJSON(templateBody{}).ReturnsJSON(200, "The template.", templateJSON{})
	s.op(http.MethodDelete, t+"/{tid:[0-9]+}", "Remove an external service template").NoContent("Removed.")
}

// feedbackOps documents comments.
func feedbackOps(ops *[]*apidoc.Operation) {
	f := docs{ops: ops, tag: "Feedback", read: auth.ScopeFeedbackRead, write: auth.ScopeFeedbackWrite, anon: true}
	f.op(http.MethodGet, "/comments", "Feedback the caller may see").Paging().WithQuery(qText, qSort).
		ReturnsJSON(200, "A page of feedback.", []feedbackJSON{})
	f.op(http.MethodPost, "/comments", "Leave feedback").AcceptsJSON(feedbackBody{}).ReturnsJSON(201, "The feedback.", feedbackJSON{})
	f.op(http.MethodGet, "/comments/{fid:[0-9]+}", "A feedback record").ReturnsJSON(200, "The feedback.", feedbackJSON{})
	f.op(http.MethodPut, "/comments/{fid:[0-9]+}", "Change feedback").AcceptsJSON(feedbackBody{}).ReturnsJSON(200, "The feedback.", feedbackJSON{})
	f.op(http.MethodDelete, "/comments/{fid:[0-9]+}", "Remove feedback").NoContent("Removed.")
}
