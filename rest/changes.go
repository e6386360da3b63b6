package rest

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/changefeed"
)

// The change feed (internal/changefeed), of the whole catalogue and of
// each dataset:
//
//	GET /changes/?after={cursor}&page_size={n}&types={type,...}&format=json|atom
//	GET /layers/{id}/changes/ (and tables, sets, documents, items)
//
// JSON (the default) is the events after the cursor, oldest first, with
// the cursor to read on from in the Link header (rel="page-next"), given
// even when the page is empty, so a client polls that URL. Atom
// (format=atom, or Accept: application/atom+xml) is for feed readers: the
// newest page_size events, newest first, unless a cursor is given.
func (a *API) changeRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(scoped(auth.ScopeCatalog, auth.ScopeCatalog))
		r.Get("/changes", a.handle(a.changes(nil)))
	})
	for _, b := range datasetBases {
		if b.typ == graph.DatasetTypeSource {
			continue
		}
		r.Group(func(r chi.Router) {
			r.Use(scoped(b.read, b.read))
			r.Get(b.member()+"/changes", a.handle(a.changes(&b)))
		})
	}
}

// changeJSON is the REST shape of an event.
type changeJSON = changefeed.Wire

func (l links) change(e *changefeed.Event) changeJSON { return e.Wire(l.api(""), l.html("")) }

func (a *API) changes(b *datasetBase) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q := queryOf(r)
		atom, err := changeFormat(r)
		if err != nil {
			return err
		}
		var after *string
		if v := r.URL.Query().Get("after"); v != "" {
			after = &v
		}
		size, err := q.intPtr("page_size")
		if err != nil {
			return err
		}
		if size != nil && (*size < 1 || *size > graph.MaxChangePage) {
			return apperr.Field("page_size", fmt.Sprintf("Give a page size from 1 to %d.", graph.MaxChangePage))
		}
		var types []string
		for _, t := range strings.Split(r.URL.Query().Get("types"), ",") {
			if t = strings.TrimSpace(t); t != "" {
				types = append(types, t)
			}
		}
		var dataset *graph.ChangeDatasetInput
		if b != nil {
			id, err := b.id(r)
			if err != nil {
				return err
			}
			dataset = &graph.ChangeDatasetInput{Type: b.typ, ID: id}
		}
		latest := atom && after == nil
		page, err := a.res.Query().Changes(r.Context(), after, size, dataset, types, &latest)
		if err != nil {
			return err
		}
		l := a.links(r)
		// The Link URLs carry the parameters the feed reads and no others.
		p := cursorPage{carried: url.Values{}, param: "after", next: page.Next, per: graph.DefaultChangePage,
			count: len(page.Events), total: page.TotalCount}
		if size != nil {
			p.per = *size
			p.carried.Set("page_size", strconv.Itoa(*size))
		}
		if len(types) > 0 {
			p.carried.Set("types", strings.Join(types, ","))
		}
		if atom {
			p.carried.Set("format", "atom")
		}
		l.setCursorHeaders(w, r, p)
		if atom {
			self := l.origin + r.URL.Path
			if !strings.HasSuffix(self, "/") {
				self += "/"
			}
			return writeAtom(w, r, l, self, b, page)
		}
		items := make([]changeJSON, len(page.Events))
		for i, e := range page.Events {
			items[i] = l.change(e)
		}
		writeJSON(w, http.StatusOK, items)
		return nil
	}
}

// changeFormat reports whether the caller asked for Atom.
func changeFormat(r *http.Request) (bool, error) {
	f, err := formatOf(r, []string{"json", "atom"},
		map[string]string{"application/atom+xml": "atom", "application/json": "json", "*/*": "json"}, "json")
	return f == "atom", err
}

// The Atom document (RFC 4287).
type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string      `xml:"id"`
	Title   string      `xml:"title"`
	Updated string      `xml:"updated"`
	Author  atomAuthor  `xml:"author"`
	Links   []atomLink  `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}

type atomAuthor struct {
	Name string `xml:"name"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Href string `xml:"href,attr"`
	Type string `xml:"type,attr,omitempty"`
}

type atomEntry struct {
	ID       string       `xml:"id"`
	Title    string       `xml:"title"`
	Updated  string       `xml:"updated"`
	Links    []atomLink   `xml:"link"`
	Category atomCategory `xml:"category"`
	Summary  string       `xml:"summary"`
}

type atomCategory struct {
	Term string `xml:"term,attr"`
}

// changeTitles say what happened, for people.
var changeTitles = map[string]string{
	changefeed.Published:          "published",
	changefeed.NewVersion:         "has a new version",
	changefeed.SchemaChanged:      "changed its schema",
	changefeed.PermissionsChanged: "changed who may use it",
	changefeed.Deprecated:         "was deprecated",
	changefeed.Deleted:            "was deleted",
}

func writeAtom(w http.ResponseWriter, r *http.Request, l links, self string, b *datasetBase, page *graph.ChangePage) error {
	title := "Catalogue changes"
	if b != nil {
		title = "Changes to " + strings.TrimPrefix(b.path, "/") + " " + chi.URLParam(r, "id") + chi.URLParam(r, "cid")
	}
	f := atomFeed{
		ID: self, Title: title, Updated: time.Now().UTC().Format(time.RFC3339), Author: atomAuthor{Name: l.origin},
		Links: []atomLink{{Rel: "self", Href: self + "?format=atom", Type: "application/atom+xml"}},
	}
	for _, e := range page.Events {
		js := l.change(e)
		summary := e.Type
		if c, ok := e.Detail["counts"].(map[string]any); ok {
			summary = fmt.Sprintf("%v inserted, %v updated, %v deleted", c["inserts"], c["updates"], c["deletes"])
		}
		if reason, ok := e.Detail["reason"].(string); ok && e.Type == changefeed.Deprecated {
			summary = reason
		}
		f.Entries = append(f.Entries, atomEntry{
			ID:      js.URL,
			Title:   fmt.Sprintf("%s %s", e.Title, changeTitles[e.Type]),
			Updated: e.At.UTC().Format(time.RFC3339),
			Links: []atomLink{{Rel: "alternate", Href: js.Dataset.URLHTML, Type: "text/html"},
				{Rel: "related", Href: js.Dataset.URL, Type: "application/json"}},
			Category: atomCategory{Term: e.Type},
			Summary:  summary,
		})
	}
	var newest time.Time
	for _, e := range page.Events {
		if e.At.After(newest) {
			newest = e.At
		}
	}
	if !newest.IsZero() {
		f.Updated = newest.UTC().Format(time.RFC3339)
	}
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write([]byte(xml.Header)); err != nil {
		return nil
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	_ = enc.Encode(f)
	return nil
}
