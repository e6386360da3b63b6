package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/search"
)

// itemPath is the route pattern of one catalog item: public ids are the
// id prefixed with c; anything else matches no route (404).
const itemPath = "/items/{cid:c[0-9]+}"

// itemRoutes serves /items/: reads need the catalog scope, administrative
// writes items:write, and the consumer actions (star, pin, request-access,
// feedback) catalog. Their permissions and services are served with those
// of the other datasets (permissionRoutes, serviceRoutes).
func (a *API) itemRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(scoped(auth.ScopeCatalog, auth.ScopeItemsWrite))
		r.Get("/items", a.handle(a.listItems(false)))
		r.Get("/items/drafts", a.handle(a.listItems(true)))
		r.Post("/items", a.handle(a.createItem))
		r.Get(itemPath, a.handle(a.itemVersions().getDataset))
		r.Delete(itemPath, a.handle(a.itemVersions().deleteDataset))
		r.Get(itemPath+"/versions", a.handle(a.itemVersions().listVersions(a)))
		r.Get(itemPath+"/diff", a.handle(a.itemDiff))
		r.Post(itemPath+"/versions", a.handle(a.itemVersions().createDraft))
		r.Get(itemPath+"/versions/{vid:[0-9]+|draft|published}", a.handle(a.itemVersions().getVersion))
		r.Put(itemPath+"/versions/{vid:[0-9]+}", a.handle(a.updateItemVersion))
		r.Delete(itemPath+"/versions/{vid:[0-9]+}", a.handle(a.itemVersions().deleteVersion))
		r.Post(itemPath+"/versions/{vid:[0-9]+}/publish", a.handle(a.publishItemVersion))
		r.Post(itemPath+"/versions/{vid:[0-9]+}/restore", a.handle(a.itemVersions().restoreVersion))
		a.itemMetadataRoutes(r)
		a.itemAttachmentRoutes(r)
		a.itemGeotagRoutes(r)
		a.itemAccessRequestRoutes(r)
	})
	r.Group(func(r chi.Router) {
		r.Use(scoped(auth.ScopeCatalog, auth.ScopeCatalog))
		a.itemConsumerRoutes(r)
		a.itemFeedbackRoutes(r)
	})
}

// itemVersionJSON is a catalog item version record.
type itemVersionJSON struct {
	ID          int        `json:"id"`
	URL         string     `json:"url"`
	State       string     `json:"state"`
	CreatedAt   time.Time  `json:"created_at"`
	CreatedBy   int        `json:"created_by"`
	PublishedAt *time.Time `json:"published_at"`
}

// itemJSON is a catalog item as of one version.
type itemJSON struct {
	ID               string          `json:"id"`
	URL              string          `json:"url"`
	URLHTML          string          `json:"url_html"`
	Type             string          `json:"type"`
	Title            string          `json:"title"`
	Description      string          `json:"description"`
	DescriptionHTML  string          `json:"description_html"`
	LinkURL          string          `json:"link_url"`
	Tags             []string        `json:"tags"`
	Categories       []string        `json:"categories"`
	User             userEmbed       `json:"user"`
	Group            *groupEmbed     `json:"group"`
	CreatedAt        time.Time       `json:"created_at"`
	UpdatedAt        time.Time       `json:"updated_at"`
	FirstPublishedAt *time.Time      `json:"first_published_at"`
	PublishedAt      *time.Time      `json:"published_at"`
	PublishedVersion *string         `json:"published_version"`
	LatestVersion    string          `json:"latest_version"`
	ThisVersion      string          `json:"this_version"`
	Version          itemVersionJSON `json:"version"`
	Metadata         any             `json:"metadata"`
	Attachments      string          `json:"attachments"`
	Geotags          string          `json:"geotags"`
	Services         string          `json:"services"`
	Permissions      string          `json:"permissions"`
	IsStarred        bool            `json:"is_starred"`
	IsPinned         bool            `json:"is_pinned"`
	// Deprecated: its deprecation notice, null when it is not deprecated.
	Deprecated *deprecatedJSON `json:"deprecated"`
}

func itemVersionPath(it *ent.CatalogItem, vid int) string {
	return fmt.Sprintf("items/%s/versions/%d/", graph.ItemPublicID(it.ID), vid)
}

func (l links) itemVersion(it *ent.CatalogItem, v *ent.CatalogItemVersion) itemVersionJSON {
	return itemVersionJSON{ID: v.ID, URL: l.api("%s", itemVersionPath(it, v.ID)), State: string(v.State),
		CreatedAt: v.CreatedAt, CreatedBy: v.CreatedBy, PublishedAt: v.PublishedAt}
}

// renderItem renders it as of v (nil: its published version, else its
// latest), with the caller's star and pin.
func (a *API) renderItem(r *http.Request, it *ent.CatalogItem, v *ent.CatalogItemVersion) (itemJSON, error) {
	ctx := r.Context()
	ir := a.res.CatalogItem()
	latest, err := ir.LatestVersion(ctx, it)
	if err != nil {
		return itemJSON{}, err
	}
	if v == nil {
		if v, err = ir.PublishedVersion(ctx, it); err != nil {
			return itemJSON{}, err
		}
		if v == nil {
			v = latest
		}
	}
	owner, err := a.res.LookupUser(ctx, it.UserID)
	if err != nil {
		return itemJSON{}, err
	}
	md, err := a.res.CatalogItemVersion().Metadata(ctx, v)
	if err != nil {
		return itemJSON{}, err
	}
	starred, err := ir.IsStarred(ctx, it)
	if err != nil {
		return itemJSON{}, err
	}
	pinned, err := ir.IsPinned(ctx, it)
	if err != nil {
		return itemJSON{}, err
	}
	l := a.links(r)
	pid := graph.ItemPublicID(it.ID)
	out := itemJSON{
		ID: pid, URL: l.api("items/%s/", pid), URLHTML: l.html("items/%s/", pid), Type: "catalogitem",
		Title: v.Title, Description: v.Description, DescriptionHTML: graph.DescriptionHTML(v.Description),
		LinkURL: v.LinkURL, Tags: nonNil(v.Tags), Categories: nonNil(v.Categories), User: l.userEmbed(owner),
		CreatedAt: it.CreatedAt, UpdatedAt: v.UpdatedAt, FirstPublishedAt: it.FirstPublishedAt, PublishedAt: it.PublishedAt,
		LatestVersion: l.api("%s", itemVersionPath(it, latest.ID)), ThisVersion: l.api("%s", itemVersionPath(it, v.ID)),
		Version: l.itemVersion(it, v), Metadata: l.metadataRefs(itemVersionPath(it, v.ID), md),
		Attachments: l.api("items/%s/attachments/", pid), Geotags: l.api("items/%s/geotags/", pid),
		Services: l.api("items/%s/services/", pid), Permissions: l.api("items/%s/permissions/", pid),
		IsStarred: starred, IsPinned: pinned,
		Deprecated: l.deprecated(it.DeprecatedAt, it.DeprecationReason, it.ReplacementType, it.ReplacementID),
	}
	if it.PublishedVersionID != nil {
		u := l.api("%s", itemVersionPath(it, *it.PublishedVersionID))
		out.PublishedVersion = &u
	}
	if it.GroupID != nil {
		g, err := a.res.DatasetGroup(ctx, *it.GroupID)
		if err != nil && !ent.IsNotFound(err) {
			return itemJSON{}, err
		}
		if g != nil {
			e := l.groupEmbed(g)
			out.Group = &e
		}
	}
	return out, nil
}

// itemListEntry renders a published catalog item in the item lists'
// shape.
func (a *API) itemListEntry(r *http.Request, it *ent.CatalogItem, ex expansions) (any, error) {
	js, err := a.renderItem(r, it, nil)
	if err != nil {
		return nil, err
	}
	if ex["list"] {
		return js, nil
	}
	return map[string]any{"id": js.ID, "url": js.URL, "type": js.Type, "title": js.Title,
		"first_published_at": js.FirstPublishedAt, "published_at": js.PublishedAt}, nil
}

func (a *API) listItems(drafts bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !drafts && datasetListUsesEngine(r, false) {
			return a.searchList(w, r, search.TypeItem, expandList, catalogSortRels, func(r *http.Request, e graph.CatalogEntry, ex expansions) (any, error) {
				return a.itemListEntry(r, e.Item, ex)
			})
		}
		q := queryOf(r)
		page, size, err := q.paging()
		if err != nil {
			return err
		}
		ex, err := expandOf(r, expandList)
		if err != nil {
			return err
		}
		p, err := a.res.Query().CatalogItemSearch(r.Context(), q.strPtr("q"), &drafts, page, size)
		if err != nil {
			return err
		}
		body := make([]any, 0, len(p.Items))
		for _, it := range p.Items {
			var v *ent.CatalogItemVersion
			if drafts {
				if v, err = a.res.CatalogItem().DraftVersion(r.Context(), it); err != nil {
					return err
				}
			}
			js, err := a.renderItem(r, it, v)
			if err != nil {
				return err
			}
			if ex["list"] {
				body = append(body, js)
				continue
			}
			body = append(body, map[string]any{"id": js.ID, "url": js.URL, "type": js.Type, "title": js.Title,
				"first_published_at": js.FirstPublishedAt, "published_at": js.PublishedAt})
		}
		a.writePage(w, r, pageResult{page: p.PageInfo.Page, size: p.PageInfo.PageSize, total: p.PageInfo.Total, count: len(body)}, nil, body)
		return nil
	}
}

// itemBody is POST /items/ and PUT …/versions/{vid}/.
type itemBody struct {
	Title       *string         `json:"title"`
	Description *string         `json:"description"`
	LinkURL     *string         `json:"link_url"`
	Tags        []string        `json:"tags"`
	Categories  []string        `json:"categories"`
	Group       json.RawMessage `json:"group"`
}

func (a *API) createItem(w http.ResponseWriter, r *http.Request) error {
	var body itemBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in := graph.CreateCatalogItemInput{Title: ptrString(body.Title), Description: body.Description,
		LinkURL: ptrString(body.LinkURL), Tags: body.Tags, Categories: body.Categories}
	var err error
	if in.GroupID, err = ownerGroup(body.Group); err != nil {
		return err
	}
	v, err := a.res.Mutation().CreateCatalogItem(r.Context(), in)
	if err != nil {
		return err
	}
	it, err := a.res.CatalogItemOf(r.Context(), v.ItemID)
	if err != nil {
		return err
	}
	js, err := a.renderItem(r, it, v)
	if err != nil {
		return err
	}
	w.Header().Set("Location", js.URL)
	writeJSON(w, http.StatusCreated, js)
	return nil
}
