package auth

import (
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/audit"
)

// principalActor is a principal as the audit log names an actor.
type principalActor Principal

// AuditActor names the principal's user and the token or session used.
func (pa *principalActor) AuditActor() audit.Actor {
	p := (*Principal)(pa)
	a := audit.Actor{Kind: audit.ActorAnonymous}
	if p.User == nil {
		return a
	}
	id := p.User.ID
	a.UserID, a.Label = &id, p.User.Email
	switch {
	case p.Method == TokenAuth && p.Token != nil:
		tid := p.Token.ID
		a.Kind, a.TokenID = audit.ActorToken, &tid
	case p.Method == SessionAuth && p.Session != nil:
		sid := p.Session.ID
		a.Kind, a.SessionID = audit.ActorSession, &sid
	default:
		a.Kind = audit.ActorSystem
	}
	return a
}

// SessionActor is the actor of user u acting through sess: signing in
// names the new session before any principal carries it, and pages that
// read the session themselves (OAuth consent) name it so.
func SessionActor(u *ent.User, sess *ent.Session) *audit.Actor {
	uid, sid := u.ID, sess.ID
	return &audit.Actor{Kind: audit.ActorSession, UserID: &uid, Label: u.Email, SessionID: &sid}
}

// tokenTarget names tok in the audit log.
func tokenTarget(tok *ent.Token) audit.Target {
	return audit.Target{Type: "token", ID: strconv.Itoa(tok.ID), Label: tok.Name}
}

// tokenFields are the audited fields of a token: never its key or hash.
func tokenFields(tok *ent.Token) map[string]any {
	m := map[string]any{"name": tok.Name, "scope": tok.Scope, "user_id": tok.UserID,
		"key_hint": tok.KeyHint, "referrers": tok.Referrers, "expires_at": nil}
	if tok.ExpiresAt != nil {
		m["expires_at"] = tok.ExpiresAt.UTC()
	}
	return m
}
