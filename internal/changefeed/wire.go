package changefeed

import (
	"fmt"
	"time"
)

// Wire is an event as the API and webhooks send it.
type Wire struct {
	ID              int64          `json:"id"`
	Type            string         `json:"type"`
	Dataset         WireDataset    `json:"dataset"`
	Version         *WireVersion   `json:"version"`
	PreviousVersion *WireVersion   `json:"previous_version"`
	Detail          map[string]any `json:"detail"`
	CreatedAt       time.Time      `json:"created_at"`
	// URL reads the feed from this event on.
	URL string `json:"url"`
}

// WireDataset names an event's dataset.
type WireDataset struct {
	Type    string `json:"type"`
	ID      any    `json:"id"`
	URL     string `json:"url"`
	URLHTML string `json:"url_html"`
	Title   string `json:"title"`
}

// WireVersion names a version of it.
type WireVersion struct {
	ID  int    `json:"id"`
	URL string `json:"url"`
}

// collections are the API's collections of each dataset type.
var collections = map[string]string{"layer": "layers", "table": "tables", "set": "sets", "document": "documents", "item": "items"}

// Path is the dataset's path below the API root and the site root:
// layers/5, items/c12.
func (e Event) Path() string { return DatasetPath(e.DatasetType, e.Dataset.ID) }

// DatasetPath is the path of dataset id of type typ (layer, table, set,
// document, item) below the API root and the site root: layers/5,
// items/c12.
func DatasetPath(typ string, id int) string {
	if typ == "item" {
		return fmt.Sprintf("items/c%d", id)
	}
	return fmt.Sprintf("%s/%d", collections[typ], id)
}

// DatasetWire names dataset id of type typ with absolute URLs under api
// and site (see Wire); a catalog item's id is its public one (c12).
func DatasetWire(typ string, id int, title, api, site string) WireDataset {
	path := DatasetPath(typ, id)
	return WireDataset{Type: typ, ID: PublicID(typ, id), URL: api + path + "/", URLHTML: site + path + "/", Title: title}
}

// PublicID is dataset id of type typ as the API names it: the number,
// or a catalog item's public id (c12).
func PublicID(typ string, id int) any {
	if typ == "item" {
		return fmt.Sprintf("c%d", id)
	}
	return id
}

// Wire renders e with absolute URLs under api (the API root, such as
// https://example.org/services/api/v1.x/) and site (the site root).
func (e Event) Wire(api, site string) Wire {
	path := e.Path()
	version := func(v *int) *WireVersion {
		if v == nil {
			return nil
		}
		return &WireVersion{ID: *v, URL: fmt.Sprintf("%s%s/versions/%d/", api, path, *v)}
	}
	return Wire{
		ID: e.ID, Type: e.Type, Detail: e.Detail, CreatedAt: e.At,
		Dataset:         DatasetWire(e.DatasetType, e.Dataset.ID, e.Title, api, site),
		Version:         version(e.VersionID),
		PreviousVersion: version(e.PreviousVersionID),
		URL:             fmt.Sprintf("%schanges/?after=%d&page_size=1", api, e.ID-1),
	}
}
