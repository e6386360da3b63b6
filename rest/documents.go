package rest

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/popularity"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/usage"
)

func (a *API) documentRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeDocumentsRead, auth.ScopeDocumentsWrite))
	r.Get("/documents", a.handle(a.listDocuments))
	r.Post("/documents", a.handle(a.createDocument))
	r.Get("/documents/{did:[0-9]+}", a.handle(a.documentVersions().getDataset))
	r.Delete("/documents/{did:[0-9]+}", a.handle(a.documentVersions().deleteDataset))
	r.Get("/documents/{did:[0-9]+}/download", a.handle(a.downloadDocument))
	r.Get("/documents/{did:[0-9]+}/versions", a.handle(a.documentVersions().listVersions(a)))
	r.Post("/documents/{did:[0-9]+}/versions", a.handle(a.documentVersions().createDraft))
	r.Get("/documents/{did:[0-9]+}/versions/{vid:[0-9]+}", a.handle(a.documentVersions().getVersion))
	r.Put("/documents/{did:[0-9]+}/versions/{vid:[0-9]+}", a.handle(a.updateDocumentVersion))
	r.Patch("/documents/{did:[0-9]+}/versions/{vid:[0-9]+}", a.handle(a.updateDocumentVersion))
	r.Delete("/documents/{did:[0-9]+}/versions/{vid:[0-9]+}", a.handle(a.documentVersions().deleteVersion))
	r.Post("/documents/{did:[0-9]+}/versions/{vid:[0-9]+}/import", a.handle(a.publishDocumentVersion))
	r.Post("/documents/{did:[0-9]+}/versions/{vid:[0-9]+}/restore", a.handle(a.documentVersions().restoreVersion))
	r.Get("/documents/{did:[0-9]+}/versions/{vid:[0-9]+}/download", a.handle(a.downloadDocumentVersion))
	// Documents are versioned like the other datasets (a draft from the
	// published version, published through import/): their metadata too
	// is uploaded to a draft only.
	a.numberedMetadataRoutes(r, "/documents", numberedMetadata{idParam: "did",
		get: versionMetadata(a.res.Query().DocumentVersion, a.res.DocumentVersion().Metadata), put: a.res.Mutation().UploadDocumentMetadata})
}

// documentJSON is the document list form; documentDetail adds the rest.
type documentJSON struct {
	ID                int        `json:"id"`
	Name              string     `json:"name"`
	User              userEmbed  `json:"user"`
	URL               string     `json:"url"`
	URLHTML           string     `json:"url_html"`
	URLDownload       string     `json:"url_download"`
	FirstPublishedAt  *time.Time `json:"first_published_at"`
	PublishedAt       *time.Time `json:"published_at"`
	Extension         string     `json:"extension"`
	FileSize          int64      `json:"file_size"`
	FileSizeFormatted string     `json:"file_size_formatted"`
	// IsStarred: whether the caller starred it (false for anonymous).
	IsStarred bool `json:"is_starred"`
	// Deprecated: its deprecation notice, null when it is not deprecated.
	Deprecated *deprecatedJSON `json:"deprecated"`
}

type documentDetail struct {
	documentJSON
	Description              string         `json:"description"`
	DescriptionHTML          string         `json:"description_html"`
	PublishedVersion         *string        `json:"published_version"`
	LatestVersion            string         `json:"latest_version"`
	ThisVersion              string         `json:"this_version"`
	Data                     map[string]any `json:"data"`
	Categories               []any          `json:"categories"`
	Tags                     []string       `json:"tags"`
	License                  any            `json:"license"`
	Metadata                 any            `json:"metadata"`
	Permissions              string         `json:"permissions"`
	PublishToCatalogServices bool           `json:"publish_to_catalog_services"`
	NumViews                 int64          `json:"num_views"`
	NumDownloads             int64          `json:"num_downloads"`
}

// documentVersionJSON is a document version record.
type documentVersionJSON struct {
	ID          int        `json:"id"`
	URL         string     `json:"url"`
	CreatedAt   time.Time  `json:"created_at"`
	CreatedBy   *userEmbed `json:"created_by"`
	State       string     `json:"state"`
	Name        string     `json:"name"`
	Extension   string     `json:"extension"`
	FileSize    int64      `json:"file_size"`
	URLDownload string     `json:"url_download"`
	PublishedAt *time.Time `json:"published_at"`
}

// formatSize renders a byte count the way people read it: "21.3 MB".
func formatSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}

func (a *API) documentVersion(r *http.Request, d *ent.Document, v *ent.DocumentVersion) (documentVersionJSON, error) {
	l := a.links(r)
	out := documentVersionJSON{
		ID: v.ID, URL: l.api("documents/%d/versions/%d/", d.ID, v.ID), CreatedAt: v.CreatedAt, State: string(v.State),
		Name: v.Name, Extension: v.Extension, FileSize: v.FileSize, PublishedAt: v.PublishedAt,
		URLDownload: l.api("documents/%d/versions/%d/download/", d.ID, v.ID),
	}
	if u, err := a.res.LookupUser(r.Context(), v.CreatedBy); err == nil {
		e := l.userEmbed(u)
		out.CreatedBy = &e
	} else if !ent.IsNotFound(err) {
		return out, err
	}
	return out, nil
}

// renderDocument renders d as of v (nil: its published version, else its
// latest): the list form only, unless detail is set.
func (a *API) renderDocument(r *http.Request, d *ent.Document, v *ent.DocumentVersion, detail bool) (documentDetail, error) {
	ctx := r.Context()
	latest, err := a.res.Document().LatestVersion(ctx, d)
	if err != nil {
		return documentDetail{}, err
	}
	if v == nil {
		if v, err = a.res.Document().PublishedVersion(ctx, d); err != nil {
			return documentDetail{}, err
		}
		if v == nil {
			v = latest
		}
	}
	owner, err := a.res.LookupUser(ctx, d.UserID)
	if err != nil {
		return documentDetail{}, err
	}
	l := a.links(r)
	list := documentJSON{
		ID: d.ID, Name: v.Name, User: l.userEmbed(owner), URL: l.api("documents/%d/", d.ID),
		URLHTML: l.html("documents/%d/", d.ID), URLDownload: l.api("documents/%d/download/", d.ID),
		FirstPublishedAt: d.FirstPublishedAt, PublishedAt: d.PublishedAt, Extension: v.Extension,
		FileSize: v.FileSize, FileSizeFormatted: formatSize(v.FileSize),
		Deprecated: l.deprecated(d.DeprecatedAt, d.DeprecationReason, d.ReplacementType, d.ReplacementID),
	}
	if list.IsStarred, err = a.res.Document().IsStarred(ctx, d); err != nil {
		return documentDetail{}, err
	}
	if !detail {
		return documentDetail{documentJSON: list}, nil
	}
	var pub *string
	if d.PublishedVersionID != nil {
		u := l.api("documents/%d/versions/%d/", d.ID, *d.PublishedVersionID)
		pub = &u
	}
	ds, err := a.res.DocumentDatasource(ctx, v)
	if err != nil {
		return documentDetail{}, err
	}
	var dsURL any
	if ds != nil {
		dsURL = l.api("sources/%d/datasources/%d/", ds.SourceID, ds.ID)
	}
	md, err := a.res.DocumentVersion().Metadata(ctx, v)
	if err != nil {
		return documentDetail{}, err
	}
	versionPath := fmt.Sprintf("documents/%d/versions/%d/", d.ID, v.ID)
	cat, err := a.catalogueOf(r, v.Tags, v.Categories, v.LicenseID)
	if err != nil {
		return documentDetail{}, err
	}
	return documentDetail{
		documentJSON: list, Description: v.Description, DescriptionHTML: htmlParagraphs(v.Description),
		PublishedVersion: pub, LatestVersion: l.api("documents/%d/versions/%d/", d.ID, latest.ID),
		ThisVersion: l.api("%s", versionPath), Data: map[string]any{"datasource": dsURL},
		Categories: cat.categories, Tags: cat.tags, License: cat.license, Metadata: l.metadataRefs(versionPath, md),
		Permissions: l.api("documents/%d/permissions/", d.ID), NumViews: d.NumViews, NumDownloads: d.NumDownloads,
	}, nil
}

func (a *API) listDocuments(w http.ResponseWriter, r *http.Request) error {
	if datasetListUsesEngine(r, false) {
		return a.searchList(w, r, search.TypeDocument, nil, catalogSortRels, func(r *http.Request, e graph.CatalogEntry, _ expansions) (any, error) {
			js, err := a.renderDocument(r, e.Document, nil, false)
			return js.documentJSON, err
		})
	}
	q := queryOf(r)
	page, size, err := q.paging()
	if err != nil {
		return err
	}
	p, err := a.res.Query().DocumentSearch(r.Context(), q.strPtr("q"), page, size)
	if err != nil {
		return err
	}
	out := make([]documentJSON, 0, len(p.Items))
	for _, d := range p.Items {
		js, err := a.renderDocument(r, d, nil, false)
		if err != nil {
			return err
		}
		out = append(out, js.documentJSON)
	}
	a.writePage(w, r, pageResult{page: p.PageInfo.Page, size: p.PageInfo.PageSize, total: p.PageInfo.Total, count: len(out)}, nil, out)
	return nil
}

// documentBody is POST /documents/: name, user (the caller, as a URL) and
// data.datasources, the URL of one document datasource.
type documentBody struct {
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
	User        json.RawMessage `json:"user"`
	Group       json.RawMessage `json:"group"`
	catalogueBody
	Data *struct {
		Datasources json.RawMessage `json:"datasources"`
	} `json:"data"`
}

// datasource reads data.datasources: one reference, or a list of exactly
// one. Absent, it is 0, which the resolver refuses after authenticating.
func (b documentBody) datasource() (int, error) {
	if b.Data == nil || len(b.Data.Datasources) == 0 {
		return 0, nil
	}
	raw := b.Data.Datasources
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		if len(list) != 1 {
			return 0, apperr.Field("data.datasources", "A document is made from exactly one datasource.")
		}
		raw = list[0]
	}
	id, problem := idRef(raw, datasourceURL)
	if problem != "" {
		return 0, apperr.Field("data.datasources", problem)
	}
	return id, nil
}

func (a *API) createDocument(w http.ResponseWriter, r *http.Request) error {
	var body documentBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	dsID, err := body.datasource()
	if err != nil {
		return err
	}
	if len(body.User) > 0 && string(body.User) != "null" {
		uid, problem := idRef(body.User, userURL)
		if problem != "" {
			return apperr.Field("user", problem)
		}
		if me, err := a.res.Query().Me(r.Context()); err == nil && me != nil && uid != me.ID {
			return apperr.Field("user", "Documents are created for the caller: give your own user or none.")
		}
	}
	tags, cats, lic, err := body.catalogueInput()
	if err != nil {
		return err
	}
	in := graph.CreateDocumentInput{Name: ptrString(body.Name), Description: body.Description, DatasourceID: dsID,
		Tags: tags, Categories: cats, LicenseID: lic.Value()}
	if in.GroupID, err = ownerGroup(body.Group); err != nil {
		return err
	}
	v, err := a.res.Mutation().CreateDocument(r.Context(), in)
	if err != nil {
		return err
	}
	return a.writeDocumentVersion(w, r, v, http.StatusCreated, true)
}

func (a *API) writeDocumentVersion(w http.ResponseWriter, r *http.Request, v *ent.DocumentVersion, status int, location bool) error {
	d, err := a.res.DocumentOf(r.Context(), v.DocumentID)
	if err != nil {
		return err
	}
	js, err := a.documentVersion(r, d, v)
	if err != nil {
		return err
	}
	writeAsOf(w, js, js.URL, status, location)
	return nil
}

func (a *API) updateDocumentVersion(w http.ResponseWriter, r *http.Request) error {
	did, vid, err := versionPath(r, "did")
	if err != nil {
		return err
	}
	var body documentBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	tags, cats, lic, err := body.catalogueInput()
	if err != nil {
		return err
	}
	in := graph.UpdateDocumentVersionInput{Name: body.Name, Description: body.Description, Tags: tags, Categories: cats, LicenseID: lic}
	if body.Data != nil && len(body.Data.Datasources) > 0 {
		id, err := body.datasource()
		if err != nil {
			return err
		}
		in.DatasourceID = &id
	}
	v, err := a.res.Mutation().UpdateDocumentVersion(r.Context(), did, vid, in)
	if err != nil {
		return documentError(err)
	}
	return a.writeDocumentVersion(w, r, v, http.StatusOK, false)
}

// documentError gives the document version cases the body the
// specification states: {"error": "..."} for 405 and 409.
func documentError(err error) error {
	e := apperr.As(err)
	if e.Code == apperr.NotAllowed || e.Code == apperr.Conflict {
		return errorBody{e}
	}
	return err
}

// errorBody is an apperr rendered as {"error": message}.
type errorBody struct{ err *apperr.Error }

func (e errorBody) Error() string { return e.err.Error() }

// Unwrap lets apperr.As find the code and message.
func (e errorBody) Unwrap() error { return e.err }

func (a *API) publishDocumentVersion(w http.ResponseWriter, r *http.Request) error {
	did, vid, err := versionPath(r, "did")
	if err != nil {
		return err
	}
	v, err := a.res.Mutation().PublishDocumentVersion(r.Context(), did, vid)
	if err != nil {
		return documentError(err)
	}
	return a.writeDocumentVersion(w, r, v, http.StatusOK, false)
}

func (a *API) downloadDocument(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "did")
	if err != nil {
		return err
	}
	v, err := a.res.DownloadableDocumentVersion(r.Context(), id, nil)
	if err != nil {
		return err
	}
	return a.sendDocumentFile(w, r, v)
}

func (a *API) downloadDocumentVersion(w http.ResponseWriter, r *http.Request) error {
	did, vid, err := versionPath(r, "did")
	if err != nil {
		return err
	}
	v, err := a.res.DownloadableDocumentVersion(r.Context(), did, &vid)
	if err != nil {
		return err
	}
	return a.sendDocumentFile(w, r, v)
}

// sendDocumentFile streams a version's file as an attachment.
func (a *API) sendDocumentFile(w http.ResponseWriter, r *http.Request, v *ent.DocumentVersion) error {
	rc, attrs, err := a.res.Blobs.Open(r.Context(), v.FileKey)
	if err != nil {
		return err
	}
	defer rc.Close()
	a.res.Popularity.Download(popularity.Document, v.DocumentID)
	usage.Served(w, usage.Document, v.DocumentID, usage.Download, usage.Amounts{Downloads: 1})
	h := w.Header()
	h.Set("Content-Type", v.ContentType)
	h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", v.FileName))
	h.Set("Content-Length", strconv.FormatInt(attrs.Size, 10))
	w.WriteHeader(http.StatusOK)
	_, err = io.Copy(w, rc)
	if err != nil {
		a.logger.WarnContext(r.Context(), "sending a document", "version", v.ID, "err", err)
	}
	return nil
}

// htmlParagraphs renders plain text as escaped HTML paragraphs.
func htmlParagraphs(s string) string {
	if s == "" {
		return ""
	}
	var out []string
	for _, p := range splitParagraphs(s) {
		out = append(out, "<p>"+html.EscapeString(p)+"</p>")
	}
	return strings.Join(out, "\n")
}

func splitParagraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// documentVersions is the version routes of documents (their versions are
// read by id only).
func (a *API) documentVersions() datasetRoutes[int, ent.Document, ent.DocumentVersion, documentVersionJSON] {
	return datasetRoutes[int, ent.Document, ent.DocumentVersion, documentVersionJSON]{
		key:       func(r *http.Request) (int, error) { return pathID(r, "did") },
		noun:      func(id int) string { return fmt.Sprintf("Document %d", id) },
		load:      a.res.Query().Document,
		draft:     a.res.Document().DraftVersion,
		published: a.res.Document().PublishedVersion,
		byID:      a.res.Query().DocumentVersion,
		list:      a.res.Query().DocumentVersions,
		listed:    a.documentVersion,
		create:    a.res.Mutation().CreateDocumentDraft,
		restore:   a.res.Mutation().RestoreDocumentVersion,
		write:     a.writeDocumentVersion,
		show: func(r *http.Request, id int) (any, error) {
			d, err := a.res.Query().Document(r.Context(), id)
			if err != nil {
				return nil, err
			}
			return a.renderDocument(r, d, nil, true)
		},
		viewed:        func(id int) { a.res.Popularity.View(popularity.Document, id) },
		remove:        a.res.Mutation().DeleteDocument,
		removeVersion: a.res.Mutation().DeleteDocumentVersion,
		refusal:       documentError,
	}
}
