package htmlview

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
)

// metadataRead reads the metadata document of version vid of the object
// a request names, through the resolvers that check access to the version
// (nil when the version has none).
type metadataRead func(r *http.Request, vid int) (*ent.MetadataDocument, error)

// metadataRoutes adds the metadata page of the versions of every dataset
// kind: the url_html of a metadata upload's answer. The resolvers are
// reached only when a page is served.
func (v *Views) metadataRoutes(add func(pattern string, load loader)) {
	numbered := func(load func(ctx context.Context, id, vid int) (*ent.MetadataDocument, error)) metadataRead {
		return func(r *http.Request, vid int) (*ent.MetadataDocument, error) {
			n, err := id(r)
			if err != nil {
				return nil, err
			}
			return load(r.Context(), n, vid)
		}
	}
	layer := numbered(func(ctx context.Context, id, vid int) (*ent.MetadataDocument, error) {
		lv, err := v.res.Query().LayerVersion(ctx, id, vid)
		if err != nil {
			return nil, err
		}
		return v.res.LayerVersion().Metadata(ctx, lv)
	})
	reads := map[string]metadataRead{
		"layers": layer,
		"tables": layer,
		"sets": numbered(func(ctx context.Context, id, vid int) (*ent.MetadataDocument, error) {
			sv, err := v.res.Query().SetVersion(ctx, id, vid)
			if err != nil {
				return nil, err
			}
			return v.res.SetVersion().Metadata(ctx, sv)
		}),
		"documents": numbered(func(ctx context.Context, id, vid int) (*ent.MetadataDocument, error) {
			dv, err := v.res.Query().DocumentVersion(ctx, id, vid)
			if err != nil {
				return nil, err
			}
			return v.res.DocumentVersion().Metadata(ctx, dv)
		}),
		"items": func(r *http.Request, vid int) (*ent.MetadataDocument, error) {
			iv, err := v.res.Query().CatalogItemVersion(r.Context(), chi.URLParam(r, "id"), vid)
			if err != nil {
				return nil, err
			}
			return v.res.CatalogItemVersion().Metadata(r.Context(), iv)
		},
	}
	for kind, read := range reads {
		idRE := "[0-9]+"
		if kind == "items" {
			idRE = "c[0-9]+"
		}
		add("/"+kind+"/{id:"+idRE+"}/versions/{vid:[0-9]+}/metadata", v.metadata(kind, read))
	}
}

// metadata is the page of one version's metadata document.
func (v *Views) metadata(kind string, read metadataRead) loader {
	return func(r *http.Request) (*Page, error) {
		vid, err := pathInt(r, "vid")
		if err != nil {
			return nil, apperr.New(apperr.NotFound, "Not found.")
		}
		d, err := read(r, vid)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return nil, apperr.New(apperr.NotFound, "This version has no metadata.")
		}
		t := d.Title
		if t == "" {
			t = "Metadata"
		}
		p := &Page{Kind: "Metadata", Title: t, Description: d.Abstract,
			APIPath: restPath("%s/%s/versions/%d/metadata/", kind, chi.URLParam(r, "id"), vid)}
		p.Facts = facts(Fact{"Format", strings.ToUpper(string(d.Format))}, Fact{"Keywords", join(d.Keywords)},
			Fact{"Bounding box", bbox(d.Bbox)}, Fact{"Updated", when(&d.UpdatedAt)})
		return p, nil
	}
}

func bbox(b []float64) string {
	if len(b) != 4 {
		return ""
	}
	return fmt.Sprintf("%g, %g, %g, %g (west, south, east, north)", b[0], b[1], b[2], b[3])
}
