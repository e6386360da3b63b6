package rest

import (
	"fmt"
	"time"

	"github.com/geopub/geopub/ent"
)

// groupEmbed is the group summary: list items and embeds.
type groupEmbed struct {
	ID      int     `json:"id"`
	URL     string  `json:"url"`
	Name    string  `json:"name"`
	Country *string `json:"country"`
}

// groupJSON is the group detail. Permissions is the URL of the members
// list, or the list itself when expanded.
type groupJSON struct {
	groupEmbed
	URLHTML               string `json:"url_html"`
	URLSlug               string `json:"url_slug"`
	Permissions           any    `json:"permissions"`
	DataOwner             string `json:"data_owner"`
	AccessRequestsEnabled bool   `json:"access_requests_enabled"`
	CatalogFeedsEnabled   bool   `json:"catalog_feeds_enabled"`
	Type                  string `json:"type"`
}

// memberJSON is a group-user permission.
type memberJSON struct {
	ID         string     `json:"id"`
	URL        string     `json:"url"`
	Permission string     `json:"permission"`
	User       userEmbed  `json:"user"`
	Group      groupEmbed `json:"group"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
}

// accessRequestJSON is an access request.
type accessRequestJSON struct {
	ID        int        `json:"id"`
	URL       string     `json:"url"`
	Status    string     `json:"status"`
	Group     groupEmbed `json:"group"`
	User      userEmbed  `json:"user"`
	CreatedAt time.Time  `json:"created_at"`
}

func (l links) groupEmbed(g *ent.Group) groupEmbed {
	return groupEmbed{ID: g.ID, URL: l.api("groups/%d/", g.ID), Name: g.Name, Country: nullable(g.Country)}
}

// group renders the detail; members is nil unless the permissions
// expansion applies.
func (l links) group(g *ent.Group, members []*ent.GroupMembership) groupJSON {
	var perms any = l.api("groups/%d/permissions/", g.ID)
	if members != nil {
		perms = l.members(g, members)
	}
	return groupJSON{
		groupEmbed:            l.groupEmbed(g),
		URLHTML:               l.html("groups/%d-%s/", g.ID, g.URLSlug),
		URLSlug:               g.URLSlug,
		Permissions:           perms,
		DataOwner:             string(g.DataOwner),
		AccessRequestsEnabled: g.AccessRequestsEnabled,
		CatalogFeedsEnabled:   g.CatalogFeedsEnabled,
		Type:                  string(g.Type),
	}
}

func (l links) memberURL(groupID, userID int) string {
	return l.api("groups/%d/permissions/user.%d/", groupID, userID)
}

func (l links) member(g *ent.Group, m *ent.GroupMembership) memberJSON {
	return memberJSON{
		ID:         fmt.Sprintf("user.%d", m.UserID),
		URL:        l.memberURL(g.ID, m.UserID),
		Permission: string(m.Permission),
		User:       l.userEmbed(m.Edges.User),
		Group:      l.groupEmbed(g),
		CreatedAt:  m.CreatedAt,
		UpdatedAt:  m.UpdatedAt,
	}
}

func (l links) members(g *ent.Group, ms []*ent.GroupMembership) []memberJSON {
	out := make([]memberJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, l.member(g, m))
	}
	return out
}

func (l links) accessRequest(ar *ent.AccessRequest) accessRequestJSON {
	return accessRequestJSON{
		ID:        ar.ID,
		URL:       l.api("groups/%d/access-requests/%d/", ar.GroupID, ar.ID),
		Status:    string(ar.Status),
		Group:     l.groupEmbed(ar.Edges.Group),
		User:      l.userEmbed(ar.Edges.User),
		CreatedAt: ar.CreatedAt,
	}
}
