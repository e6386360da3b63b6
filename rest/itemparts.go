package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
)

// itemAttachmentRoutes serves …/attachments/: documents attached to an item.
func (a *API) itemAttachmentRoutes(r chi.Router) {
	r.Get(itemPath+"/attachments", a.handle(a.listItemAttachments))
	r.Post(itemPath+"/attachments", a.handle(a.addItemAttachment))
	r.Get(itemPath+"/attachments/{did:[0-9]+}", a.handle(a.getItemAttachment))
	r.Delete(itemPath+"/attachments/{did:[0-9]+}", a.handle(a.removeItemAttachment))
}

// itemAttachmentJSON is one attachment, in the shape existing clients read:
// url_download and document {title, extension, file_size_formatted}.
type itemAttachmentJSON struct {
	ID          int                `json:"id"`
	URL         string             `json:"url"`
	URLDownload string             `json:"url_download"`
	Document    attachmentDocument `json:"document"`
}

type attachmentDocument struct {
	ID                int    `json:"id"`
	URL               string `json:"url"`
	Title             string `json:"title"`
	Extension         string `json:"extension"`
	FileSize          int64  `json:"file_size"`
	FileSizeFormatted string `json:"file_size_formatted"`
}

func (a *API) renderAttachment(r *http.Request, cid string, d *ent.Document) (itemAttachmentJSON, error) {
	js, err := a.renderDocument(r, d, nil, false)
	if err != nil {
		return itemAttachmentJSON{}, err
	}
	return itemAttachmentJSON{
		ID: d.ID, URL: a.links(r).api("items/%s/attachments/%d/", cid, d.ID), URLDownload: js.URLDownload,
		Document: attachmentDocument{ID: d.ID, URL: js.URL, Title: js.Name, Extension: js.Extension,
			FileSize: js.FileSize, FileSizeFormatted: js.FileSizeFormatted},
	}, nil
}

func (a *API) listItemAttachments(w http.ResponseWriter, r *http.Request) error {
	cid := chi.URLParam(r, "cid")
	it, err := a.res.Query().CatalogItem(r.Context(), cid)
	if err != nil {
		return err
	}
	docs, err := a.res.CatalogItem().Attachments(r.Context(), it)
	if err != nil {
		return err
	}
	out := make([]itemAttachmentJSON, 0, len(docs))
	for _, d := range docs {
		js, err := a.renderAttachment(r, cid, d)
		if err != nil {
			return err
		}
		out = append(out, js)
	}
	return writeList(a, w, r, out)
}

var documentURL = regexp.MustCompile(`/documents/([0-9]+)/?$`)

func (a *API) addItemAttachment(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Document json.RawMessage `json:"document"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	cid := chi.URLParam(r, "cid")
	did, problem := idRef(body.Document, documentURL)
	if problem != "" {
		// Authenticate first: an anonymous caller learns nothing from 400s.
		if _, err := a.res.Mutation().AddCatalogItemAttachment(r.Context(), cid, 0); apperr.CodeOf(err) != apperr.Invalid {
			return err
		}
		return apperr.Field("document", problem)
	}
	d, err := a.res.Mutation().AddCatalogItemAttachment(r.Context(), cid, did)
	if err != nil {
		return err
	}
	js, err := a.renderAttachment(r, cid, d)
	if err != nil {
		return err
	}
	w.Header().Set("Location", js.URL)
	writeJSON(w, http.StatusCreated, js)
	return nil
}

func (a *API) getItemAttachment(w http.ResponseWriter, r *http.Request) error {
	did, err := pathID(r, "did")
	if err != nil {
		return err
	}
	cid := chi.URLParam(r, "cid")
	d, err := a.res.ItemAttachment(r.Context(), cid, did)
	if err != nil {
		return err
	}
	js, err := a.renderAttachment(r, cid, d)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, js)
	return nil
}

func (a *API) removeItemAttachment(w http.ResponseWriter, r *http.Request) error {
	did, err := pathID(r, "did")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().RemoveCatalogItemAttachment(r.Context(), chi.URLParam(r, "cid"), did); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// itemGeotagRoutes serves …/geotags/: named places of an item.
func (a *API) itemGeotagRoutes(r chi.Router) {
	r.Get(itemPath+"/geotags", a.handle(a.listItemGeotags))
	r.Post(itemPath+"/geotags", a.handle(a.addItemGeotag))
	r.Get(itemPath+"/geotags/{gid:[0-9]+}", a.handle(a.getItemGeotag))
	r.Delete(itemPath+"/geotags/{gid:[0-9]+}", a.handle(a.removeItemGeotag))
}

// geotagJSON is a named place: {id, url, name, geometry (GeoJSON)}.
type geotagJSON struct {
	ID        int            `json:"id"`
	URL       string         `json:"url"`
	Name      string         `json:"name"`
	Geometry  map[string]any `json:"geometry"`
	CreatedAt time.Time      `json:"created_at"`
}

func (l links) geotag(cid string, g *ent.CatalogItemGeotag) geotagJSON {
	return geotagJSON{ID: g.ID, URL: l.api("items/%s/geotags/%d/", cid, g.ID), Name: g.Name, Geometry: g.Geometry, CreatedAt: g.CreatedAt}
}

func (a *API) listItemGeotags(w http.ResponseWriter, r *http.Request) error {
	cid := chi.URLParam(r, "cid")
	it, err := a.res.Query().CatalogItem(r.Context(), cid)
	if err != nil {
		return err
	}
	gs, err := a.res.CatalogItem().Geotags(r.Context(), it)
	if err != nil {
		return err
	}
	l := a.links(r)
	out := make([]geotagJSON, 0, len(gs))
	for _, g := range gs {
		out = append(out, l.geotag(cid, g))
	}
	return writeList(a, w, r, out)
}

func (a *API) addItemGeotag(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name     string          `json:"name"`
		Geometry json.RawMessage `json:"geometry"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in := graph.GeotagInput{Name: body.Name}
	if len(body.Geometry) > 0 && string(body.Geometry) != "null" {
		if err := json.Unmarshal(body.Geometry, &in.Geometry); err != nil {
			in.Geometry = map[string]any{"type": fmt.Sprintf("not an object: %s", truncate(string(body.Geometry), 40))}
		}
	}
	cid := chi.URLParam(r, "cid")
	g, err := a.res.Mutation().AddCatalogItemGeotag(r.Context(), cid, in)
	if err != nil {
		return err
	}
	js := a.links(r).geotag(cid, g)
	w.Header().Set("Location", js.URL)
	writeJSON(w, http.StatusCreated, js)
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func (a *API) getItemGeotag(w http.ResponseWriter, r *http.Request) error {
	gid, err := pathID(r, "gid")
	if err != nil {
		return err
	}
	cid := chi.URLParam(r, "cid")
	g, err := a.res.ItemGeotag(r.Context(), cid, gid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.links(r).geotag(cid, g))
	return nil
}

func (a *API) removeItemGeotag(w http.ResponseWriter, r *http.Request) error {
	gid, err := pathID(r, "gid")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().RemoveCatalogItemGeotag(r.Context(), chi.URLParam(r, "cid"), gid); err != nil {
		return err
	}
	noContent(w)
	return nil
}
