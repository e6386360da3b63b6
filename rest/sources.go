package rest

import (
	"encoding/json"
	"mime"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/search"
)

func (a *API) sourceRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeSourcesRead, auth.ScopeSourcesWrite))
	r.Get("/sources", a.handle(a.listSources))
	r.Post("/sources", a.handle(a.createSource))
	r.Get("/sources/{sid:[0-9]+}", a.handle(a.getSource))
	r.Put("/sources/{sid:[0-9]+}", a.handle(a.updateSource))
	r.Delete("/sources/{sid:[0-9]+}", a.handle(a.deleteSource))
}

// sourceSummary is a source list item.
type sourceSummary struct {
	ID      int    `json:"id"`
	URL     string `json:"url"`
	URLHTML string `json:"url_html"`
	Title   string `json:"title"`
	Type    string `json:"type"`
}

// sourceJSON is the source resource. username and password are never
// rendered.
type sourceJSON struct {
	sourceSummary
	Description   string         `json:"description"`
	URLRemote     *string        `json:"url_remote"`
	Options       map[string]any `json:"options"`
	ScanSchedule  *string        `json:"scan_schedule"`
	LastScannedAt *time.Time     `json:"last_scanned_at"`
	User          *userEmbed     `json:"user,omitempty"`
	Group         *groupEmbed    `json:"group,omitempty"`
	Metadata      any            `json:"metadata"`
	Datasources   string         `json:"datasources"`
	Scans         string         `json:"scans"`
	CreatedAt     time.Time      `json:"created_at"`
	UpdatedAt     time.Time      `json:"updated_at"`
}

func (l links) sourceSummary(s *ent.Source) sourceSummary {
	return sourceSummary{ID: s.ID, URL: l.api("sources/%d/", s.ID), URLHTML: l.html("sources/%d/", s.ID), Title: s.Title, Type: string(s.Type)}
}

func (l links) source(s *ent.Source, owner *ent.User, grp *ent.Group) sourceJSON {
	opts := map[string]any{"ssl_verify": s.SslVerify}
	if len(s.Folders) > 0 {
		opts["folders"] = s.Folders
	}
	if len(s.Schemas) > 0 {
		opts["schemas"] = s.Schemas
	}
	if s.Endpoint != "" {
		opts["endpoint"] = s.Endpoint
	}
	if s.Region != "" {
		opts["region"] = s.Region
	}
	out := sourceJSON{
		sourceSummary: l.sourceSummary(s),
		Description:   s.Description,
		URLRemote:     nullable(s.URLRemote),
		Options:       opts,
		ScanSchedule:  nullable(s.ScanSchedule),
		LastScannedAt: s.LastScannedAt,
		Datasources:   l.api("sources/%d/datasources/", s.ID),
		Scans:         l.api("sources/%d/scans/", s.ID),
		CreatedAt:     s.CreatedAt,
		UpdatedAt:     s.UpdatedAt,
	}
	if grp != nil {
		g := l.groupEmbed(grp)
		out.Group = &g
	} else if owner != nil {
		u := l.userEmbed(owner)
		out.User = &u
	}
	return out
}

// renderSource loads the owner of s and renders it.
func (a *API) renderSource(r *http.Request, s *ent.Source) (sourceJSON, error) {
	var grp *ent.Group
	if s.GroupID != nil {
		g, err := a.res.DatasetGroup(r.Context(), *s.GroupID)
		if err != nil {
			return sourceJSON{}, err
		}
		grp = g
	}
	owner, err := a.res.LookupUser(r.Context(), s.UserID)
	if err != nil {
		return sourceJSON{}, err
	}
	return a.links(r).source(s, owner, grp), nil
}

// sourceOptions is the options object of a source request.
type sourceOptions struct {
	Username  *string  `json:"username"`
	Password  *string  `json:"password"`
	SSLVerify *bool    `json:"ssl_verify"`
	Folders   []string `json:"folders"`
	Schemas   []string `json:"schemas"`
	Endpoint  *string  `json:"endpoint"`
	Region    *string  `json:"region"`
}

func (o *sourceOptions) input() *graph.SourceOptionsInput {
	if o == nil {
		return nil
	}
	return &graph.SourceOptionsInput{
		Username: o.Username, Password: o.Password, SslVerify: o.SSLVerify, Folders: o.Folders, Schemas: o.Schemas,
		Endpoint: o.Endpoint, Region: o.Region,
	}
}

// sourceBody is POST /sources/ and PUT /sources/{id}/.
type sourceBody struct {
	Title        *string         `json:"title"`
	Type         string          `json:"type"`
	Description  *string         `json:"description"`
	Group        json.RawMessage `json:"group"`
	URLRemote    *string         `json:"url_remote"`
	ScanSchedule *string         `json:"scan_schedule"`
	Options      *sourceOptions  `json:"options"`
}

func (b sourceBody) createInput() (graph.CreateSourceInput, error) {
	fe := apperr.FieldErrors{}
	in := graph.CreateSourceInput{
		Type: source.Type(b.Type), Title: ptrString(b.Title), Description: b.Description,
		URLRemote: b.URLRemote, ScanSchedule: b.ScanSchedule, Options: b.Options.input(),
	}
	if b.Type == "" {
		fe.Add("type", "This field is required.")
	} else if source.TypeValidator(in.Type) != nil {
		fe.Add("type", "Select a valid choice: upload, url, arcgis, cifs, postgres, wfs or s3.")
	}
	if len(b.Group) > 0 && string(b.Group) != "null" {
		id, problem := idRef(b.Group, groupURL)
		if problem != "" {
			fe.Add("group", problem)
		} else {
			in.GroupID = &id
		}
	}
	return in, fe.Err()
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// sourceTypes are the values of /sources/'s type filter.
var sourceTypes = []string{"upload", "url", "arcgis", "cifs", "postgres", "wfs", "s3"}

func (a *API) listSources(w http.ResponseWriter, r *http.Request) error {
	if usesEngine(r, false) {
		return a.searchList(w, r, search.TypeSource, expandList, catalogSortRels, func(r *http.Request, e graph.CatalogEntry, ex expansions) (any, error) {
			if ex["list"] {
				return a.renderSource(r, e.Source)
			}
			return a.links(r).sourceSummary(e.Source), nil
		})
	}
	q := queryOf(r)
	in := &graph.SourceSearchInput{Q: q.strPtr("q")}
	types, err := q.oneOf("type", sourceTypes...)
	if err != nil {
		return err
	}
	for _, t := range types {
		in.Types = append(in.Types, source.Type(t))
	}
	if in.Page, in.PageSize, err = q.paging(); err != nil {
		return err
	}
	ex, err := expandOf(r, expandList)
	if err != nil {
		return err
	}
	page, err := a.res.Query().SourceSearch(r.Context(), in)
	if err != nil {
		return err
	}
	l := a.links(r)
	var body any
	if ex["list"] {
		full := make([]sourceJSON, 0, len(page.Items))
		for _, s := range page.Items {
			js, err := a.renderSource(r, s)
			if err != nil {
				return err
			}
			full = append(full, js)
		}
		body = full
	} else {
		items := make([]sourceSummary, 0, len(page.Items))
		for _, s := range page.Items {
			items = append(items, l.sourceSummary(s))
		}
		body = items
	}
	a.writePage(w, r, pageResult{page: page.PageInfo.Page, size: page.PageInfo.PageSize, total: page.PageInfo.Total, count: len(page.Items)}, nil, body)
	return nil
}

func (a *API) createSource(w http.ResponseWriter, r *http.Request) error {
	var s *ent.Source
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		// Refuse before reading: parsing spools the files to disk.
		if err := a.res.AuthorizeSourceUpload(r.Context()); err != nil {
			return err
		}
		defer discardUpload(r)
		in, files, err := readUpload(r, a.maxUpload())
		if err != nil {
			return err
		}
		if s, err = a.res.Mutation().UploadSource(r.Context(), in, files); err != nil {
			return err
		}
	} else {
		var body sourceBody
		if err := decodeJSON(r, &body); err != nil {
			return err
		}
		in, err := body.createInput()
		if err != nil {
			return err
		}
		if s, err = a.res.Mutation().CreateSource(r.Context(), in); err != nil {
			return err
		}
	}
	js, err := a.renderSource(r, s)
	if err != nil {
		return err
	}
	w.Header().Set("Location", js.URL)
	writeJSON(w, http.StatusCreated, js)
	return nil
}

func (a *API) getSource(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "sid")
	if err != nil {
		return err
	}
	s, err := a.res.Query().Source(r.Context(), id)
	if err != nil {
		return err
	}
	js, err := a.renderSource(r, s)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, js)
	return nil
}

func (a *API) updateSource(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "sid")
	if err != nil {
		return err
	}
	var body sourceBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	s, err := a.res.Mutation().UpdateSource(r.Context(), id, graph.UpdateSourceInput{
		Title: body.Title, Description: body.Description, URLRemote: body.URLRemote,
		ScanSchedule: body.ScanSchedule, Options: body.Options.input(),
	})
	if err != nil {
		return err
	}
	js, err := a.renderSource(r, s)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, js)
	return nil
}

func (a *API) deleteSource(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "sid")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().DeleteSource(r.Context(), id); err != nil {
		return err
	}
	noContent(w)
	return nil
}
