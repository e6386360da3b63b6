package rest_test

import (
	"net/http"
	"strings"

	"github.com/geopub/geopub/internal/server/servertest"
)

// matrixRules is the authorization matrix's table: for every route of the
// REST router, keyed "METHOD /pattern" (routeKey), who may call it, on
// which fixtures and with what. A new route needs a rule here (or in
// datasetRules) saying who may call it, or TestAuthzMatrixCoversEveryRoute
// fails.
func matrixRules() map[string]rule {
	rules := map[string]rule{}
	datasetRules(rules)
	accountRules(rules)
	accountLifecycleRules(rules)
	ssoRules(rules)
	groupRules(rules)
	sourceRules(rules)
	apiReferenceRules(rules)
	catalogRules(rules)
	catalogueRules(rules)
	exportRules(rules)
	cropLayerRules(rules)
	auditRules(rules)
	usageRules(rules)
	oauthClientRules(rules)
	optionsRules(rules)
	serviceRules(rules)
	queryRules(rules)
	pageRules(rules)
	oauthEndpointRules(rules)
	addCrossTargets(rules)
	return rules
}

// optionsRules give every REST GET route's OPTIONS twin a rule: a view's
// description ({name, expansions}) is the same for every object, so
// anyone may ask it, on the paths the GET rule calls.
func optionsRules(rules map[string]rule) {
	for k, r := range rules {
		pattern, ok := strings.CutPrefix(k, "GET ")
		if !ok {
			continue
		}
		var targets []target
		for _, tg := range r.targets {
			targets = append(targets, target{tg.path, anyone})
		}
		rules["OPTIONS "+pattern] = rule{kind: r.kind, targets: targets}
	}
}

// childVars are the placeholders that name a part of an object: a
// version, a service, a geotag, an attachment, an access request.
var childVars = []string{"pub", "draft", "ext", "geo", "att", "req", "req2"}

// addCrossTargets gives every target that names a part of its object a
// twin naming the same part of the object's twin (the public one's for
// the private one, and back): /layers/1/versions/{the other layer's
// draft}/. Nobody may call those: a route must check that the part belongs
// to the object in its path, not only that the caller may use that object.
func addCrossTargets(rules map[string]rule) {
	for k, r := range rules {
		if strings.HasPrefix(k, "OPTIONS ") {
			continue // a view's description, the same for every object
		}
		var cross []target
		for _, tg := range r.targets {
			path := tg.path
			for _, v := range childVars {
				path = strings.ReplaceAll(path, "{"+v+"}", "{other."+v+"}")
			}
			if path != tg.path {
				cross = append(cross, target{path, nobody})
			}
		}
		if len(cross) > 0 {
			r.targets = append(cross, r.targets...)
			rules[k] = r
		}
	}
}

// accountRules: the session, tokens, users, notifications, feedback and
// site settings.
func accountRules(rules map[string]rule) {
	login := func(f *fixtures, _ *object, _ role) any {
		return map[string]any{"email": f.signin.Email, "password": servertest.Password}
	}
	// Signing in and out need no credentials; without a session cookie
	// there is nothing to show (404) or end (401, 403 from the CSRF check).
	noSession := []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound}
	rules["POST /session"] = rule{targets: []target{{"/session/", anyone}}, body: login}
	rules["GET /session"] = rule{targets: []target{{"/session/", anyone}}, ok: noSession}
	rules["DELETE /session"] = rule{targets: []target{{"/session/", anyone}}, ok: noSession}

	rules["POST /tokens"] = rule{targets: []target{{"/tokens/", anyone}}, body: func(f *fixtures, _ *object, _ role) any {
		return map[string]any{"grant_type": "password", "username": f.signin.Email, "password": servertest.Password, "scope": "query"}
	}}
	rules["GET /tokens"] = rule{targets: []target{{"/tokens/", signedIn}}}
	rules["GET /tokens/{tid}"] = rule{kind: "tokens", targets: []target{{"/tokens/{id}/", canView}}}
	rules["PUT /tokens/{tid}"] = rule{kind: "tokens", targets: []target{{"/tokens/{id}/", canAdmin}}, body: bodyOf(map[string]any{"name": "Matrix secret token"})}
	rules["DELETE /tokens/{tid}"] = rule{kind: "tokens", targets: []target{{"/tokens/{id}/", canAdmin}}, last: lastSubresource}

	rules["GET /users"] = rule{targets: []target{{"/users/", siteOnly}}}
	rules["GET /users/me"] = rule{targets: []target{{"/users/me/", signedIn}}}
	rules["GET /users/{uid}"] = rule{kind: "users", targets: []target{{"/users/{id}/", userViews}}}
	rules["GET /users/{uid}/access"] = rule{kind: "users", targets: []target{{"/users/{id}/access/", userViews}}}

	rules["GET /follows"] = rule{targets: []target{{"/follows/", signedIn}}}
	rules["GET /webhooks"] = rule{targets: []target{{"/webhooks/", signedIn}}}
	rules["POST /webhooks"] = rule{targets: []target{{"/webhooks/", signedIn}},
		body: bodyOf(map[string]any{"endpoint": "http://127.0.0.1:9/matrix-new", "datasets": []string{"layer:999999"}})}
	rules["GET /webhooks/{wid}"] = rule{kind: "webhooks", targets: []target{{"/webhooks/{id}/", canAdmin}}}
	rules["PUT /webhooks/{wid}"] = rule{kind: "webhooks", targets: []target{{"/webhooks/{id}/", canAdmin}},
		body: bodyOf(map[string]any{"endpoint": "http://127.0.0.1:9/matrix", "datasets": []string{"layer:999999"}})}
	rules["DELETE /webhooks/{wid}"] = rule{kind: "webhooks", targets: []target{{"/webhooks/{id}/", canAdmin}}, last: lastSubresource}
	rules["POST /webhooks/{wid}/rotate-secret"] = rule{kind: "webhooks", targets: []target{{"/webhooks/{id}/rotate-secret/", canAdmin}},
		body: bodyOf(map[string]any{})}
	rules["GET /webhooks/{wid}/deliveries"] = rule{kind: "webhooks", targets: []target{{"/webhooks/{id}/deliveries/", canAdmin}}}
	rules["POST /webhooks/{wid}/deliveries/{did}/redeliver"] = rule{kind: "webhooks",
		targets: []target{{"/webhooks/{id}/deliveries/{delivery}/redeliver/", canAdmin}}, body: bodyOf(map[string]any{})}

	rules["GET /notifications"] = rule{targets: []target{{"/notifications/", signedIn}}}
	rules["POST /notifications/read"] = rule{targets: []target{{"/notifications/read/", signedIn}}, body: bodyOf(map[string]any{"up_to": 0})}

	rules["GET /comments"] = rule{targets: []target{{"/comments/", anyone}}}
	rules["POST /comments"] = rule{targets: []target{{"/comments/", signedIn}}, body: bodyOf(map[string]any{"description": "Matrix new comment"})}
	rules["GET /comments/{fid}"] = rule{kind: "feedback", targets: []target{{"/comments/{id}/", canView}}}
	// Anyone who sees a comment may add to its thread; its administrators
	// (who may edit its object) and its author may delete it.
	rules["PUT /comments/{fid}"] = rule{kind: "feedback", targets: []target{{"/comments/{id}/", userViews}}, body: bodyOf(map[string]any{"description": "Matrix reply"})}
	rules["DELETE /comments/{fid}"] = rule{kind: "feedback", targets: []target{{"/comments/{id}/", canEdit}}, last: lastSubresource}

	rules["GET /site/settings"] = rule{targets: []target{{"/site/settings/", anyone}}}
	rules["PUT /site/settings"] = rule{targets: []target{{"/site/settings/", siteOnly}}, body: bodyOf(map[string]any{"external_services": true})}
	tpl := "/site/external-service-templates/"
	rules["GET "+tpl[:len(tpl)-1]] = rule{targets: []target{{tpl, siteOnly}}}
	rules["POST "+tpl[:len(tpl)-1]] = rule{targets: []target{{tpl, siteOnly}}, body: bodyOf(matrixTemplate())}
	rules["GET "+tpl+"{tid}"] = rule{targets: []target{{tpl + "{tpl}/", siteOnly}}}
	rules["PUT "+tpl+"{tid}"] = rule{targets: []target{{tpl + "{tpl}/", siteOnly}}, body: bodyOf(matrixTemplate())}
	rules["DELETE "+tpl+"{tid}"] = rule{targets: []target{{tpl + "{tpl}/", siteOnly}}, last: lastDelete}
}

// groupRules: groups are listed and shown to signed-in users (spec: the
// groups and users endpoints accept a session or a token); their members
// and access requests to those who manage members (edit_users, which the
// matrix's editor holds, and admin).
func groupRules(rules map[string]rule) {
	one, p := "/groups/{gid}", "/groups/{id}/"
	rules["GET /groups"] = rule{targets: []target{{"/groups/", signedIn}}}
	rules["GET "+one] = rule{kind: "groups", targets: []target{{p, signedIn}}}
	rules["GET /group/{gid}"] = rule{kind: "groups", targets: []target{{"/group/{id}/", signedIn}}}
	rules["POST /group"] = rule{targets: []target{{"/group/", siteOnly}}, body: func(_ *fixtures, _ *object, r role) any {
		return map[string]any{"name": "Matrix new group by " + r.String(), "country": "NZ"}
	}}
	rules["GET "+one+"/permissions"] = rule{kind: "groups", targets: []target{{p + "permissions/", canEdit}}}
	rules["POST "+one+"/permissions"] = rule{kind: "groups", targets: []target{{p + "permissions/", canEdit}},
		ok: []int{http.StatusConflict}, // the first allowed call added the user
		body: func(f *fixtures, _ *object, _ role) any {
			return map[string]any{"user": f.signin.ID, "permission": "member"}
		}}
	rules["PATCH "+one+"/permissions"] = rule{kind: "groups", targets: []target{{p + "permissions/", canEdit}},
		body: func(f *fixtures, o *object, _ role) any {
			return []map[string]any{{"action": "update", "url": f.e.API + f.fill(nil, "/groups/{id}/permissions/user.{uid}/", o),
				"value": map[string]any{"user": f.spare.ID, "permission": "member"}}}
		}}
	member := p + "permissions/user.{uid}/"
	rules["GET "+one+"/permissions/user.{uid}"] = rule{kind: "groups", targets: []target{{member, canEdit}}}
	rules["PUT "+one+"/permissions/user.{uid}"] = rule{kind: "groups", targets: []target{{member, canEdit}},
		body: func(f *fixtures, _ *object, _ role) any {
			return map[string]any{"user": f.spare.ID, "permission": "member"}
		}}
	rules["DELETE "+one+"/permissions/user.{uid}"] = rule{kind: "groups", targets: []target{{member, canEdit}}, last: lastSubresource}
	// A signed-in user's own request: none yet (404), a member (409), or
	// a group that takes none (the private one, 403).
	selfService := []int{http.StatusForbidden, http.StatusNotFound, http.StatusConflict}
	for _, m := range []string{"GET", "POST", "DELETE"} {
		rules[m+" "+one+"/request-access"] = rule{kind: "groups", targets: []target{{p + "request-access/", signedIn}}, ok: selfService}
	}
	rules["GET "+one+"/access-requests"] = rule{kind: "groups", targets: []target{{p + "access-requests/", canEdit}}}
	rules["GET "+one+"/access-requests/{rid}"] = rule{kind: "groups", targets: []target{{p + "access-requests/{req}/", canEdit}}}
	rules["DELETE "+one+"/access-requests/{rid}"] = rule{kind: "groups", targets: []target{{p + "access-requests/{req}/", canEdit}}, last: lastSubresource}
	rules["POST "+one+"/access-requests/{rid}/approve"] = rule{kind: "groups", targets: []target{{p + "access-requests/{req2}/approve/", canEdit}},
		body: bodyOf(map[string]any{}), last: lastSubresource}
}

// sourceRules: sources, their scans and datasources, and publishes belong
// to their owner (and the owning group's data editors); site
// administrators manage all.
func sourceRules(rules map[string]rule) {
	one, p := "/sources/{sid}", "/sources/{id}/"
	rules["GET /sources"] = rule{targets: []target{{"/sources/", signedIn}}}
	rules["POST /sources"] = rule{targets: []target{{"/sources/", signedIn}}, body: func(_ *fixtures, _ *object, r role) any {
		return map[string]any{"title": "Matrix new source by " + r.String(), "type": "url", "url_remote": "http://127.0.0.1:9/matrix.zip"}
	}}
	rules["GET "+one] = rule{kind: "sources", targets: []target{{p, canAdmin}}}
	rules["PUT "+one] = rule{kind: "sources", targets: []target{{p, canAdmin}}, body: bodyOf(map[string]any{"title": "Matrix secret source"})}
	rules["DELETE "+one] = rule{kind: "sources", targets: []target{{p, canAdmin}}, last: lastDelete,
		ok: []int{http.StatusConflict}} // its datasources are in use
	// Sources take the dataset permission levels; the owner administers.
	addPermissionRules(rules, collection{name: "sources", shared: "id"})
	// Replacing keeps the fixture's grants: the owner's and the spare user's.
	replace := rules["PUT /sources/{id}/permissions"]
	replace.body = func(f *fixtures, _ *object, _ role) any {
		return []map[string]any{{"permission": "admin", "user": f.users[owner].ID}, {"permission": "view", "user": f.spare.ID}}
	}
	rules["PUT /sources/{id}/permissions"] = replace
	rules["GET "+one+"/scans"] = rule{kind: "sources", targets: []target{{p + "scans/", canAdmin}}}
	rules["POST "+one+"/scans"] = rule{kind: "sources", targets: []target{{p + "scans/", canAdmin}}, body: bodyOf(map[string]any{}),
		ok: []int{http.StatusConflict}} // the owner's call started a scan still under way
	rules["GET "+one+"/scans/{scid}"] = rule{kind: "sources", targets: []target{{p + "scans/{scan}/", canAdmin}}}
	rules["GET "+one+"/scans/{scid}/log"] = rule{kind: "sources", targets: []target{{p + "scans/{scan}/log/", canAdmin}}}
	rules["DELETE "+one+"/scans/{scid}"] = rule{kind: "sources", targets: []target{{p + "scans/{scan}/", canAdmin}}, last: lastSubresource,
		ok: []int{http.StatusConflict}} // the scan has finished
	rules["GET "+one+"/datasources"] = rule{kind: "sources", targets: []target{{p + "datasources/", canAdmin}}}
	rules["GET "+one+"/datasources/{did}"] = rule{kind: "sources", targets: []target{{p + "datasources/{ds}/", canAdmin}}}
	for _, f := range []string{"", "/simple", "/iso", "/fgdc", "/dc"} {
		r := rule{kind: "sources", targets: []target{{p + "datasources/{ds}/metadata" + f + "/", canAdmin}}}
		if f == "/fgdc" {
			r.ok = []int{http.StatusNotFound} // the fixture's metadata is ISO
		}
		rules["GET "+one+"/datasources/{did}/metadata"+f] = r
	}
	rules["GET /sources/scans"] = rule{targets: []target{{"/sources/scans/", signedIn}}}
	rules["GET /publish"] = rule{targets: []target{{"/publish/", signedIn}}}
	rules["GET /publish/{pid}"] = rule{kind: "sources", targets: []target{{"/publish/{publish}/", canAdmin}}}
	rules["DELETE /publish/{pid}"] = rule{kind: "sources", targets: []target{{"/publish/{publish}/", canAdmin}}, last: lastSubresource,
		ok: []int{http.StatusConflict}} // the publish has finished
}

// apiReferenceRules: the OpenAPI document and its rendered page are public
// reads (issue 12: "an API reference").
func apiReferenceRules(rules map[string]rule) {
	rules["GET /openapi.json"] = rule{targets: []target{{"/openapi.json", anyone}}}
	rules["GET /docs"] = rule{targets: []target{{"/docs/", anyone}}}
}
