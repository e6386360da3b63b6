package rest

import (
	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
)

// userEmbed is the related-user summary embedded in other resources.
type userEmbed struct {
	ID        int     `json:"id"`
	URL       string  `json:"url"`
	FirstName string  `json:"first_name"`
	LastName  string  `json:"last_name"`
	Country   *string `json:"country"`
}

// userJSON is the User resource.
type userJSON struct {
	userEmbed
	Email       string `json:"email"`
	IsLocked    bool   `json:"is_locked"`
	IsSiteAdmin bool   `json:"is_site_admin"`
	SeatType    string `json:"seat_type"`
}

// meJSON is the caller's own user, with what desktop clients read at login.
type meJSON struct {
	userJSON
	AvatarURL    *string         `json:"avatar_url"`
	Capabilities map[string]bool `json:"capabilities"`
	Contexts     []contextJSON   `json:"contexts"`
}

// accessJSON is a user access entry.
type accessJSON struct {
	Permission string     `json:"permission"`
	On         groupEmbed `json:"on"`
	Type       string     `json:"type"`
	URL        string     `json:"url"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (l links) userEmbed(u *ent.User) userEmbed {
	return userEmbed{ID: u.ID, URL: l.api("users/%d/", u.ID), FirstName: u.FirstName, LastName: u.LastName, Country: nullable(u.Country)}
}

func (l links) user(u *ent.User) userJSON {
	return userJSON{
		userEmbed:   l.userEmbed(u),
		Email:       u.Email,
		IsLocked:    u.IsLocked,
		IsSiteAdmin: u.IsSiteAdmin,
		SeatType:    string(u.SeatType),
	}
}

func (l links) access(userID int, a *graph.UserAccess) accessJSON {
	return accessJSON{
		Permission: string(a.Permission),
		On:         l.groupEmbed(a.On),
		Type:       a.Type,
		URL:        l.api("groups/%d/permissions/user.%d/", a.On.ID, userID),
	}
}
