package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
)

func (a *API) memberRoutes(r chi.Router) {
	r.Get("/groups/{gid:[0-9]+}/permissions", a.handle(a.listMembers))
	r.Post("/groups/{gid:[0-9]+}/permissions", a.handle(a.addMember))
	r.Patch("/groups/{gid:[0-9]+}/permissions", a.handle(a.modifyMembers))
	r.Get("/groups/{gid:[0-9]+}/permissions/user.{uid:[0-9]+}", a.handle(a.getMember))
	r.Put("/groups/{gid:[0-9]+}/permissions/user.{uid:[0-9]+}", a.handle(a.putMember))
	r.Delete("/groups/{gid:[0-9]+}/permissions/user.{uid:[0-9]+}", a.handle(a.deleteMember))
}

func (a *API) listMembers(w http.ResponseWriter, r *http.Request) error {
	gid, err := pathID(r, "gid")
	if err != nil {
		return err
	}
	ms, err := a.res.Query().GroupMembers(r.Context(), gid, queryOf(r).all("security"))
	if err != nil {
		return err
	}
	if len(ms) == 0 {
		return writeList(a, w, r, []memberJSON{})
	}
	g, err := a.res.GroupPermissionEntry().Group(r.Context(), ms[0])
	if err != nil {
		return err
	}
	return writeList(a, w, r, a.links(r).members(g, ms))
}

// memberBody names a user and a permission: {"user": 4, "permission":
// "member"}. user may be an id, a numeric string or the user's URL.
type memberBody struct {
	User       json.RawMessage `json:"user"`
	Permission string          `json:"permission"`
}

func (b memberBody) input(field string) (graph.GroupMemberInput, error) {
	fe := apperr.FieldErrors{}
	uid, problem := idRef(b.User, userURL)
	if problem != "" {
		fe.Add(field+"user", problem)
	}
	perm := groupmembership.Permission(b.Permission)
	if b.Permission == "" {
		fe.Add(field+"permission", "This field is required.")
	} else if groupmembership.PermissionValidator(perm) != nil {
		fe.Add(field+"permission", fmt.Sprintf("%q is not a valid choice: member, edit_data, edit_users or admin.", b.Permission))
	}
	return graph.GroupMemberInput{UserID: uid, Permission: perm}, fe.Err()
}

var memberURL = regexp.MustCompile(`/permissions/user\.([0-9]+)/?$`)

func (a *API) addMember(w http.ResponseWriter, r *http.Request) error {
	gid, err := pathID(r, "gid")
	if err != nil {
		return err
	}
	var body memberBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in, err := body.input("")
	if err != nil {
		return err
	}
	m, err := a.res.Mutation().AddGroupMember(r.Context(), gid, in)
	if err != nil {
		return err
	}
	l := a.links(r)
	w.Header().Set("Location", l.memberURL(gid, m.UserID))
	writeJSON(w, http.StatusCreated, l.member(m.Edges.Group, m))
	return nil
}

// actionBody is one entry of PATCH .../permissions/.
type actionBody struct {
	Action string      `json:"action"`
	URL    string      `json:"url"`
	Value  *memberBody `json:"value"`
}

func (a *API) modifyMembers(w http.ResponseWriter, r *http.Request) error {
	gid, err := pathID(r, "gid")
	if err != nil {
		return err
	}
	var body []actionBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	actions := make([]*graph.GroupPermissionAction, 0, len(body))
	for i, b := range body {
		prefix := fmt.Sprintf("%d.", i)
		act := &graph.GroupPermissionAction{Action: graph.GroupPermissionActionKind(b.Action)}
		if !act.Action.IsValid() {
			return apperr.Field(prefix+"action", "Select a valid choice: create, update or delete.")
		}
		if b.URL != "" {
			m := memberURL.FindStringSubmatch(b.URL)
			if m == nil {
				return apperr.Field(prefix+"url", "Give the URL of an existing permission.")
			}
			uid, _ := strconv.Atoi(m[1])
			act.UserID = &uid
		} else if act.Action != graph.GroupPermissionActionKindCreate {
			return apperr.Field(prefix+"url", "This field is required for "+b.Action+".")
		}
		if b.Value != nil {
			in, err := b.Value.input(prefix + "value.")
			if err != nil {
				return err
			}
			act.Value = &in
		}
		actions = append(actions, act)
	}
	if _, err := a.res.Mutation().ModifyGroupPermissions(r.Context(), gid, actions); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (a *API) memberIDs(r *http.Request) (gid, uid int, err error) {
	if gid, err = pathID(r, "gid"); err != nil {
		return 0, 0, err
	}
	uid, err = pathID(r, "uid")
	return gid, uid, err
}

func (a *API) getMember(w http.ResponseWriter, r *http.Request) error {
	gid, uid, err := a.memberIDs(r)
	if err != nil {
		return err
	}
	m, err := a.res.Query().GroupMember(r.Context(), gid, uid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).member(m.Edges.Group, m))
	return nil
}

func (a *API) putMember(w http.ResponseWriter, r *http.Request) error {
	gid, uid, err := a.memberIDs(r)
	if err != nil {
		return err
	}
	var body memberBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	if len(body.User) == 0 {
		body.User = json.RawMessage(strconv.Itoa(uid))
	}
	in, err := body.input("")
	if err != nil {
		return err
	}
	if in.UserID != uid {
		return apperr.Field("user", "The user must be the one named in the URL.")
	}
	m, err := a.res.Mutation().SetGroupMember(r.Context(), gid, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).member(m.Edges.Group, m))
	return nil
}

func (a *API) deleteMember(w http.ResponseWriter, r *http.Request) error {
	gid, uid, err := a.memberIDs(r)
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().RemoveGroupMember(r.Context(), gid, uid); err != nil {
		return err
	}
	noContent(w)
	return nil
}
