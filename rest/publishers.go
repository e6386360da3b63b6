package rest

import (
	"net/http"
	"strings"

	"github.com/geopub/geopub/ent"
)

// publisherJSON is a publisher (api-shapes §10.3): a site group or a
// user who publishes datasets. DatasetCount is set in the publisher list
// (the published datasets the caller may see).
type publisherJSON struct {
	ID           string         `json:"id"`
	URL          string         `json:"url"`
	Type         string         `json:"type"`
	Name         string         `json:"name"`
	DatasetCount *int           `json:"dataset_count,omitempty"`
	Site         publisherSite  `json:"site"`
	Theme        publisherTheme `json:"theme"`
}

type publisherSite struct {
	Name string `json:"name"`
}

// publisherTheme: groups and users have no logo or colours yet.
type publisherTheme struct {
	BackgroundColor string  `json:"background_color"`
	Logo            *string `json:"logo"`
}

// siteName is the name a publisher's site goes by: the host of the
// service's origin.
func (l links) siteName() string {
	return strings.TrimPrefix(strings.TrimPrefix(l.origin, "https://"), "http://")
}

func (l links) groupPublisher(g *ent.Group) publisherJSON {
	id := publisherID(0, &g.ID)
	return publisherJSON{ID: id, URL: l.api("publishers/%s/", id), Type: "site", Name: g.Name,
		Site: publisherSite{Name: l.siteName()}}
}

func (l links) userPublisher(u *ent.User) publisherJSON {
	id := publisherID(u.ID, nil)
	name := strings.TrimSpace(u.FirstName + " " + u.LastName)
	return publisherJSON{ID: id, URL: l.api("publishers/%s/", id), Type: "user", Name: name,
		Site: publisherSite{Name: l.siteName()}}
}

// publisherOf returns the publisher of a dataset: its owning group, else
// the user who made it (through the request's loaders).
func (a *API) publisherOf(r *http.Request, userID int, groupID *int) (any, error) {
	l := a.links(r)
	if groupID != nil {
		g, err := a.res.DatasetGroup(r.Context(), *groupID)
		if err != nil && !ent.IsNotFound(err) {
			return nil, err
		}
		if g != nil {
			return l.groupPublisher(g), nil
		}
	}
	u, err := a.res.LookupUser(r.Context(), userID)
	if err != nil {
		if ent.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return l.userPublisher(u), nil
}
