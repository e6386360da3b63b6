package rest

import (
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
)

// layerMetadataRoutes serves the metadata of layer and table versions
// under base (/layers or /tables).
func (a *API) layerMetadataRoutes(r chi.Router, base string) {
	a.metadataRoutes(r, base+"/{lid:[0-9]+}/versions/{vid:[0-9]+}",
		func(r *http.Request) (*ent.MetadataDocument, string, error) {
			lid, vid, err := versionPath(r, "lid")
			if err != nil {
				return nil, "", err
			}
			v, err := a.res.Query().LayerVersion(r.Context(), lid, vid)
			if err != nil {
				return nil, "", err
			}
			d, err := a.res.LayerVersion().Metadata(r.Context(), v)
			if err != nil {
				return nil, "", err
			}
			return a.withLayerVersionPath(r, d, lid, vid)
		},
		func(r *http.Request, xml string) (*ent.MetadataDocument, string, error) {
			lid, vid, err := versionPath(r, "lid")
			if err != nil {
				return nil, "", err
			}
			d, err := a.res.Mutation().UploadLayerMetadata(r.Context(), lid, vid, xml)
			if err != nil {
				return nil, "", err
			}
			return a.withLayerVersionPath(r, d, lid, vid)
		})
}

// withLayerVersionPath adds the API path of a layer or table version (the
// resolvers have already checked access to it).
func (a *API) withLayerVersionPath(r *http.Request, d *ent.MetadataDocument, lid, vid int) (*ent.MetadataDocument, string, error) {
	ly, err := a.res.Client.Layer.Get(r.Context(), lid)
	if err != nil {
		return nil, "", err
	}
	return d, fmt.Sprintf("%s/%d/versions/%d/", kindPath(ly), lid, vid), nil
}
