package htmlview

import (
	"fmt"
	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/deprecation"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/geopub/geopub/web/mappreview"
)

// Page is what a page shows of one object. Every string is text: the
// template escapes it.
type Page struct {
	Kind        string // Layer, Table, Set, ...
	Title       string
	Description string
	Facts       []Fact
	Fields      []Field   // a vector layer's or table's attributes
	Versions    []Version // newest first, as the versions list gives them
	// APIPath is the object's REST URL, relative to the site; GraphQL its
	// query in the explorer.
	APIPath, GraphQL string
	// Explorer is the explorer's path.
	Explorer string
	// Map draws the object's tiles; MapNote says why there is no map
	// where one could be.
	Map     *mappreview.Map
	MapNote string
	// DataTable is the path of the layer's table page, when the caller
	// may use it (datatable.PageTable).
	DataTable string
	// JSONLD is a dataset page's schema.org Dataset (jsonld.go): JSON
	// whose <, > and & are escaped, safe inside a script element.
	JSONLD template.JS
	// Deprecated is the dataset's deprecation notice, nil when it is
	// current.
	Deprecated *Deprecated
	// Usage is the dataset's usage figures, for those who may edit it
	// only; nil for the other readers.
	Usage *Usage
}

// Deprecated is what a deprecated dataset's page says about it: since
// when, why, and the page of the dataset that replaces it.
type Deprecated struct {
	Since, Reason, Replacement string
}

// deprecatedNotice is the notice of a dataset's deprecation fields.
func deprecatedNotice(at *time.Time, reason, replacementType string, replacementID *int) *Deprecated {
	n := deprecation.Of(at, reason, replacementType, replacementID)
	if n == nil {
		return nil
	}
	d := &Deprecated{Since: when(&n.At), Reason: n.Reason}
	if rp := n.Replacement; rp != nil {
		d.Replacement = "/" + changefeed.DatasetPath(rp.Type, rp.ID) + "/"
	}
	return d
}

// MapAsset is the URL of one of the map's embedded files.
func (p *Page) MapAsset(name string) string { return mappreview.AssetURL(name) }

// Fact is one labelled value.
type Fact struct{ Label, Value string }

// Field is one attribute of a layer or table.
type Field struct{ Name, Type string }

// Version is one row of the versions table.
type Version struct {
	ID                   int
	State                string
	Created, PublishedAt string
}

// ExplorerURL is the explorer opened on the object's GraphQL query.
func (p *Page) ExplorerURL() string {
	if p.GraphQL == "" {
		return p.Explorer
	}
	return p.Explorer + "?" + url.Values{"query": {p.GraphQL}}.Encode()
}

// restPath is the REST detail URL of an object, in the current version.
func restPath(format string, args ...any) string {
	return "/services/api/v1.x/" + fmt.Sprintf(format, args...)
}

// gql is the explorer query that reads an object's id.
func gql(field, arg string) string {
	return fmt.Sprintf("query {\n  %s(id: %s) {\n    id\n  }\n}\n", field, arg)
}

// when formats a time for a page, "" for none.
func when(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// facts drops the facts without a value.
func facts(fs ...Fact) []Fact {
	out := fs[:0]
	for _, f := range fs {
		if strings.TrimSpace(f.Value) != "" {
			out = append(out, f)
		}
	}
	return out
}

// pathInt is the {id} of the route, digits by its pattern.
func pathInt(r *http.Request, name string) (int, error) {
	var n int
	_, err := fmt.Sscan(pathParam(r, name), &n)
	return n, err
}
