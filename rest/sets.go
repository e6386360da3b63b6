package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/popularity"
	"github.com/geopub/geopub/internal/search"
)

// setRoutes serves /sets/: ordered, versioned collections of layers and
// tables.
func (a *API) setRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeSetsRead, auth.ScopeSetsWrite))
	r.Get("/sets", a.handle(a.listSets(false)))
	r.Get("/sets/drafts", a.handle(a.listSets(true)))
	r.Post("/sets", a.handle(a.createSet))
	r.Get("/sets/{sid:[0-9]+}", a.handle(a.setVersions().getDataset))
	r.Delete("/sets/{sid:[0-9]+}", a.handle(a.setVersions().deleteDataset))
	r.Get("/sets/{sid:[0-9]+}/versions", a.handle(a.setVersions().listVersions(a)))
	r.Get("/sets/{sid:[0-9]+}/diff", a.handle(a.setDiff))
	r.Post("/sets/{sid:[0-9]+}/versions", a.handle(a.setVersions().createDraft))
	r.Get("/sets/{sid:[0-9]+}/versions/{vid:[0-9]+|draft|published}", a.handle(a.setVersions().getVersion))
	r.Put("/sets/{sid:[0-9]+}/versions/{vid:[0-9]+}", a.handle(a.updateSetVersion))
	r.Patch("/sets/{sid:[0-9]+}/versions/{vid:[0-9]+}", a.handle(a.updateSetVersion))
	r.Delete("/sets/{sid:[0-9]+}/versions/{vid:[0-9]+}", a.handle(a.setVersions().deleteVersion))
	r.Post("/sets/{sid:[0-9]+}/versions/{vid:[0-9]+}/publish", a.handle(a.publishSetVersion))
	r.Post("/sets/{sid:[0-9]+}/versions/{vid:[0-9]+}/restore", a.handle(a.setVersions().restoreVersion))
	a.numberedMetadataRoutes(r, "/sets", numberedMetadata{idParam: "sid",
		get: versionMetadata(a.res.Query().SetVersion, a.res.SetVersion().Metadata), put: a.res.Mutation().UploadSetMetadata})
}

// setSorts maps the sort parameter's values onto the resolver's; a set's
// name is its title.
var setSorts = map[string]graph.SetSort{
	"title": graph.SetSortTitle, "-title": graph.SetSortTitleDesc,
	"name": graph.SetSortTitle, "-name": graph.SetSortTitleDesc,
	"created_at": graph.SetSortCreatedAt, "-created_at": graph.SetSortCreatedAtDesc,
	"updated_at": graph.SetSortUpdatedAt, "-updated_at": graph.SetSortUpdatedAtDesc,
}

// setSortRels are the Link sort relations of the set lists.
var setSortRels = []sortRel{
	{"name", "title"}, {"name-desc", "-title"}, {"recently-added", "-created_at"}, {"recently-updated", "-updated_at"},
}

// setListEntry renders a published set in the set lists' shape.
func (a *API) setListEntry(r *http.Request, s *ent.Set, ex expansions) (any, error) {
	js, err := a.renderSet(r, s, nil, false)
	if err != nil {
		return nil, err
	}
	if ex["list"] {
		return js, nil
	}
	return setSummary{ID: s.ID, URL: js.URL, Type: js.Type, Title: js.Title, FirstPublishedAt: s.FirstPublishedAt, PublishedAt: s.PublishedAt,
		Deprecated: js.Deprecated}, nil
}

func (a *API) listSets(drafts bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !drafts && datasetListUsesEngine(r, true) {
			return a.searchList(w, r, search.TypeSet, expandList, setSortRels, func(r *http.Request, e graph.CatalogEntry, ex expansions) (any, error) {
				return a.setListEntry(r, e.Set, ex)
			})
		}
		q := queryOf(r)
		page, size, err := q.paging()
		if err != nil {
			return err
		}
		var sort *graph.SetSort
		if s := q.v.Get("sort"); s != "" {
			ss, ok := setSorts[s]
			if !ok {
				return apperr.Field("sort", "Select a valid choice: title, -title, name, -name, created_at, -created_at, updated_at or -updated_at.")
			}
			sort = &ss
		}
		ex, err := expandOf(r, expandList)
		if err != nil {
			return err
		}
		p, err := a.res.Query().SetSearch(r.Context(), q.strPtr("q"), &drafts, sort, page, size)
		if err != nil {
			return err
		}
		body := make([]any, 0, len(p.Items))
		for _, s := range p.Items {
			var v *ent.SetVersion
			if drafts {
				if v, err = a.res.Set().DraftVersion(r.Context(), s); err != nil {
					return err
				}
			}
			js, err := a.renderSet(r, s, v, false)
			if err != nil {
				return err
			}
			if ex["list"] {
				body = append(body, js)
				continue
			}
			sum := setSummary{ID: s.ID, URL: js.URL, Type: js.Type, Title: js.Title, FirstPublishedAt: s.FirstPublishedAt, PublishedAt: s.PublishedAt,
				IsStarred: js.IsStarred, Deprecated: js.Deprecated}
			if drafts {
				sum.PublishedAt = nil
			}
			body = append(body, sum)
		}
		a.writePage(w, r, pageResult{page: p.PageInfo.Page, size: p.PageInfo.PageSize, total: p.PageInfo.Total, count: len(body)}, setSortRels, body)
		return nil
	}
}

// setMemberURL matches the URL of a layer or table given as a set member.
var setMemberURL = regexp.MustCompile(`/(?:layers|tables)/([0-9]+)/?$`)

// setBody is POST /sets/ and PUT .../versions/{vid}/: the set JSON, of
// which title, description, group and items are read.
type setBody struct {
	Title       *string         `json:"title"`
	Description *string         `json:"description"`
	Group       json.RawMessage `json:"group"`
	Items       json.RawMessage `json:"items"`
	catalogueBody
}

// items reads the members: a list of layer or table URLs, ids, or member
// objects (as Expand: items renders them). Absent or null: nil.
func (b setBody) items() ([]int, error) {
	if len(b.Items) == 0 || string(b.Items) == "null" {
		return nil, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(b.Items, &raws); err != nil {
		return nil, apperr.Field("items", "Give a list of layer or table URLs.")
	}
	ids := make([]int, 0, len(raws))
	for i, raw := range raws {
		id, problem := memberRef(raw)
		if problem != "" {
			return nil, apperr.Field("items", fmt.Sprintf("Item %d (%s): %s", i+1, raw, problem))
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// memberRef reads one member: an id, or the URL of a layer or table
// (alone or as the url of an object). Other URLs (datasources, documents,
// versions) are refused.
func memberRef(raw json.RawMessage) (int, string) {
	const want = "give the URL of a layer or table, or its id."
	var obj struct {
		ID  int    `json:"id"`
		URL string `json:"url"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		if obj.URL == "" {
			if obj.ID > 0 {
				return obj.ID, ""
			}
			return 0, want
		}
		raw, _ = json.Marshal(obj.URL)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if m := setMemberURL.FindStringSubmatch(s); m != nil {
			if id, err := strconv.Atoi(m[1]); err == nil && id > 0 {
				return id, ""
			}
		} else if id, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && id > 0 {
			return id, ""
		}
		return 0, want
	}
	var n int
	if json.Unmarshal(raw, &n) == nil && n > 0 {
		return n, ""
	}
	return 0, want
}

func (a *API) createSet(w http.ResponseWriter, r *http.Request) error {
	var body setBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	ids, err := body.items()
	if err != nil {
		return err
	}
	tags, cats, lic, err := body.catalogueInput()
	if err != nil {
		return err
	}
	in := graph.CreateSetInput{Title: ptrString(body.Title), Description: body.Description, Items: ids,
		Tags: tags, Categories: cats, LicenseID: lic.Value()}
	if in.GroupID, err = ownerGroup(body.Group); err != nil {
		return err
	}
	v, err := a.res.Mutation().CreateSet(r.Context(), in)
	if err != nil {
		return err
	}
	js, err := a.setAsOf(r, v.SetID, v)
	if err != nil {
		return err
	}
	w.Header().Set("Location", js.URL)
	writeJSON(w, http.StatusCreated, js)
	return nil
}

// setAsOf renders set setID as of version v (nil: its default version),
// honouring Expand: items.
func (a *API) setAsOf(r *http.Request, setID int, v *ent.SetVersion) (setJSON, error) {
	ex, err := expandOf(r, expandSetItems)
	if err != nil {
		return setJSON{}, err
	}
	s, err := a.res.Query().Set(r.Context(), setID)
	if err != nil {
		return setJSON{}, err
	}
	return a.renderSet(r, s, v, ex["items"])
}

func (a *API) writeSet(w http.ResponseWriter, r *http.Request, setID int, v *ent.SetVersion, status int, location bool) error {
	js, err := a.setAsOf(r, setID, v)
	if err != nil {
		return err
	}
	writeAsOf(w, js, js.ThisVersion, status, location)
	return nil
}

func (a *API) updateSetVersion(w http.ResponseWriter, r *http.Request) error {
	sid, vid, err := versionPath(r, "sid")
	if err != nil {
		return err
	}
	var body setBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	ids, err := body.items()
	if err != nil {
		return err
	}
	tags, cats, lic, err := body.catalogueInput()
	if err != nil {
		return err
	}
	v, err := a.res.Mutation().UpdateSetDraft(r.Context(), sid, vid, graph.UpdateSetVersionInput{
		Title: body.Title, Description: body.Description, Items: ids, Tags: tags, Categories: cats, LicenseID: lic})
	if err != nil {
		return err
	}
	return a.writeSet(w, r, sid, v, http.StatusOK, false)
}

func (a *API) publishSetVersion(w http.ResponseWriter, r *http.Request) error {
	sid, vid, err := versionPath(r, "sid")
	if err != nil {
		return err
	}
	g, err := a.res.Mutation().PublishSetVersion(r.Context(), sid, vid)
	if err != nil {
		return err
	}
	js, err := a.renderPublish(r, g)
	if err != nil {
		return err
	}
	w.Header().Set("Location", js.URL)
	writeJSON(w, http.StatusCreated, js)
	return nil
}

// setVersions is the version routes of sets.
func (a *API) setVersions() datasetRoutes[int, ent.Set, ent.SetVersion, setVersionJSON] {
	return datasetRoutes[int, ent.Set, ent.SetVersion, setVersionJSON]{
		key:       func(r *http.Request) (int, error) { return pathID(r, "sid") },
		noun:      func(id int) string { return fmt.Sprintf("Set %d", id) },
		load:      a.res.Query().Set,
		draft:     a.res.Set().DraftVersion,
		published: a.res.Set().PublishedVersion,
		byID:      a.res.Query().SetVersion,
		list:      a.res.Query().SetVersions,
		listed: func(r *http.Request, s *ent.Set, v *ent.SetVersion) (setVersionJSON, error) {
			return a.links(r).setVersion(s.ID, v), nil
		},
		create:  a.res.Mutation().CreateSetDraft,
		restore: a.res.Mutation().RestoreSetVersion,
		write: func(w http.ResponseWriter, r *http.Request, v *ent.SetVersion, status int, location bool) error {
			return a.writeSet(w, r, v.SetID, v, status, location)
		},
		show:          func(r *http.Request, id int) (any, error) { return a.setAsOf(r, id, nil) },
		viewed:        func(id int) { a.res.Popularity.View(popularity.Set, id) },
		remove:        a.res.Mutation().DeleteSet,
		removeVersion: a.res.Mutation().DeleteSetDraft,
	}
}
