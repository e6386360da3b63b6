package rest

import (
	"context"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
)

// numberedMetadata is what metadataRoutes needs of a dataset kind whose
// versions are addressed by two numbers, base/{id}/versions/{vid}/: how
// its resolvers read and store a version's document (checking access),
// and the API path of a version, ending in "/".
type numberedMetadata struct {
	idParam string
	get     func(ctx context.Context, id, vid int) (*ent.MetadataDocument, error)
	put     func(ctx context.Context, id, vid int, xml string) (*ent.MetadataDocument, error)
	path    func(ctx context.Context, id, vid int) (string, error)
}

// numberedMetadataRoutes serves the metadata of the versions of layers,
// tables, sets or documents under base.
func (a *API) numberedMetadataRoutes(r chi.Router, base string, m numberedMetadata) {
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

// fixedVersionPath is the API path of a version of a dataset kind served
// at one base (sets, documents).
func fixedVersionPath(kind string) func(ctx context.Context, id, vid int) (string, error) {
	return func(_ context.Context, id, vid int) (string, error) {
		return fmt.Sprintf("%s/%d/versions/%d/", kind, id, vid), nil
	}
}

// layerMetadataRoutes serves the metadata of layer and table versions
// under base (/layers or /tables).
func (a *API) layerMetadataRoutes(r chi.Router, base string) {
	a.numberedMetadataRoutes(r, base, numberedMetadata{
		idParam: "lid",
		get: func(ctx context.Context, lid, vid int) (*ent.MetadataDocument, error) {
			v, err := a.res.Query().LayerVersion(ctx, lid, vid)
			if err != nil {
				return nil, err
			}
			return a.res.LayerVersion().Metadata(ctx, v)
		},
		put: a.res.Mutation().UploadLayerMetadata,
		// A table's versions are under /tables/, whichever base served it.
		path: func(ctx context.Context, lid, vid int) (string, error) {
			ly, err := a.res.Client.Layer.Get(ctx, lid)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s/%d/versions/%d/", kindPath(ly), lid, vid), nil
		},
	})
}

// setMetadataRoutes serves the metadata of set versions.
func (a *API) setMetadataRoutes(r chi.Router) {
	a.numberedMetadataRoutes(r, "/sets", numberedMetadata{
		idParam: "sid",
		get: func(ctx context.Context, sid, vid int) (*ent.MetadataDocument, error) {
			v, err := a.res.Query().SetVersion(ctx, sid, vid)
			if err != nil {
				return nil, err
			}
			return a.res.SetVersion().Metadata(ctx, v)
		},
		put:  a.res.Mutation().UploadSetMetadata,
		path: fixedVersionPath("sets"),
	})
}

// documentMetadataRoutes serves the metadata of document versions.
// Documents are versioned like the other datasets (a draft from the
// published version, published through import/), so their metadata too
// is uploaded to a draft only.
func (a *API) documentMetadataRoutes(r chi.Router) {
	a.numberedMetadataRoutes(r, "/documents", numberedMetadata{
		idParam: "did",
		get: func(ctx context.Context, did, vid int) (*ent.MetadataDocument, error) {
			v, err := a.res.Query().DocumentVersion(ctx, did, vid)
			if err != nil {
				return nil, err
			}
			return a.res.DocumentVersion().Metadata(ctx, v)
		},
		put:  a.res.Mutation().UploadDocumentMetadata,
		path: fixedVersionPath("documents"),
	})
}
