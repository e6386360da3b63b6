package htmlview

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/catalogterms"
)

// Each dataset page embeds a schema.org Dataset in JSON-LD (issue 27
// point 3), so that search engines (Google Dataset Search among them)
// index the dataset: what the page shows, in the vocabulary they read.
// The description is built from what the page's loader read, under the
// caller's credentials like the rest of the page, so it holds nothing
// the caller may not see; a distribution is named only for a caller who
// may download.

// jsonLD is a schema.org Dataset. Empty fields are left out.
type jsonLD struct {
	Context               string       `json:"@context"`
	Type                  string       `json:"@type"`
	Name                  string       `json:"name"`
	Description           string       `json:"description,omitempty"`
	URL                   string       `json:"url"`
	Identifier            string       `json:"identifier,omitempty"`
	Keywords              []string     `json:"keywords,omitempty"`
	License               string       `json:"license,omitempty"`
	DateCreated           string       `json:"dateCreated,omitempty"`
	DateModified          string       `json:"dateModified,omitempty"`
	DatePublished         string       `json:"datePublished,omitempty"`
	SpatialCoverage       *ldPlace     `json:"spatialCoverage,omitempty"`
	Creator               *ldAgent     `json:"creator,omitempty"`
	Publisher             *ldAgent     `json:"publisher,omitempty"`
	IncludedInDataCatalog ldCatalog    `json:"includedInDataCatalog"`
	Distribution          []ldDownload `json:"distribution,omitempty"`
}

type ldPlace struct {
	Type string  `json:"@type"`
	Geo  ldShape `json:"geo"`
}

// ldShape is a GeoShape box: "south west north east", latitude first
// as schema.org has it.
type ldShape struct {
	Type string `json:"@type"`
	Box  string `json:"box"`
}

// ldAgent is an Organization (a group) or a Person (a user).
type ldAgent struct {
	Type string `json:"@type"`
	Name string `json:"name"`
}

type ldCatalog struct {
	Type string `json:"@type"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

// ldDownload is one file the caller may download.
type ldDownload struct {
	Type           string `json:"@type"`
	ContentURL     string `json:"contentUrl"`
	EncodingFormat string `json:"encodingFormat,omitempty"`
}

// about is what a dataset page's loader read for its JSON-LD.
type about struct {
	// path is the page below the site root (layers/12/); api the REST
	// detail's path (Page.APIPath).
	path, api string
	tags      []string
	license   *ent.License
	created   time.Time
	modified  time.Time
	published *time.Time
	// extent is west, south, east, north in degrees (a layer version's).
	extent []float64
	// groupID owns the dataset when set; else userID does.
	groupID *int
	userID  int
	// downloads are files the caller may download: path below the site
	// root and media type.
	downloads [][2]string
}

// addJSONLD describes the dataset of page p for search engines.
func (v *Views) addJSONLD(r *http.Request, p *Page, a about) error {
	origin := v.origin(r)
	d := jsonLD{
		Context: "https://schema.org/", Type: "Dataset", Name: p.Title, Description: p.Description,
		URL: origin + "/" + a.path, Identifier: origin + a.api, Keywords: a.tags,
		DateCreated: iso(&a.created), DateModified: iso(&a.modified), DatePublished: iso(a.published),
		IncludedInDataCatalog: ldCatalog{Type: "DataCatalog", Name: "Geopub", URL: origin + "/"},
	}
	if a.license != nil {
		d.License = catalogterms.DeedURL(a.license)
		if d.License == "" {
			d.License = a.license.Title
		}
	}
	if len(a.extent) == 4 {
		w, s, e, n := a.extent[0], a.extent[1], a.extent[2], a.extent[3]
		d.SpatialCoverage = &ldPlace{Type: "Place", Geo: ldShape{Type: "GeoShape", Box: fmt.Sprintf("%g %g %g %g", s, w, n, e)}}
	}
	who, err := v.publisher(r.Context(), a.groupID, a.userID)
	if err != nil {
		return err
	}
	d.Creator, d.Publisher = who, who
	for _, dl := range a.downloads {
		d.Distribution = append(d.Distribution, ldDownload{Type: "DataDownload", ContentURL: origin + "/" + dl[0], EncodingFormat: dl[1]})
	}
	// json.Marshal escapes <, > and & (as \u003c ...), so no text of
	// the dataset can close the script element; html/template inserts
	// template.JS as it is.
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	p.JSONLD = template.JS(b)
	return nil
}

// publisher is the group owning a dataset, else the user who owns it; nil
// when neither can be read (a deleted user).
func (v *Views) publisher(ctx context.Context, groupID *int, userID int) (*ldAgent, error) {
	if groupID != nil {
		g, err := v.res.DatasetGroup(ctx, *groupID)
		if err != nil && !ent.IsNotFound(err) {
			return nil, err
		}
		if g != nil {
			return &ldAgent{Type: "Organization", Name: g.Name}, nil
		}
	}
	u, err := v.res.LookupUser(ctx, userID)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(u.FirstName + " " + u.LastName)
	if name == "" {
		return nil, nil
	}
	return &ldAgent{Type: "Person", Name: name}, nil
}

// iso is t in ISO 8601 (RFC 3339, UTC); "" for none.
func iso(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
