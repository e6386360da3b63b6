package rest

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"regexp"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/catalogterms"
	"github.com/geopub/geopub/internal/paging"
)

// The catalogue's reference data: licences (/licenses/) and categories
// (/categories/), public reads with no scope of their own, and the
// catalogue fields (tags, categories, license) of layer, table, set and
// document versions.

// catalogueRoutes serves licences and categories.
func (a *API) catalogueRoutes(r chi.Router) {
	r.Get("/licenses", a.handle(a.listLicenses))
	r.Get("/licenses/{lid:[0-9]+}", a.handle(a.getLicense))
	r.Get("/licenses/{lid:[0-9]+}/fulltext", a.handle(a.licenseFulltext))
	// Creative Commons licences by properties: /licenses/cc-by-nc/nz/ and,
	// unported, /licenses/cc-by-nc// (StripSlashes leaves
	// /licenses/cc-by-nc/, the same as /licenses/cc-by-nc/).
	r.Get("/licenses/{slug:[a-zA-Z][a-zA-Z0-9-]*}", a.handle(a.getCCLicense))
	r.Get("/licenses/{slug:[a-zA-Z][a-zA-Z0-9-]*}/", a.handle(a.getCCLicense))
	r.Get("/licenses/{slug:[a-zA-Z][a-zA-Z0-9-]*}/{jurisdiction:[a-zA-Z][a-zA-Z]}", a.handle(a.getCCLicense))
	r.Get("/categories", a.handle(a.listCategories))
}

// licenseJSON is a licence (api-shapes §8.1). jurisdiction and version are
// left out of licences that are not Creative Commons attribution
// licences.
type licenseJSON struct {
	ID           int     `json:"id"`
	Title        string  `json:"title"`
	Type         string  `json:"type"`
	Jurisdiction *string `json:"jurisdiction,omitempty"`
	Version      *string `json:"version,omitempty"`
	URL          string  `json:"url"`
	URLHTML      string  `json:"url_html"`
	URLFulltext  string  `json:"url_fulltext"`
	// URLCanonical is the licence's deed on creativecommons.org.
	URLCanonical string `json:"url_canonical"`
}

func (l links) license(lic *ent.License) licenseJSON {
	js := licenseJSON{
		ID: lic.ID, Title: lic.Title, Type: lic.Type,
		URL:          l.api("licenses/%d/", lic.ID),
		URLHTML:      l.api("licenses/%d/fulltext/", lic.ID),
		URLFulltext:  l.api("licenses/%d/fulltext/", lic.ID),
		URLCanonical: catalogterms.DeedURL(lic),
	}
	if catalogterms.IsCreativeCommons(lic) {
		js.Jurisdiction, js.Version = &lic.Jurisdiction, &lic.Version
	}
	return js
}

func (a *API) listLicenses(w http.ResponseWriter, r *http.Request) error {
	ls, err := a.res.Query().Licenses(r.Context())
	if err != nil {
		return err
	}
	l := a.links(r)
	out := make([]licenseJSON, 0, len(ls))
	for _, lic := range ls {
		out = append(out, l.license(lic))
	}
	page, pr, err := pageSliceUpTo(r, out, paging.MaxSizeLarge)
	if err != nil {
		return err
	}
	a.writePage(w, r, pr, nil, page)
	return nil
}

func (a *API) getLicense(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "lid")
	if err != nil {
		return err
	}
	lic, err := a.res.Query().License(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).license(lic))
	return nil
}

// getCCLicense finds a Creative Commons licence by slug and jurisdiction
// (none: unported); ?version=3.0 picks a version, else the newest.
func (a *API) getCCLicense(w http.ResponseWriter, r *http.Request) error {
	version := r.URL.Query().Get("version")
	if version != "" && !ccVersion.MatchString(version) {
		return apperr.New(apperr.Invalid, "version: give a licence version such as 4.0 or 3.0.")
	}
	lic, err := a.res.CreativeCommonsLicense(r.Context(), chi.URLParam(r, "slug"), version,
		strings.ToLower(chi.URLParam(r, "jurisdiction")))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).license(lic))
	return nil
}

var ccVersion = regexp.MustCompile(`^[0-9]{1,2}\.[0-9]{1,2}$`)

var fulltextPage = template.Must(template.New("license").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body><h1>{{.Title}}</h1>
<p>{{if .Version}}Version {{.Version}}{{if .Jurisdiction}}, ported to jurisdiction {{.Jurisdiction}}{{else}}, unported{{end}}. {{end}}Licence type: {{.Type}}.</p>
<p>The legal code of this licence is published by Creative Commons at <a href="{{.LegalCodeURL}}">{{.LegalCodeURL}}</a>; its summary (deed) is at <a href="{{.Deed}}">{{.Deed}}</a>.</p>
</body></html>
`))

// licenseFulltext names the licence and links to its canonical text on
// creativecommons.org (nothing is fetched): HTML, or plain text when the
// caller asks for text/plain (Accept) or ?format=txt.
func (a *API) licenseFulltext(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "lid")
	if err != nil {
		return err
	}
	lic, err := a.res.Query().License(r.Context(), id)
	if err != nil {
		return err
	}
	format := r.URL.Query().Get("format")
	switch format {
	case "", "html", "txt", "text":
	default:
		return apperr.Field("format", "Give html or txt.")
	}
	accept := r.Header.Get("Accept")
	plain := format == "txt" || format == "text" ||
		(format == "" && strings.Contains(accept, "text/plain") && !strings.Contains(accept, "text/html"))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if plain {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n\nLicence type: %s\n", lic.Title, lic.Type)
		if lic.Version != "" {
			fmt.Fprintf(&b, "Version: %s\n", lic.Version)
		}
		if catalogterms.IsCreativeCommons(lic) {
			j := lic.Jurisdiction
			if j == "" {
				j = "unported"
			}
			fmt.Fprintf(&b, "Jurisdiction: %s\n", j)
		}
		fmt.Fprintf(&b, "\nLegal code: %s\nSummary (deed): %s\n", lic.LegalCodeURL, catalogterms.DeedURL(lic))
		_, _ = w.Write([]byte(b.String()))
		return nil
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	w.WriteHeader(http.StatusOK)
	return fulltextPage.Execute(w, map[string]any{
		"Title": lic.Title, "Type": lic.Type, "Version": lic.Version, "Jurisdiction": lic.Jurisdiction,
		"LegalCodeURL": lic.LegalCodeURL, "Deed": catalogterms.DeedURL(lic),
	})
}

// categoryJSON is a node of the category tree. slug is key (existing
// clients read slug; the key is what the category filter takes).
type categoryJSON struct {
	Key      string         `json:"key"`
	Slug     string         `json:"slug"`
	Name     string         `json:"name"`
	Children []categoryJSON `json:"children"`
}

// categoryDoc is categoryJSON for the API reference, whose schemas cannot
// refer to themselves: children are categories too.
type categoryDoc struct {
	Key      string `json:"key"`
	Slug     string `json:"slug"`
	Name     string `json:"name"`
	Children []any  `json:"children"`
}

// listCategories answers the tree: the top-level categories, each with
// its children, ordered by key, paged as every list is (by top-level
// entries; the whole tree fits the default page).
func (a *API) listCategories(w http.ResponseWriter, r *http.Request) error {
	cs, err := a.res.Query().Categories(r.Context())
	if err != nil {
		return err
	}
	page, pr, err := pageSlice(r, categoryTree(cs))
	if err != nil {
		return err
	}
	a.writePage(w, r, pr, nil, page)
	return nil
}

// categoryTree nests categories (ordered by key, so parents come first)
// under their parents; a category whose parent is missing is top-level.
func categoryTree(cs []*ent.Category) []categoryJSON {
	type node struct {
		js   categoryJSON
		kids []*node
	}
	byKey := map[string]*node{}
	var roots []*node
	for _, c := range cs {
		n := &node{js: categoryJSON{Key: c.Key, Slug: c.Key, Name: c.Name}}
		byKey[c.Key] = n
		if p := byKey[catalogterms.ParentKey(c.Key)]; p != nil {
			p.kids = append(p.kids, n)
		} else {
			roots = append(roots, n)
		}
	}
	var render func(ns []*node) []categoryJSON
	render = func(ns []*node) []categoryJSON {
		out := make([]categoryJSON, 0, len(ns))
		for _, n := range ns {
			n.js.Children = render(n.kids)
			out = append(out, n.js)
		}
		return out
	}
	return render(roots)
}

// categoryRef is a category as datasets show it: {key, slug, name}.
type categoryRef struct {
	Key  string `json:"key"`
	Slug string `json:"slug"`
	Name string `json:"name"`
}

// catalogueJSON is what a dataset representation shows of its version's
// catalogue fields.
type catalogueJSON struct {
	tags       []string
	categories []any
	license    any
}

// catalogueOf renders a version's tags, categories and licence. A
// category removed since keeps its key as its name.
func (a *API) catalogueOf(r *http.Request, tags, categories []string, licenseID *int) (catalogueJSON, error) {
	out := catalogueJSON{tags: nonNil(tags), categories: make([]any, 0, len(categories))}
	for _, k := range categories {
		c, err := a.res.CategoryByKey(r.Context(), k)
		if err != nil {
			return out, err
		}
		name := k
		if c != nil {
			name = c.Name
		}
		out.categories = append(out.categories, categoryRef{Key: k, Slug: k, Name: name})
	}
	if licenseID != nil {
		lic, err := a.res.LicenseByID(r.Context(), *licenseID)
		if err != nil && apperr.CodeOf(err) != apperr.NotFound {
			return out, err
		}
		if lic != nil {
			out.license = a.links(r).license(lic)
		}
	}
	return out, nil
}

// catalogueBody is the catalogue fields of a version's PUT or PATCH body.
// Absent fields stay as they are. tags: a list of strings (null: none).
// categories: a list of category keys or of category objects with key or
// slug, as responses show them (null: none). license: a licence id, its
// URL, or an object with id or url, as responses show it; null removes
// it.
type catalogueBody struct {
	Tags       json.RawMessage `json:"tags"`
	Categories json.RawMessage `json:"categories"`
	License    json.RawMessage `json:"license"`
}

var licenseURL = regexp.MustCompile(`/licenses/([0-9]+)/?$`)

// catalogueInput reads the body's catalogue fields into the resolver's
// input shape: nil slices and an unset licence leave a field unchanged.
func (b catalogueBody) catalogueInput() (tags, categories []string, lic graphql.Omittable[*int], err error) {
	if len(b.Tags) > 0 {
		if tags, err = stringList("tags", b.Tags, nil); err != nil {
			return
		}
	}
	if len(b.Categories) > 0 {
		categories, err = stringList("categories", b.Categories, func(raw json.RawMessage) (string, bool) {
			var obj struct {
				Key  *string `json:"key"`
				Slug *string `json:"slug"`
			}
			if json.Unmarshal(raw, &obj) != nil {
				return "", false
			}
			switch {
			case obj.Key != nil:
				return *obj.Key, true
			case obj.Slug != nil:
				return *obj.Slug, true
			}
			return "", false
		})
		if err != nil {
			return
		}
	}
	if len(b.License) > 0 {
		if string(b.License) == "null" {
			return tags, categories, graphql.OmittableOf[*int](nil), nil
		}
		var obj struct {
			URL *string `json:"url"`
		}
		raw := b.License
		if json.Unmarshal(raw, &obj) == nil && obj.URL != nil {
			raw, _ = json.Marshal(*obj.URL)
		}
		id, problem := idRef(raw, licenseURL)
		if problem != "" {
			return nil, nil, lic, apperr.Field("license", "Give a licence id, its URL, or null.")
		}
		lic = graphql.OmittableOf(&id)
	}
	return tags, categories, lic, nil
}

// stringList reads a list of strings (null: an empty list); item, when
// set, reads the entries that are not strings.
func stringList(field string, raw json.RawMessage, item func(json.RawMessage) (string, bool)) ([]string, error) {
	if string(raw) == "null" {
		return []string{}, nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, apperr.Field(field, "Expected a list.")
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		var s string
		if json.Unmarshal(e, &s) == nil {
			out = append(out, s)
			continue
		}
		if item != nil {
			if s, ok := item(e); ok {
				out = append(out, s)
				continue
			}
		}
		return nil, apperr.Field(field, "Expected a list of strings.")
	}
	return out, nil
}
