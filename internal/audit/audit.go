// Package audit is the audit log: who changed what, when and from where.
// Every change of permissions, group membership, tokens, sessions,
// publishes, deletions, site settings, sources and service switches leaves
// exactly one entry, written by Record inside the transaction of the change
// (an aborted change leaves none). Entries are append-only: an Ent hook on
// AuditEntry and database triggers refuse updates and deletes, and no API
// changes them. Retention is the operator's: nothing deletes entries.
//
// # The seam: Record
//
// A capability that changes something worth auditing calls
//
//	audit.Record(ctx, c, audit.Entry{
//		Action: "token.create",
//		Target: audit.Target{Type: "token", ID: "12", Label: "QGIS"},
//		After:  map[string]any{"name": "QGIS", "scope": "layers:read"},
//		Groups: []int{7}, // the groups it concerns, for group admins
//	})
//
// with c the Ent client of the change's transaction (or the plain client
// where the change is one statement), at the lowest function every door
// goes through, so REST, GraphQL and later callers inherit the entry.
// The actor (user, and the session or token it used, or "system" outside a
// request) and the client address come from ctx: internal/auth puts them
// there (WithActor, WithClientAddr) when it resolves the request's
// principal. An Entry may name its Actor itself, as signing in does.
// Before and After hold the changed fields only; keys naming secrets
// (token keys, password hashes, credentials) are dropped by Record
// whatever the caller passes.
//
// Action names are dotted, the noun first: permission.grant,
// permission.change, permission.revoke, membership.add, membership.change,
// membership.remove, token.create, token.update, token.delete,
// session.start, session.end, layer.publish, layer.delete, version.delete,
// group.delete, source.create, source.update, source.delete,
// service.enable, service.disable, site.settings, user.lock, user.unlock,
// user.delete, user.password, oauth_client.create, oauth_client.update,
// oauth_client.delete, oauth_grant.consent, oauth_grant.revoke.
//
// Reading (List) is for site admins (everything) and group admins (the
// entries naming one of their groups); anyone else reads nothing.
package audit

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/geopub/geopub/ent"
)

// Actor kinds: how the actor acted.
const (
	ActorSession   = "session"
	ActorToken     = "token"
	ActorAnonymous = "anonymous"
	ActorSystem    = "system"
	// ActorOAuthClient is an OAuth client acting for the user named
	// (the token and revocation endpoints authenticate the client).
	ActorOAuthClient = "oauth_client"
	// ActorIdentityProvider is an OpenID provider's claims, applied when
	// the user named signs in through it (the groups claim's memberships).
	ActorIdentityProvider = "identity_provider"
)

// Actor is who made a change: a user and the session or token used, or
// the system (jobs, the command line) with no user.
type Actor struct {
	Kind      string
	UserID    *int
	Label     string
	SessionID *int
	TokenID   *int
}

// System is the actor of changes made outside any request.
var System = Actor{Kind: ActorSystem}

// Target is what a change was made to.
type Target struct {
	// Type is the kind of object: layer, table, set, document, item,
	// group, user, token, session, source, service, permission,
	// membership, version, site_setting.
	Type  string
	ID    string
	Label string
}

// Entry is one change to record.
type Entry struct {
	// Action is the dotted name of the change, such as token.create.
	Action string
	Target Target
	// Before and After hold the changed fields (nil when there is no
	// before, as for a creation, or no after, as for a deletion).
	Before, After map[string]any
	// Groups are the groups the change concerns; their admins read it.
	Groups []int
	// Actor, when set, names the actor instead of ctx.
	Actor *Actor
}

type actorKey struct{}
type originKey struct{}

// ActorSource names an actor when a change is recorded, not before: the
// principal of a request (package auth) is one, so that a request that
// changes nothing costs the audit log nothing.
type ActorSource interface {
	AuditActor() Actor
}

// WithActor returns ctx naming who acts in it.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// WithActorSource returns ctx whose actor src names when asked. It
// replaces an actor set further out, as WithActor does.
func WithActorSource(ctx context.Context, src ActorSource) context.Context {
	return context.WithValue(ctx, actorKey{}, src)
}

// ActorFrom returns the actor of ctx: System when none was set.
func ActorFrom(ctx context.Context) Actor {
	switch a := ctx.Value(actorKey{}).(type) {
	case Actor:
		return a
	case ActorSource:
		return a.AuditActor()
	}
	return System
}

// Origin is where the request behind a change came from, as the log
// records it.
type Origin interface {
	ClientAddr() string
}

// WithOrigin returns ctx carrying the origin of its request; the
// middleware that authenticates requests sets it on each.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

// OriginFrom returns the origin set in ctx, nil outside a request.
func OriginFrom(ctx context.Context) Origin {
	o, _ := ctx.Value(originKey{}).(Origin)
	return o
}

func clientAddrFrom(ctx context.Context) string {
	if o := OriginFrom(ctx); o != nil {
		return o.ClientAddr()
	}
	return ""
}

// Record writes e through c, which should be the Ent client of the
// change's transaction so that the entry commits or rolls back with it.
func Record(ctx context.Context, c *ent.Client, e Entry) error {
	if e.Action == "" || e.Target.Type == "" {
		return fmt.Errorf("audit: an entry needs an action and a target type")
	}
	a := ActorFrom(ctx)
	if e.Actor != nil {
		a = *e.Actor
	}
	create := c.AuditEntry.Create().
		SetActorKind(a.Kind).
		SetNillableActorUserID(a.UserID).
		SetActorLabel(clip(a.Label, 500)).
		SetNillableActorSessionID(a.SessionID).
		SetNillableActorTokenID(a.TokenID).
		SetAction(e.Action).
		SetTargetType(e.Target.Type).
		SetTargetID(clip(e.Target.ID, 100)).
		SetTargetLabel(clip(e.Target.Label, 500)).
		SetClientAddr(clip(clientAddrFrom(ctx), 100)).
		SetGroupIds(joinGroups(e.Groups))
	if b := redact(e.Before); b != nil {
		create.SetBefore(b)
	}
	if af := redact(e.After); af != nil {
		create.SetAfter(af)
	}
	if err := create.Exec(ctx); err != nil {
		return fmt.Errorf("recording %s in the audit log: %w", e.Action, err)
	}
	return nil
}

// joinGroups renders group ids as ,3,7, (sorted, no repeats), or "".
func joinGroups(ids []int) string {
	seen := map[int]bool{}
	var out []int
	for _, id := range ids {
		if id > 0 && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return ""
	}
	sort.Ints(out)
	var b strings.Builder
	b.WriteByte(',')
	for _, id := range out {
		b.WriteString(strconv.Itoa(id))
		b.WriteByte(',')
	}
	return b.String()
}

// splitGroups reads what joinGroups wrote.
func splitGroups(s string) []int {
	out := []int{}
	for _, f := range strings.Split(strings.Trim(s, ","), ",") {
		if id, err := strconv.Atoi(f); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
