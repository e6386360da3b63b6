package rest

import (
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/geopub/geopub/ent"
)

// setVersionJSON is a set version record: {id, url, created_at} plus its
// state.
type setVersionJSON struct {
	ID          int        `json:"id"`
	URL         string     `json:"url"`
	CreatedAt   time.Time  `json:"created_at"`
	CreatedBy   int        `json:"created_by"`
	State       string     `json:"state"`
	PublishedAt *time.Time `json:"published_at"`
}

// setJSON is a set as of one version. Items are member URLs, or member
// summaries with Expand: items.
type setJSON struct {
	ID                       int             `json:"id"`
	URL                      string          `json:"url"`
	URLHTML                  string          `json:"url_html"`
	Type                     string          `json:"type"`
	Title                    string          `json:"title"`
	Description              string          `json:"description"`
	DescriptionHTML          string          `json:"description_html"`
	Group                    *groupEmbed     `json:"group,omitempty"`
	User                     *userEmbed      `json:"user,omitempty"`
	Items                    []any           `json:"items"`
	Categories               []any           `json:"categories"`
	Tags                     []string        `json:"tags"`
	License                  any             `json:"license"`
	Metadata                 any             `json:"metadata"`
	ThumbnailURL             *string         `json:"thumbnail_url"`
	CreatedAt                time.Time       `json:"created_at"`
	UpdatedAt                time.Time       `json:"updated_at"`
	FirstPublishedAt         *time.Time      `json:"first_published_at"`
	PublishedAt              *time.Time      `json:"published_at"`
	PublishedVersion         *string         `json:"published_version"`
	LatestVersion            string          `json:"latest_version"`
	ThisVersion              string          `json:"this_version"`
	Version                  setVersionJSON  `json:"version"`
	PublishToCatalogServices bool            `json:"publish_to_catalog_services"`
	ActivePublish            any             `json:"active_publish"`
	Permissions              string          `json:"permissions"`
	Settings                 map[string]bool `json:"settings"`
	NumViews                 int64           `json:"num_views"`
	NumDownloads             int64           `json:"num_downloads"`
	// IsStarred: whether the caller starred it (false for anonymous).
	IsStarred bool `json:"is_starred"`
	// Deprecated: its deprecation notice, null when it is not deprecated.
	Deprecated *deprecatedJSON `json:"deprecated"`
}

// setSummary is a set list item.
type setSummary struct {
	ID               int        `json:"id"`
	URL              string     `json:"url"`
	Type             string     `json:"type"`
	Title            string     `json:"title"`
	FirstPublishedAt *time.Time `json:"first_published_at"`
	PublishedAt      *time.Time `json:"published_at"`
	IsStarred        bool       `json:"is_starred"`
	// Deprecated: as the set's (setJSON).
	Deprecated *deprecatedJSON `json:"deprecated"`
}

// layerSummary is a member layer or table in the summary form of the
// layer lists.
type layerSummary struct {
	ID               int        `json:"id"`
	URL              string     `json:"url"`
	Type             string     `json:"type"`
	Name             string     `json:"name"`
	FirstPublishedAt *time.Time `json:"first_published_at"`
	PublishedAt      *time.Time `json:"published_at"`
}

func (l links) setVersion(setID int, v *ent.SetVersion) setVersionJSON {
	return setVersionJSON{
		ID: v.ID, URL: l.api("sets/%d/versions/%d/", setID, v.ID), CreatedAt: v.CreatedAt,
		CreatedBy: v.CreatedBy, State: string(v.State), PublishedAt: v.PublishedAt,
	}
}

func (l links) layerSummary(ly *ent.Layer) layerSummary {
	return layerSummary{
		ID: ly.ID, URL: l.api("%s/%d/", kindPath(ly), ly.ID), Type: string(ly.Type), Name: ly.Name,
		FirstPublishedAt: ly.FirstPublishedAt, PublishedAt: ly.PublishedAt,
	}
}

func (a *API) renderSet(r *http.Request, s *ent.Set, v *ent.SetVersion, expandItems bool) (setJSON, error) {
	ctx := r.Context()
	latest, err := a.res.Set().LatestVersion(ctx, s)
	if err != nil {
		return setJSON{}, err
	}
	if v == nil {
		if v, err = a.res.Set().PublishedVersion(ctx, s); err != nil {
			return setJSON{}, err
		}
		if v == nil {
			v = latest
		}
	}
	members, err := a.res.SetVersion().Items(ctx, v)
	if err != nil {
		return setJSON{}, err
	}
	md, err := a.res.SetVersion().Metadata(ctx, v)
	if err != nil {
		return setJSON{}, err
	}
	l := a.links(r)
	items := make([]any, 0, len(members))
	for _, ly := range members {
		if expandItems {
			items = append(items, l.layerSummary(ly))
		} else {
			items = append(items, l.api("%s/%d/", kindPath(ly), ly.ID))
		}
	}
	var pub *string
	if s.PublishedVersionID != nil {
		u := l.api("sets/%d/versions/%d/", s.ID, *s.PublishedVersionID)
		pub = &u
	}
	js := setJSON{
		ID: s.ID, URL: l.api("sets/%d/", s.ID), URLHTML: l.html("sets/%d/", s.ID), Type: "set",
		Title: v.Title, Description: v.Description, DescriptionHTML: htmlParagraphs(v.Description),
		Items: items, Categories: []any{}, Tags: []string{}, CreatedAt: s.CreatedAt, UpdatedAt: v.UpdatedAt,
		FirstPublishedAt: s.FirstPublishedAt, PublishedAt: s.PublishedAt, PublishedVersion: pub,
		LatestVersion: l.api("sets/%d/versions/%d/", s.ID, latest.ID), ThisVersion: l.api("sets/%d/versions/%d/", s.ID, v.ID),
		Version: l.setVersion(s.ID, v), Permissions: l.api("sets/%d/permissions/", s.ID),
		Metadata: l.metadataRefs(fmt.Sprintf("sets/%d/versions/%d/", s.ID, v.ID), md),
		Settings: map[string]bool{"lock_title_to_metadata": false, "lock_description_to_metadata": false, "lock_tags_to_metadata": false},
		NumViews: s.NumViews, NumDownloads: s.NumDownloads,
		Deprecated: l.deprecated(s.DeprecatedAt, s.DeprecationReason, s.ReplacementType, s.ReplacementID),
	}
	cat, err := a.catalogueOf(r, v.Tags, v.Categories, v.LicenseID)
	if err != nil {
		return setJSON{}, err
	}
	js.Tags, js.Categories, js.License = cat.tags, cat.categories, cat.license
	if js.IsStarred, err = a.res.Set().IsStarred(ctx, s); err != nil {
		return setJSON{}, err
	}
	// The group owns a group's set; otherwise its creator does (either may
	// be gone: then the field is left out).
	if s.GroupID != nil {
		g, err := a.res.DatasetGroup(r.Context(), *s.GroupID)
		if err != nil && !ent.IsNotFound(err) {
			return setJSON{}, err
		}
		if g != nil {
			e := l.groupEmbed(g)
			js.Group = &e
		}
	} else {
		u, err := a.res.LookupUser(r.Context(), s.UserID)
		if err != nil && !ent.IsNotFound(err) {
			return setJSON{}, err
		}
		if u != nil {
			e := l.userEmbed(u)
			js.User = &e
		}
	}
	return js, nil
}

// setVersionURL matches a set version URL among publish items.
var setVersionURL = regexp.MustCompile(`/sets/[0-9]+/versions/([0-9]+)/?$`)
