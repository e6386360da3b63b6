package graph

import (
	"context"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/audit"
	"github.com/geopub/geopub/internal/auth"
)

// MaxAuditPage is the most entries one auditEntries page holds.
const MaxAuditPage = 1000

// AuditScope is the token scope reading the audit log needs.
const AuditScope = auth.ScopeUsersRead

// AuditPage reads one page of the audit log as the caller may: site
// admins every entry, group admins the entries concerning their groups,
// other signed-in users none (an empty page). Anonymous callers get 401,
// tokens without AuditScope 403. REST and GraphQL both read through it.
func (r *Resolver) AuditPage(ctx context.Context, f audit.Filter, cursor string, pageSize int) (*audit.Page, error) {
	u, err := access.RequireUser(ctx, AuditScope)
	if err != nil {
		return nil, err
	}
	return audit.List(ctx, r.Client, audit.Reader{UserID: u.ID, SiteAdmin: u.IsSiteAdmin}, f, cursor, pageSize)
}

// auditFilter is the GraphQL filter as the audit package takes it.
func auditFilter(in *AuditEntryFilter) audit.Filter {
	var f audit.Filter
	if in == nil {
		return f
	}
	f.ActorUserID, f.From, f.To = in.ActorUserID, in.From, in.To
	if in.TargetType != nil {
		f.TargetType = *in.TargetType
	}
	if in.TargetID != nil {
		f.TargetID = *in.TargetID
	}
	if in.Action != nil {
		f.Action = *in.Action
	}
	return f
}

// auditConnection is a page as the GraphQL connection gives it.
func auditConnection(p *audit.Page) *AuditEntryConnection {
	c := &AuditEntryConnection{Edges: make([]*AuditEntryEdge, len(p.Entries)), TotalCount: p.Total, HasNextPage: p.Next != ""}
	for i, e := range p.Entries {
		c.Edges[i] = &AuditEntryEdge{Node: e, Cursor: audit.CursorOf(e)}
	}
	if p.Next != "" {
		next := p.Next
		c.EndCursor = &next
	}
	return c
}
