package audit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/auditentry"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/internal/apperr"
)

// Page sizes of List.
const (
	DefaultPageSize = 100
	MaxPageSize     = 10000
)

// Logged is an entry as it was recorded.
type Logged struct {
	ID         int
	CreatedAt  time.Time
	Actor      Actor
	Action     string
	Target     Target
	Before     map[string]any
	After      map[string]any
	ClientAddr string
	GroupIDs   []int
}

// Filter narrows a List. Zero fields do not filter. Action is an exact
// action name, or a prefix when it ends with "." or ".*" (token. and
// token.* both match token.create). TargetID needs TargetType. From is
// inclusive, To exclusive.
type Filter struct {
	ActorUserID *int
	TargetType  string
	TargetID    string
	Action      string
	From, To    *time.Time
}

// Reader is who reads: a site admin reads every entry; any other user
// the entries concerning a group they administer.
type Reader struct {
	UserID    int
	SiteAdmin bool
}

// Page is one page of entries, newest first.
type Page struct {
	Entries []*Logged
	// Next is the cursor of the following (older) page, "" when this
	// is the last.
	Next string
	// Total counts the entries the filter matches for the reader,
	// across all pages.
	Total int
}

// List returns the entries r may read that match f, newest first:
// pageSize of them (DefaultPageSize when 0) after the cursor.
func List(ctx context.Context, c *ent.Client, r Reader, f Filter, cursor string, pageSize int) (*Page, error) {
	if pageSize == 0 {
		pageSize = DefaultPageSize
	}
	if pageSize < 1 || pageSize > MaxPageSize {
		return nil, apperr.Field("page_size", fmt.Sprintf("Give a page size from 1 to %d.", MaxPageSize))
	}
	where, err := f.predicates()
	if err != nil {
		return nil, err
	}
	scope, ok, err := r.scope(ctx, c)
	if err != nil {
		return nil, err
	}
	if !ok {
		return &Page{Entries: []*Logged{}}, nil
	}
	if scope != nil {
		where = append(where, scope)
	}
	total, err := c.AuditEntry.Query().Where(where...).Count(ctx)
	if err != nil {
		return nil, fmt.Errorf("counting audit entries: %w", err)
	}
	if cursor != "" {
		id, err := strconv.Atoi(cursor)
		if err != nil || id <= 0 {
			return nil, apperr.Field("after", fmt.Sprintf("%q is not a cursor of this list: use the one its Link header or endCursor gives.", cursor))
		}
		where = append(where, auditentry.IDLT(id))
	}
	rows, err := c.AuditEntry.Query().Where(where...).
		Order(ent.Desc(auditentry.FieldID)).Limit(pageSize + 1).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading audit entries: %w", err)
	}
	p := &Page{Total: total, Entries: make([]*Logged, 0, len(rows))}
	if len(rows) > pageSize {
		rows = rows[:pageSize]
		p.Next = strconv.Itoa(rows[len(rows)-1].ID)
	}
	for _, e := range rows {
		p.Entries = append(p.Entries, logged(e))
	}
	return p, nil
}

// scope returns the predicate limiting r's reads (nil: none, for site
// admins), or false when r reads nothing.
func (r Reader) scope(ctx context.Context, c *ent.Client) (predicate.AuditEntry, bool, error) {
	if r.SiteAdmin {
		return nil, true, nil
	}
	if r.UserID == 0 {
		return nil, false, nil
	}
	groups, err := c.GroupMembership.Query().
		Where(groupmembership.UserID(r.UserID), groupmembership.PermissionEQ(groupmembership.PermissionAdmin)).
		Select(groupmembership.FieldGroupID).Ints(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("reading the groups a user administers: %w", err)
	}
	if len(groups) == 0 {
		return nil, false, nil
	}
	ors := make([]predicate.AuditEntry, len(groups))
	for i, g := range groups {
		ors[i] = auditentry.GroupIdsContains("," + strconv.Itoa(g) + ",")
	}
	return auditentry.Or(ors...), true, nil
}

// predicates checks f and turns it into query predicates. Spaces around
// the text fields do not count, whichever door they came through.
func (f Filter) predicates() ([]predicate.AuditEntry, error) {
	var out []predicate.AuditEntry
	f.TargetType, f.TargetID, f.Action = strings.TrimSpace(f.TargetType), strings.TrimSpace(f.TargetID), strings.TrimSpace(f.Action)
	if f.ActorUserID != nil {
		out = append(out, auditentry.ActorUserID(*f.ActorUserID))
	}
	if f.TargetID != "" && f.TargetType == "" {
		return nil, apperr.Field("target_id", "Give target_type with target_id.")
	}
	if f.TargetType != "" {
		out = append(out, auditentry.TargetType(f.TargetType))
	}
	if f.TargetID != "" {
		out = append(out, auditentry.TargetID(f.TargetID))
	}
	if a := f.Action; a != "" {
		switch {
		case strings.HasSuffix(a, ".*"):
			out = append(out, auditentry.ActionHasPrefix(strings.TrimSuffix(a, "*")))
		case strings.HasSuffix(a, "."):
			out = append(out, auditentry.ActionHasPrefix(a))
		default:
			out = append(out, auditentry.Action(a))
		}
	}
	if f.From != nil && f.To != nil && !f.From.Before(*f.To) {
		return nil, apperr.Field("from", "from must be before to.")
	}
	if f.From != nil {
		out = append(out, auditentry.CreatedAtGTE(f.From.UTC()))
	}
	if f.To != nil {
		out = append(out, auditentry.CreatedAtLT(f.To.UTC()))
	}
	return out, nil
}

func logged(e *ent.AuditEntry) *Logged {
	return &Logged{
		ID:        e.ID,
		CreatedAt: e.CreatedAt.UTC(),
		Actor: Actor{Kind: e.ActorKind, UserID: e.ActorUserID, Label: e.ActorLabel,
			SessionID: e.ActorSessionID, TokenID: e.ActorTokenID},
		Action:     e.Action,
		Target:     Target{Type: e.TargetType, ID: e.TargetID, Label: e.TargetLabel},
		Before:     e.Before,
		After:      e.After,
		ClientAddr: e.ClientAddr,
		GroupIDs:   splitGroups(e.GroupIds),
	}
}

// CursorOf is the cursor that continues a list after e.
func CursorOf(e *Logged) string { return strconv.Itoa(e.ID) }
