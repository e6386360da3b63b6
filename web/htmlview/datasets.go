package htmlview

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/popularity"
	"github.com/geopub/geopub/web/mappreview"
)

func pathParam(r *http.Request, name string) string { return chi.URLParam(r, name) }

// id reads the route's numeric {id}; the pattern admits digits only, so a
// failure is an id out of range: not found.
func id(r *http.Request) (int, error) {
	n, err := pathInt(r, "id")
	if err != nil {
		return 0, apperr.New(apperr.NotFound, "Not found.")
	}
	return n, nil
}

// layer reads a layer or table (kind is its path: layers or tables) as
// the REST detail does: the published version, else the latest the caller
// may see.
func (v *Views) layer(kind string) loader {
	return func(r *http.Request) (*Page, error) {
		n, err := id(r)
		if err != nil {
			return nil, err
		}
		ctx := r.Context()
		ly, err := v.res.Query().Layer(ctx, n)
		if err != nil {
			return nil, err
		}
		if string(ly.Type) != kind[:len(kind)-1] {
			return nil, apperr.New(apperr.NotFound, "Not found.") // a table under /layers/ or back
		}
		ver, err := v.res.Layer().PublishedVersion(ctx, ly)
		if err != nil {
			return nil, err
		}
		if ver == nil {
			if ver, err = v.res.Layer().LatestVersion(ctx, ly); err != nil {
				return nil, err
			}
		}
		vs, err := v.res.Query().LayerVersions(ctx, n)
		if err != nil {
			return nil, err
		}
		p := &Page{Kind: title(string(ly.Type)), Title: ver.Name, Description: ver.Description,
			APIPath: restPath("%s/%d/", kind, ly.ID), GraphQL: gql("layer", strconv.Itoa(ly.ID)),
			Deprecated: deprecatedNotice(ly.DeprecatedAt, ly.DeprecationReason, ly.ReplacementType, ly.ReplacementID)}
		p.Facts = facts(
			Fact{"Kind", string(ly.Kind)},
			Fact{"Geometry", ver.GeometryType},
			Fact{"Coordinate system", ver.Crs},
			Fact{"Features", count(ver.FeatureCount, ver.GeometryType != "" || ly.Type == "table")},
			Fact{"First published", when(ly.FirstPublishedAt)},
			Fact{"Published", when(ly.PublishedAt)},
		)
		cf, lic, err := v.catalogueFacts(ctx, ver.Tags, ver.Categories, ver.LicenseID)
		if err != nil {
			return nil, err
		}
		p.Facts = append(p.Facts, cf...)
		err = v.addJSONLD(r, p, about{path: fmt.Sprintf("%s/%d/", kind, ly.ID), api: p.APIPath, tags: ver.Tags, license: lic,
			created: ly.CreatedAt, modified: ver.UpdatedAt, published: ly.FirstPublishedAt, extent: ver.Extent,
			groupID: ly.GroupID, userID: ly.UserID})
		if err != nil {
			return nil, err
		}
		v.res.Popularity.View(popularity.Layer, ly.ID)
		for _, f := range ver.Fields {
			p.Fields = append(p.Fields, Field{Name: f.Name, Type: f.Type})
		}
		for _, lv := range vs {
			p.Versions = append(p.Versions, Version{ID: lv.ID, State: string(lv.State), Created: when(&lv.CreatedAt)})
		}
		if err := v.addMap(ctx, p, mappreview.Layer, ly.ID, ly); err != nil {
			return nil, err
		}
		if err := v.addDataTable(ctx, p, kind, ly.ID); err != nil {
			return nil, err
		}
		typ := graph.DatasetTypeLayer
		if ly.Type == "table" {
			typ = graph.DatasetTypeTable
		}
		if err := v.addUsage(ctx, p, typ, ly.ID); err != nil {
			return nil, err
		}
		return p, nil
	}
}

func count(n int64, show bool) string {
	if !show {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

func title(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func (v *Views) set(r *http.Request) (*Page, error) {
	n, err := id(r)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	s, err := v.res.Query().Set(ctx, n)
	if err != nil {
		return nil, err
	}
	ver, err := v.res.Set().PublishedVersion(ctx, s)
	if err != nil {
		return nil, err
	}
	if ver == nil {
		if ver, err = v.res.Set().LatestVersion(ctx, s); err != nil {
			return nil, err
		}
	}
	vs, err := v.res.Query().SetVersions(ctx, n)
	if err != nil {
		return nil, err
	}
	p := &Page{Kind: "Set", Title: ver.Title, Description: ver.Description,
		APIPath: restPath("sets/%d/", s.ID), GraphQL: gql("set", strconv.Itoa(s.ID)),
		Deprecated: deprecatedNotice(s.DeprecatedAt, s.DeprecationReason, s.ReplacementType, s.ReplacementID)}
	p.Facts = facts(Fact{"First published", when(s.FirstPublishedAt)}, Fact{"Published", when(s.PublishedAt)})
	cf, lic, err := v.catalogueFacts(ctx, ver.Tags, ver.Categories, ver.LicenseID)
	if err != nil {
		return nil, err
	}
	p.Facts = append(p.Facts, cf...)
	err = v.addJSONLD(r, p, about{path: fmt.Sprintf("sets/%d/", s.ID), api: p.APIPath, tags: ver.Tags, license: lic,
		created: s.CreatedAt, modified: ver.UpdatedAt, published: s.FirstPublishedAt, groupID: s.GroupID, userID: s.UserID})
	if err != nil {
		return nil, err
	}
	v.res.Popularity.View(popularity.Set, s.ID)
	for _, sv := range vs {
		p.Versions = append(p.Versions, Version{ID: sv.ID, State: string(sv.State), Created: when(&sv.CreatedAt), PublishedAt: when(sv.PublishedAt)})
	}
	if err := v.addMap(ctx, p, mappreview.Set, s.ID, nil); err != nil {
		return nil, err
	}
	if err := v.addUsage(r.Context(), p, graph.DatasetTypeSet, s.ID); err != nil {
		return nil, err
	}
	return p, nil
}

func (v *Views) document(r *http.Request) (*Page, error) {
	n, err := id(r)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	d, err := v.res.Query().Document(ctx, n)
	if err != nil {
		return nil, err
	}
	ver, err := v.res.Document().PublishedVersion(ctx, d)
	if err != nil {
		return nil, err
	}
	if ver == nil {
		if ver, err = v.res.Document().LatestVersion(ctx, d); err != nil {
			return nil, err
		}
	}
	vs, err := v.res.Query().DocumentVersions(ctx, n)
	if err != nil {
		return nil, err
	}
	p := &Page{Kind: "Document", Title: ver.Name, Description: ver.Description,
		APIPath: restPath("documents/%d/", d.ID), GraphQL: gql("document", strconv.Itoa(d.ID)),
		Deprecated: deprecatedNotice(d.DeprecatedAt, d.DeprecationReason, d.ReplacementType, d.ReplacementID)}
	p.Facts = facts(Fact{"File", ver.FileName}, Fact{"Type", ver.ContentType}, Fact{"Size", fmt.Sprintf("%d bytes", ver.FileSize)},
		Fact{"First published", when(d.FirstPublishedAt)}, Fact{"Published", when(d.PublishedAt)})
	cf, lic, err := v.catalogueFacts(ctx, ver.Tags, ver.Categories, ver.LicenseID)
	if err != nil {
		return nil, err
	}
	p.Facts = append(p.Facts, cf...)
	a := about{path: fmt.Sprintf("documents/%d/", d.ID), api: p.APIPath, tags: ver.Tags, license: lic,
		created: d.CreatedAt, modified: ver.UpdatedAt, published: d.FirstPublishedAt, groupID: d.GroupID, userID: d.UserID}
	// The file, for those who may download it (the version the download
	// URL serves them).
	switch dv, err := v.res.DownloadableDocumentVersion(ctx, d.ID, nil); {
	case err == nil && dv != nil:
		a.downloads = [][2]string{{strings.TrimPrefix(restPath("documents/%d/download/", d.ID), "/"), dv.ContentType}}
	case err != nil && !hidden(err):
		return nil, err
	}
	if err := v.addJSONLD(r, p, a); err != nil {
		return nil, err
	}
	v.res.Popularity.View(popularity.Document, d.ID)
	for _, dv := range vs {
		p.Versions = append(p.Versions, Version{ID: dv.ID, State: string(dv.State), Created: when(&dv.CreatedAt), PublishedAt: when(dv.PublishedAt)})
	}
	if err := v.addUsage(r.Context(), p, graph.DatasetTypeDocument, d.ID); err != nil {
		return nil, err
	}
	return p, nil
}

func (v *Views) item(r *http.Request) (*Page, error) {
	cid := chi.URLParam(r, "id")
	ctx := r.Context()
	it, err := v.res.Query().CatalogItem(ctx, cid)
	if err != nil {
		return nil, err
	}
	ver, err := v.res.CatalogItem().PublishedVersion(ctx, it)
	if err != nil {
		return nil, err
	}
	if ver == nil {
		if ver, err = v.res.CatalogItem().LatestVersion(ctx, it); err != nil {
			return nil, err
		}
	}
	vs, err := v.res.Query().CatalogItemVersions(ctx, cid)
	if err != nil {
		return nil, err
	}
	p := &Page{Kind: "Catalog item", Title: ver.Title, Description: ver.Description,
		APIPath: restPath("items/%s/", cid), GraphQL: gql("catalogItem", strconv.Quote(cid)),
		Deprecated: deprecatedNotice(it.DeprecatedAt, it.DeprecationReason, it.ReplacementType, it.ReplacementID)}
	p.Facts = facts(Fact{"Link", ver.LinkURL}, Fact{"Tags", join(ver.Tags)}, Fact{"Categories", join(ver.Categories)},
		Fact{"First published", when(it.FirstPublishedAt)}, Fact{"Published", when(it.PublishedAt)}, Fact{"License", "none given"})
	for _, iv := range vs {
		p.Versions = append(p.Versions, itemVersion(iv))
	}
	err = v.addJSONLD(r, p, about{path: "items/" + cid + "/", api: p.APIPath, tags: ver.Tags,
		created: it.CreatedAt, modified: ver.UpdatedAt, published: it.FirstPublishedAt, groupID: it.GroupID, userID: it.UserID})
	if err != nil {
		return nil, err
	}
	if err := v.addUsage(r.Context(), p, graph.DatasetTypeCatalogItem, it.ID); err != nil {
		return nil, err
	}
	return p, nil
}

func itemVersion(iv *ent.CatalogItemVersion) Version {
	return Version{ID: iv.ID, State: string(iv.State), Created: when(&iv.CreatedAt), PublishedAt: when(iv.PublishedAt)}
}

// catalogueFacts are a version's licence, tags and categories (by name);
// the licence (nil for none) goes into the JSON-LD too.
func (v *Views) catalogueFacts(ctx context.Context, tags, cats []string, licenseID *int) ([]Fact, *ent.License, error) {
	lic := "none given"
	var license *ent.License
	if licenseID != nil {
		l, err := v.res.LicenseByID(ctx, *licenseID)
		if err != nil && apperr.CodeOf(err) != apperr.NotFound {
			return nil, nil, err
		}
		if l != nil {
			lic, license = l.Title, l
		}
	}
	names := make([]string, 0, len(cats))
	for _, k := range cats {
		c, err := v.res.CategoryByKey(ctx, k)
		if err != nil {
			return nil, nil, err
		}
		if c != nil {
			names = append(names, c.Name)
		} else {
			names = append(names, k)
		}
	}
	return facts(Fact{"License", lic}, Fact{"Tags", join(tags)}, Fact{"Categories", join(names)}), license, nil
}

// hidden reports whether err refuses the caller something (they may not
// download, or not see), rather than failing.
func hidden(err error) bool {
	switch apperr.CodeOf(err) {
	case apperr.NotFound, apperr.PermissionDenied, apperr.Unauthenticated:
		return true
	}
	return false
}
