package htmlview

import (
	"net/http"
	"strconv"
	"strings"
)

func join(ss []string) string { return strings.Join(ss, ", ") }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// group reads a group as GET /groups/{id}/ does (signed-in users).
func (v *Views) group(r *http.Request) (*Page, error) {
	n, err := id(r)
	if err != nil {
		return nil, err
	}
	g, err := v.res.Query().Group(r.Context(), n)
	if err != nil {
		return nil, err
	}
	p := &Page{Kind: "Group", Title: g.Name, APIPath: restPath("groups/%d/", g.ID), GraphQL: gql("group", strconv.Itoa(g.ID))}
	p.Facts = facts(Fact{"Country", g.Country}, Fact{"Data owner", string(g.DataOwner)},
		Fact{"Access requests", yesNo(g.AccessRequestsEnabled)}, Fact{"In public data feeds", yesNo(g.CatalogFeedsEnabled)})
	return p, nil
}

// source reads a source as GET /sources/{id}/ does. Its remote URL is
// shown as the REST view shows it (never with credentials).
func (v *Views) source(r *http.Request) (*Page, error) {
	n, err := id(r)
	if err != nil {
		return nil, err
	}
	s, err := v.res.Query().Source(r.Context(), n)
	if err != nil {
		return nil, err
	}
	p := &Page{Kind: "Source", Title: s.Title, Description: s.Description,
		APIPath: restPath("sources/%d/", s.ID), GraphQL: gql("source", strconv.Itoa(s.ID))}
	p.Facts = facts(Fact{"Type", string(s.Type)}, Fact{"Remote", s.URLRemote}, Fact{"Last scanned", when(s.LastScannedAt)})
	return p, nil
}

// comment reads a comment or ticket as GET /comments/{id}/ does.
func (v *Views) comment(r *http.Request) (*Page, error) {
	n, err := id(r)
	if err != nil {
		return nil, err
	}
	f, err := v.res.Query().Feedback(r.Context(), n)
	if err != nil {
		return nil, err
	}
	kind := "Comment"
	if f.Status != "" {
		kind = "Ticket"
	}
	t := f.Title
	if t == "" {
		t = kind + " " + strconv.Itoa(f.ID)
	}
	p := &Page{Kind: kind, Title: t, Description: f.Description,
		APIPath: restPath("comments/%d/", f.ID), GraphQL: gql("feedback", strconv.Itoa(f.ID))}
	p.Facts = facts(Fact{"Status", f.Status}, Fact{"Tags", f.Tags}, Fact{"Created", when(&f.CreatedAt)})
	return p, nil
}
