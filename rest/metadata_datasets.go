package rest

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
)

// numberedMetadata is what metadataRoutes needs of a dataset kind whose
// versions are addressed by two numbers, base/{id}/versions/{vid}/: how
// its resolvers read and store a version's document (checking access),
// and the API path of a version, ending in "/" (nil: under base).
type numberedMetadata struct {
	idParam string
	get     metadataReader
	put     func(ctx context.Context, id, vid int, xml string) (*ent.MetadataDocument, error)
	path    func(ctx context.Context, id, vid int) (string, error)
}

// numberedMetadataRoutes serves the metadata of the versions of layers,
// tables, sets or documents under base.
func (a *API) numberedMetadataRoutes(r chi.Router, base string, m numberedMetadata) {
	if m.path == nil {
		m.path = func(_ context.Context, id, vid int) (string, error) {
			return fmt.Sprintf("%s/%d/versions/%d/", strings.TrimPrefix(base, "/"), id, vid), nil
		}
	}
	a.metadataRoutes(r, fmt.Sprintf("%s/{%s:[0-9]+}/versions/{vid:[0-9]+}", base, m.idParam),
		func(r *http.Request) (*ent.MetadataDocument, string, error) {
			return m.serve(r, func(id, vid int) (*ent.MetadataDocument, error) { return m.get(r.Context(), id, vid) })
		},
		func(r *http.Request, xml string) (*ent.MetadataDocument, string, error) {
			return m.serve(r, func(id, vid int) (*ent.MetadataDocument, error) { return m.put(r.Context(), id, vid, xml) })
		})
}

// serve reads the ids a request names, calls the resolver and adds the
// version's path (the resolver has checked access to it).
func (m numberedMetadata) serve(r *http.Request, call func(id, vid int) (*ent.MetadataDocument, error)) (*ent.MetadataDocument, string, error) {
	id, vid, err := versionPath(r, m.idParam)
	if err != nil {
		return nil, "", err
	}
	d, err := call(id, vid)
	if err != nil {
		return nil, "", err
	}
	p, err := m.path(r.Context(), id, vid)
	if err != nil {
		return nil, "", err
	}
	return d, p, nil
}

// metadataReader returns the metadata document of version vid of dataset
// id, nil when none.
type metadataReader func(ctx context.Context, id, vid int) (*ent.MetadataDocument, error)

// versionMetadata reads the metadata of the version load returns (the
// resolver checking access to it) with the version resolver's read.
func versionMetadata[V any](load func(ctx context.Context, id, vid int) (V, error), read func(ctx context.Context, v V) (*ent.MetadataDocument, error)) metadataReader {
	return func(ctx context.Context, id, vid int) (*ent.MetadataDocument, error) {
		v, err := load(ctx, id, vid)
		if err != nil {
			return nil, err
		}
		return read(ctx, v)
	}
}

// layerMetadataRoutes serves the metadata of layer and table versions
// under base (/layers or /tables).
func (a *API) layerMetadataRoutes(r chi.Router, base string) {
	a.numberedMetadataRoutes(r, base, numberedMetadata{
		idParam: "lid",
		get:     versionMetadata(a.res.Query().LayerVersion, a.res.LayerVersion().Metadata),
		put:     a.res.Mutation().UploadLayerMetadata,
		// A table's versions are under /tables/, whichever base served it.
		path: func(ctx context.Context, lid, vid int) (string, error) {
			ly, err := a.res.LayerOf(ctx, lid)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s/%d/versions/%d/", kindPath(ly), lid, vid), nil
		},
	})
}
