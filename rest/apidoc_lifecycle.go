package rest

import (
	"net/http"

	"github.com/geopub/geopub/internal/apidoc"
	"github.com/geopub/geopub/internal/auth"
)

// accountLifecycleOps documents locking, unlocking and deleting users,
// password changes and the caller's sessions (internal/accounts).
func accountLifecycleOps(ops *[]*apidoc.Operation) {
	u := docs{ops: ops, tag: "Users", read: auth.ScopeUsersRead, write: auth.ScopeUsersWrite}
	u.op(http.MethodPost, "/users/{uid:[0-9]+}/lock", "Lock a user (site administrators): every door refuses their tokens and sessions until unlocked").
		ReturnsJSON(200, "The user.", userJSON{}).Fails(http.StatusBadRequest, "Locking yourself.")
	u.op(http.MethodPost, "/users/{uid:[0-9]+}/unlock", "Unlock a user (site administrators)").
		ReturnsJSON(200, "The user.", userJSON{})
	u.op(http.MethodDelete, "/users/{uid:[0-9]+}", "Delete a user (site administrators), handing their datasets and sources to a receiver").
		WithQuery(apidoc.Param{Name: "receiver", Description: "user.{id} or group.{id}: who takes the user's datasets and sources; required when they own any."}).
		ReturnsJSON(200, "The deletion: the receiver and how many of each kind it took.", deletedJSON{}).
		Fails(http.StatusBadRequest, "No receiver when one is needed, an unknown receiver, or deleting yourself.").
		Fails(http.StatusConflict, "The last site administrator.")
	u.op(http.MethodPut, "/users/me/password", "Change your password; ends your other sessions").
		AcceptsJSON(passwordBody{}).
		ReturnsJSON(200, "How many other sessions ended.", apidoc.Schema{"type": "object", "properties": map[string]any{"ended_sessions": apidoc.Integer}}).
		Fails(http.StatusBadRequest, "A wrong current password, or a new one the password rules refuse.")
	u.op(http.MethodGet, "/users/me/sessions", "Your live sessions, newest first").
		ReturnsJSON(200, "The sessions.", []sessionInfoJSON{})
	u.op(http.MethodDelete, "/users/me/sessions/{sid:[0-9]+}", "End one of your sessions").NoContent("Ended.")
	u.op(http.MethodPost, "/users/me/sessions/end-others", "End every session of yours but this one").
		ReturnsJSON(200, "How many sessions ended.", apidoc.Schema{"type": "object", "properties": map[string]any{"ended_sessions": apidoc.Integer}})
}
