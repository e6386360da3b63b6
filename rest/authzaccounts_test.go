package rest_test

import (
	"net/http"

	"github.com/geopub/geopub/internal/server/servertest"
)

// accountLifecycleRules: site administrators lock, unlock and delete
// users (the matrix's spare user, a member of the groups; deleting them
// runs after every other rule, since other rules name them); signed-in
// users change their password and list and end their own sessions.
func accountLifecycleRules(rules map[string]rule) {
	rules["POST /users/{uid}/lock"] = rule{kind: "users", targets: []target{{"/users/{id}/lock/", siteOnly}}, body: bodyOf(map[string]any{})}
	rules["POST /users/{uid}/unlock"] = rule{kind: "users", targets: []target{{"/users/{id}/unlock/", siteOnly}}, body: bodyOf(map[string]any{})}
	rules["DELETE /users/{uid}"] = rule{kind: "users", targets: []target{{"/users/{id}/", siteOnly}}, last: lastDelete + 1}
	// Each role's first call changes its password; a second one (the
	// same body) finds the current password changed: 400.
	rules["PUT /users/me/password"] = rule{targets: []target{{"/users/me/password/", signedIn}},
		ok: []int{http.StatusBadRequest},
		body: func(_ *fixtures, _ *object, r role) any {
			return map[string]any{"current_password": servertest.Password, "new_password": "matrix-new-password-" + r.String()}
		}}
	rules["GET /users/me/sessions"] = rule{targets: []target{{"/users/me/sessions/", signedIn}}}
	// The matrix's roles call with keys and hold no session: ending one
	// is not found to every signed-in caller.
	rules["DELETE /users/me/sessions/{sid}"] = rule{targets: []target{{"/users/me/sessions/999999999/", signedIn}},
		ok: []int{http.StatusNotFound}}
	rules["POST /users/me/sessions/end-others"] = rule{targets: []target{{"/users/me/sessions/end-others/", signedIn}},
		body: bodyOf(map[string]any{})}
}
