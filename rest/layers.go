package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/popularity"
	"github.com/geopub/geopub/internal/search"
)

// layerRoutes serves /layers/ and /tables/: tables share the layer model.
func (a *API) layerRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeLayersRead, auth.ScopeLayersWrite))
	for _, kind := range []string{"layers", "tables"} {
		typ := layer.TypeLayer
		if kind == "tables" {
			typ = layer.TypeTable
		}
		base := "/" + kind
		r.Get(base, a.handle(a.listLayers(typ, false)))
		r.Get(base+"/drafts", a.handle(a.listLayers(typ, true)))
		r.Post(base, a.handle(a.createLayer))
		r.Get(base+"/{lid:[0-9]+}", a.handle(a.layerVersions().getDataset))
		r.Delete(base+"/{lid:[0-9]+}", a.handle(a.layerVersions().deleteDataset))
		r.Get(base+"/{lid:[0-9]+}/versions", a.handle(a.layerVersions().listVersions(a)))
		r.Post(base+"/{lid:[0-9]+}/versions", a.handle(a.layerVersions().createDraft))
		r.Get(base+"/{lid:[0-9]+}/versions/{vid:[0-9]+|draft|published}", a.handle(a.layerVersions().getVersion))
		r.Put(base+"/{lid:[0-9]+}/versions/{vid:[0-9]+}", a.handle(a.updateVersion))
		r.Patch(base+"/{lid:[0-9]+}/versions/{vid:[0-9]+}", a.handle(a.updateVersion))
		r.Delete(base+"/{lid:[0-9]+}/versions/{vid:[0-9]+}", a.handle(a.layerVersions().deleteVersion))
		r.Post(base+"/{lid:[0-9]+}/versions/import", a.handle(a.startUpdate))
		r.Post(base+"/{lid:[0-9]+}/versions/{vid:[0-9]+}/import", a.handle(a.importVersion))
		r.Post(base+"/{lid:[0-9]+}/versions/{vid:[0-9]+}/publish", a.handle(a.publishVersion))
		r.Post(base+"/{lid:[0-9]+}/versions/{vid:[0-9]+}/restore", a.handle(a.restoreVersion))
		r.Get(base+"/{lid:[0-9]+}/diff", a.handle(a.layerDiff(typ)))
		a.layerMetadataRoutes(r, base)
	}
	r.Get("/publish", a.handle(a.listPublish))
	r.Post("/publish", a.handle(a.createPublish))
	r.Get("/publish/{pid:[0-9]+}", a.handle(a.getPublish))
	r.Delete("/publish/{pid:[0-9]+}", a.handle(a.cancelPublish))
}

// versionJSON is a version record.
type versionJSON struct {
	ID        int       `json:"id"`
	URL       string    `json:"url"`
	Status    string    `json:"status"`
	State     string    `json:"state"`
	CreatedAt time.Time `json:"created_at"`
	CreatedBy int       `json:"created_by"`
	Reference string    `json:"reference"`
	Progress  float64   `json:"progress"`
	Error     *string   `json:"error"`
}

// layerJSON is a layer or table as of one version.
type layerJSON struct {
	ID               int         `json:"id"`
	URL              string      `json:"url"`
	URLHTML          string      `json:"url_html"`
	Type             string      `json:"type"`
	Kind             string      `json:"kind"`
	Name             string      `json:"name"`
	Description      string      `json:"description"`
	FirstPublishedAt *time.Time  `json:"first_published_at"`
	PublishedAt      *time.Time  `json:"published_at"`
	CreatedAt        time.Time   `json:"created_at"`
	UpdatedAt        time.Time   `json:"updated_at"`
	PublishedVersion *string     `json:"published_version"`
	LatestVersion    string      `json:"latest_version"`
	ThisVersion      string      `json:"this_version"`
	Version          versionJSON `json:"version"`
	Data             layerData   `json:"data"`
	Permissions      string      `json:"permissions"`
	Tags             []string    `json:"tags"`
	Categories       []any       `json:"categories"`
	License          any         `json:"license"`
	Metadata         any         `json:"metadata"`
	NumViews         int64       `json:"num_views"`
	NumDownloads     int64       `json:"num_downloads"`
	// IsStarred: whether the caller starred it (false for anonymous).
	IsStarred bool `json:"is_starred"`
	// Deprecated: its deprecation notice, null when it is not deprecated.
	Deprecated *deprecatedJSON `json:"deprecated"`
	// Autoupdate: re-imported and published when a scan finds its
	// datasources changed; AutoupdateSchedule scans their sources.
	Autoupdate         bool    `json:"autoupdate"`
	AutoupdateSchedule *string `json:"autoupdate_schedule"`
}

type layerData struct {
	Datasources        []map[string]int   `json:"datasources"`
	CRS                any                `json:"crs"`
	GeometryField      string             `json:"geometry_field"`
	GeometryType       string             `json:"geometry_type"`
	Fields             []schematype.Field `json:"fields"`
	PrimaryKeyFields   []string           `json:"primary_key_fields"`
	FeatureCount       int64              `json:"feature_count"`
	EmptyGeometryCount int64              `json:"empty_geometry_count"`
	Extent             any                `json:"extent"`
	// Grid and raster layers only.
	RasterResolution *float64          `json:"raster_resolution,omitempty"`
	Bands            []schematype.Band `json:"bands,omitempty"`
	Width            int               `json:"width,omitempty"`
	Height           int               `json:"height,omitempty"`
}

func kindPath(l *ent.Layer) string {
	if l.Type == layer.TypeTable {
		return "tables"
	}
	return "layers"
}

func (l links) layerVersion(ly *ent.Layer, v *ent.LayerVersion) versionJSON {
	return versionJSON{
		ID: v.ID, URL: l.api("%s/%d/versions/%d/", kindPath(ly), ly.ID, v.ID), Status: string(v.Status), State: string(v.State),
		CreatedAt: v.CreatedAt, CreatedBy: v.CreatedBy, Reference: v.Reference, Progress: v.Progress, Error: nullable(v.ImportError),
	}
}

// layer renders ly as of version v; latest is the draft or published
// version.
func (l links) layer(ly *ent.Layer, v, latest *ent.LayerVersion) layerJSON {
	kp := kindPath(ly)
	var pub *string
	if ly.PublishedVersionID != nil {
		u := l.api("%s/%d/versions/%d/", kp, ly.ID, *ly.PublishedVersionID)
		pub = &u
	}
	ds := make([]map[string]int, 0, len(v.DatasourceIds))
	for _, id := range v.DatasourceIds {
		ds = append(ds, map[string]int{"id": id})
	}
	var crs any
	if v.Crs != "" {
		crs = v.Crs
		if l.version != "v1" {
			crs = map[string]any{"id": v.Crs, "name": v.Crs, "url_external": nil}
		}
	}
	fields, pk := v.Fields, v.PrimaryKeyFields
	if fields == nil {
		fields = []schematype.Field{}
	}
	if pk == nil {
		pk = []string{}
	}
	return layerJSON{
		ID: ly.ID, URL: l.api("%s/%d/", kp, ly.ID), URLHTML: l.html("%s/%d/", kp, ly.ID),
		Type: string(ly.Type), Kind: string(ly.Kind), Name: v.Name, Description: v.Description,
		FirstPublishedAt: ly.FirstPublishedAt, PublishedAt: ly.PublishedAt, CreatedAt: ly.CreatedAt, UpdatedAt: v.UpdatedAt,
		PublishedVersion: pub, LatestVersion: l.api("%s/%d/versions/%d/", kp, ly.ID, latest.ID),
		ThisVersion: l.api("%s/%d/versions/%d/", kp, ly.ID, v.ID), Version: l.layerVersion(ly, v),
		Data: layerData{
			Datasources: ds, CRS: crs, GeometryField: v.GeometryField, GeometryType: v.GeometryType,
			Fields: fields, PrimaryKeyFields: pk, FeatureCount: v.FeatureCount, EmptyGeometryCount: v.EmptyGeometryCount,
			Extent:           extentPolygon(v.Extent),
			RasterResolution: v.RasterResolution, Bands: v.Bands, Width: v.RasterWidth, Height: v.RasterHeight,
		},
		Permissions: l.api("%s/%d/permissions/", kp, ly.ID),
		Tags:        []string{}, Categories: []any{},
		NumViews: ly.NumViews, NumDownloads: ly.NumDownloads,
		Autoupdate: ly.Autoupdate, AutoupdateSchedule: nullable(ly.AutoupdateSchedule),
		Deprecated: l.deprecated(ly.DeprecatedAt, ly.DeprecationReason, ly.ReplacementType, ly.ReplacementID),
	}
}

// renderLayer renders a layer as of v (nil: its default version).
func (a *API) renderLayer(r *http.Request, ly *ent.Layer, v *ent.LayerVersion) (layerJSON, error) {
	latest, err := a.res.Layer().LatestVersion(r.Context(), ly)
	if err != nil {
		return layerJSON{}, err
	}
	if v == nil {
		if v, err = a.res.Layer().PublishedVersion(r.Context(), ly); err != nil {
			return layerJSON{}, err
		}
		if v == nil {
			v = latest
		}
	}
	js := a.links(r).layer(ly, v, latest)
	md, err := a.res.LayerVersion().Metadata(r.Context(), v)
	if err != nil {
		return layerJSON{}, err
	}
	js.Metadata = a.links(r).metadataRefs(fmt.Sprintf("%s/%d/versions/%d/", kindPath(ly), ly.ID, v.ID), md)
	cat, err := a.catalogueOf(r, v.Tags, v.Categories, v.LicenseID)
	if err != nil {
		return layerJSON{}, err
	}
	js.Tags, js.Categories, js.License = cat.tags, cat.categories, cat.license
	if js.IsStarred, err = a.res.Layer().IsStarred(r.Context(), ly); err != nil {
		return layerJSON{}, err
	}
	return js, nil
}

// layerListEntry renders a layer in the layer lists' shape: the summary,
// or the full layer with Expand: list.
func (a *API) layerListEntry(r *http.Request, ly *ent.Layer, ex expansions) (any, error) {
	js, err := a.renderLayer(r, ly, nil)
	if err != nil {
		return nil, err
	}
	if ex["list"] {
		return js, nil
	}
	return map[string]any{"id": ly.ID, "url": js.URL, "type": js.Type, "name": js.Name,
		"first_published_at": ly.FirstPublishedAt, "published_at": ly.PublishedAt, "is_starred": js.IsStarred}, nil
}

func (a *API) listLayers(typ layer.Type, drafts bool) handlerFunc {
	// /layers/ holds layers and tables (api-shapes §2), /tables/ tables.
	types, engine := []layer.Type(nil), []search.Type{search.TypeLayer, search.TypeTable}
	if typ == layer.TypeTable {
		types, engine = []layer.Type{layer.TypeTable}, []search.Type{search.TypeTable}
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		if !drafts && datasetListUsesEngine(r, false) {
			return a.searchList(w, r, engine[0], expandList, catalogSortRels, func(r *http.Request, e graph.CatalogEntry, ex expansions) (any, error) {
				return a.layerListEntry(r, e.Layer, ex)
			}, engine[1:]...)
		}
		q := queryOf(r)
		page, size, err := q.paging()
		if err != nil {
			return err
		}
		kinds, err := q.oneOf("kind", catalogKinds...)
		if err != nil {
			return err
		}
		ex, err := expandOf(r, expandList)
		if err != nil {
			return err
		}
		p, err := a.res.ListLayers(r.Context(), graph.LayerList{Types: types, Kinds: kinds, Q: q.strPtr("q"), Drafts: drafts, Page: page, PageSize: size})
		if err != nil {
			return err
		}
		body := make([]any, 0, len(p.Items))
		for _, ly := range p.Items {
			js, err := a.layerListEntry(r, ly, ex)
			if err != nil {
				return err
			}
			body = append(body, js)
		}
		a.writePage(w, r, pageResult{page: p.PageInfo.Page, size: p.PageInfo.PageSize, total: p.PageInfo.Total, count: len(body)}, nil, body)
		return nil
	}
}

var datasourceURL = regexp.MustCompile(`/datasources/([0-9]+)/?$`)

// layerBody is POST /layers/ and PUT .../versions/{vid}/.
type layerBody struct {
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
	Reference   *string         `json:"reference"`
	Group       json.RawMessage `json:"group"`
	catalogueBody
	Data *struct {
		Datasources []json.RawMessage `json:"datasources"`
		// PrimaryKeyFields replaces a draft's key; [] clears it.
		PrimaryKeyFields *[]string `json:"primary_key_fields"`
	} `json:"data"`
	Autoupdate         *bool   `json:"autoupdate"`
	AutoupdateSchedule *string `json:"autoupdate_schedule"`
}

func (b layerBody) datasourceIDs() ([]int, error) {
	if b.Data == nil || b.Data.Datasources == nil {
		return nil, nil
	}
	ids := []int{}
	for _, raw := range b.Data.Datasources {
		id, problem := idRef(raw, datasourceURL)
		if problem != "" {
			return nil, apperr.Field("data.datasources", problem)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func (a *API) createLayer(w http.ResponseWriter, r *http.Request) error {
	var body layerBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	ids, err := body.datasourceIDs()
	if err != nil {
		return err
	}
	tags, cats, lic, err := body.catalogueInput()
	if err != nil {
		return err
	}
	in := graph.CreateLayerInput{Name: ptrString(body.Name), Description: body.Description, DatasourceIDs: ids,
		Tags: tags, Categories: cats, LicenseID: lic.Value()}
	if in.GroupID, err = ownerGroup(body.Group); err != nil {
		return err
	}
	if err := a.checkAutoupdate(r, 0, body); err != nil {
		return err
	}
	v, err := a.res.Mutation().CreateLayer(r.Context(), in)
	if err != nil {
		return err
	}
	if err := a.applyAutoupdate(r, v.LayerID, body); err != nil {
		return err
	}
	return a.writeVersion(w, r, v.LayerID, v, http.StatusCreated, true)
}

// writeVersion renders the layer as of v with status; with location the
// Location header points at the version.
func (a *API) writeVersion(w http.ResponseWriter, r *http.Request, layerID int, v *ent.LayerVersion, status int, location bool) error {
	ly, err := a.res.LayerOf(r.Context(), layerID)
	if err != nil {
		return err
	}
	js, err := a.renderLayer(r, ly, v)
	if err != nil {
		return err
	}
	writeAsOf(w, js, js.ThisVersion, status, location)
	return nil
}

func (a *API) updateVersion(w http.ResponseWriter, r *http.Request) error {
	lid, vid, err := versionPath(r, "lid")
	if err != nil {
		return err
	}
	var body layerBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	ids, err := body.datasourceIDs()
	if err != nil {
		return err
	}
	tags, cats, lic, err := body.catalogueInput()
	if err != nil {
		return err
	}
	if err := a.checkAutoupdate(r, lid, body); err != nil {
		return err
	}
	in := graph.UpdateLayerVersionInput{
		Name: body.Name, Description: body.Description, Reference: body.Reference, DatasourceIDs: ids,
		Tags: tags, Categories: cats, LicenseID: lic}
	if body.Data != nil && body.Data.PrimaryKeyFields != nil {
		in.PrimaryKeyFields = append([]string{}, *body.Data.PrimaryKeyFields...)
	}
	v, err := a.res.Mutation().UpdateLayerVersion(r.Context(), lid, vid, in)
	if err != nil {
		return err
	}
	if err := a.applyAutoupdate(r, lid, body); err != nil {
		return err
	}
	return a.writeVersion(w, r, lid, v, http.StatusOK, false)
}

func (a *API) importVersion(w http.ResponseWriter, r *http.Request) error {
	lid, vid, err := versionPath(r, "lid")
	if err != nil {
		return err
	}
	v, err := a.res.Mutation().ImportLayerVersion(r.Context(), lid, vid)
	if err != nil {
		return err
	}
	return a.writeVersion(w, r, lid, v, http.StatusAccepted, false)
}

// startUpdate is the Python client's start_update: a new draft from the
// layer's datasources, its import started; 202 with the layer as of the
// draft (no Location, so the client reads the body).
func (a *API) startUpdate(w http.ResponseWriter, r *http.Request) error {
	lid, err := pathID(r, "lid")
	if err != nil {
		return err
	}
	if err := decodeOptionalJSON(r, &struct{}{}); err != nil {
		return err
	}
	v, err := a.res.Mutation().UpdateLayerFromDatasources(r.Context(), lid)
	if err != nil {
		return err
	}
	return a.writeVersion(w, r, lid, v, http.StatusAccepted, false)
}

// publishJSON is a publish group.
type publishJSON struct {
	ID              int        `json:"id"`
	URL             string     `json:"url"`
	State           string     `json:"state"`
	CreatedAt       time.Time  `json:"created_at"`
	CreatedBy       int        `json:"created_by"`
	PublishStrategy string     `json:"publish_strategy"`
	ErrorStrategy   string     `json:"error_strategy"`
	PublishAt       *time.Time `json:"publish_at"`
	Items           []string   `json:"items"`
	Reference       string     `json:"reference"`
	Error           *string    `json:"error"`
}

func (a *API) publishVersion(w http.ResponseWriter, r *http.Request) error {
	lid, vid, err := versionPath(r, "lid")
	if err != nil {
		return err
	}
	g, err := a.res.Mutation().PublishLayerVersion(r.Context(), lid, vid)
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

// restoreVersion answers POST …/versions/{vid}/restore: 201 with the
// layer as of the new draft, which starts as version vid is.
func (a *API) restoreVersion(w http.ResponseWriter, r *http.Request) error {
	lid, vid, err := versionPath(r, "lid")
	if err != nil {
		return err
	}
	v, err := a.res.Mutation().RestoreLayerVersion(r.Context(), lid, vid)
	if err != nil {
		return err
	}
	return a.writeVersion(w, r, v.LayerID, v, http.StatusCreated, true)
}

func (a *API) renderPublish(r *http.Request, g *ent.PublishGroup) (publishJSON, error) {
	return a.renderPublishItems(r, g, true)
}

// renderPublishItems renders a publish group; unless strict, versions
// deleted since (with their layer) are left out of its items instead of
// making it NOT_FOUND.
func (a *API) renderPublishItems(r *http.Request, g *ent.PublishGroup, strict bool) (publishJSON, error) {
	vs, err := a.res.PublishVersions(r.Context(), []*ent.PublishGroup{g})
	if err != nil {
		return publishJSON{}, err
	}
	return a.renderPublishWith(r, g, strict, vs)
}

func (a *API) renderPublishWith(r *http.Request, g *ent.PublishGroup, strict bool, vs graph.PublishGroupVersions) (publishJSON, error) {
	l := a.links(r)
	items := make([]string, 0, len(g.VersionIds)+len(g.SetVersions))
	for _, vid := range g.VersionIds {
		v, ok := vs.Layers[vid]
		if !ok && !strict {
			continue
		}
		if !ok {
			return publishJSON{}, apperr.New(apperr.NotFound, "Version %d of publish %d no longer exists.", vid, g.ID)
		}
		items = append(items, l.api("%s/%d/versions/%d/", kindPath(v.Edges.Layer), v.LayerID, v.ID))
	}
	for _, id := range g.SetVersions {
		if v := vs.Sets[id]; v != nil {
			items = append(items, l.api("sets/%d/versions/%d/", v.SetID, v.ID))
		}
	}
	return publishJSON{
		ID: g.ID, URL: l.api("publish/%d/", g.ID), State: string(g.State), CreatedAt: g.CreatedAt, CreatedBy: g.CreatedBy,
		PublishStrategy: string(g.PublishStrategy), ErrorStrategy: string(g.ErrorStrategy), PublishAt: g.PublishAt,
		Items: items, Reference: g.Reference, Error: nullable(strings.TrimSpace(g.Error)),
	}, nil
}

func (a *API) getPublish(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "pid")
	if err != nil {
		return err
	}
	g, err := a.res.Query().PublishGroup(r.Context(), id)
	if err != nil {
		return err
	}
	js, err := a.renderPublish(r, g)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, js)
	return nil
}

var versionURL = regexp.MustCompile(`/(?:layers|tables)/[0-9]+/versions/([0-9]+)/?$`)

// publishBody is POST /publish/: version URLs to publish together.
type publishBody struct {
	Items           []string `json:"items"`
	PublishStrategy string   `json:"publish_strategy"`
	ErrorStrategy   string   `json:"error_strategy"`
	Reference       *string  `json:"reference"`
}

func (a *API) createPublish(w http.ResponseWriter, r *http.Request) error {
	var body publishBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	if body.PublishStrategy != "" && body.PublishStrategy != "together" {
		return apperr.Field("publish_strategy", "Only together is supported: the items publish all at once or not at all.")
	}
	if body.ErrorStrategy != "" && body.ErrorStrategy != "abort" {
		return apperr.Field("error_strategy", "Only abort is supported: a failed item stops the whole publish.")
	}
	ids := make([]int, 0, len(body.Items))
	var setIDs []int
	for _, item := range body.Items {
		if m := setVersionURL.FindStringSubmatch(item); m != nil {
			id, _ := strconv.Atoi(m[1])
			setIDs = append(setIDs, id)
			continue
		}
		m := versionURL.FindStringSubmatch(item)
		if m == nil {
			return apperr.Field("items", fmt.Sprintf("%q is not a layer, table or set version URL.", item))
		}
		id, _ := strconv.Atoi(m[1])
		ids = append(ids, id)
	}
	in := graph.PublishInput{VersionIDs: ids, SetVersionIDs: setIDs, Reference: body.Reference}
	w.Header().Set("Accepted-OAuth-Scopes", in.Scope())
	g, err := a.res.Mutation().Publish(r.Context(), in)
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

func (a *API) cancelPublish(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "pid")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().CancelPublish(r.Context(), id); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// layerVersions is the version routes of layers and tables.
func (a *API) layerVersions() datasetRoutes[int, ent.Layer, ent.LayerVersion, versionJSON] {
	return datasetRoutes[int, ent.Layer, ent.LayerVersion, versionJSON]{
		key:       func(r *http.Request) (int, error) { return pathID(r, "lid") },
		noun:      func(id int) string { return fmt.Sprintf("Layer %d", id) },
		load:      a.res.Query().Layer,
		draft:     a.res.Layer().DraftVersion,
		published: a.res.Layer().PublishedVersion,
		byID:      a.res.Query().LayerVersion,
		list:      a.res.Query().LayerVersions,
		listed: func(r *http.Request, ly *ent.Layer, v *ent.LayerVersion) (versionJSON, error) {
			return a.links(r).layerVersion(ly, v), nil
		},
		create: a.res.Mutation().CreateLayerDraft,
		write: func(w http.ResponseWriter, r *http.Request, v *ent.LayerVersion, status int, location bool) error {
			return a.writeVersion(w, r, v.LayerID, v, status, location)
		},
		show: func(r *http.Request, id int) (any, error) {
			ly, err := a.res.Query().Layer(r.Context(), id)
			if err != nil {
				return nil, err
			}
			return a.renderLayer(r, ly, nil)
		},
		viewed:        func(id int) { a.res.Popularity.View(popularity.Layer, id) },
		remove:        a.res.Mutation().DeleteLayer,
		removeVersion: a.res.Mutation().DeleteLayerVersion,
	}
}
