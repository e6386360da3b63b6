package rest

import (
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/metadata"
)

// datasourceMetadataRoutes serves the metadata document a scan found
// beside a datasource, read-only: …/metadata/ (native XML), /simple/, and
// /iso/, /fgdc/, /dc/ as for dataset versions.
func (a *API) datasourceMetadataRoutes(r chi.Router, dsPath string) {
	get := func(r *http.Request) (*ent.MetadataDocument, string, error) {
		sid, err := pathID(r, "sid")
		if err != nil {
			return nil, "", err
		}
		did, err := pathID(r, "did")
		if err != nil {
			return nil, "", err
		}
		d, err := a.res.Query().Datasource(r.Context(), sid, did)
		if err != nil {
			return nil, "", err
		}
		doc, err := a.res.Datasource().Metadata(r.Context(), d)
		return doc, datasourcePath(d), err
	}
	p := dsPath + "/metadata"
	r.Get(p, a.handle(a.getMetadata(get, "")))
	r.Get(p+"/simple", a.handle(a.getMetadata(get, "json")))
	for _, f := range metadata.Formats {
		r.Get(p+"/"+string(f), a.handle(a.getMetadata(get, f)))
	}
}

// datasourcePath is a datasource's API path, ending in "/".
func datasourcePath(d *ent.Datasource) string {
	return fmt.Sprintf("sources/%d/datasources/%d/", d.SourceID, d.ID)
}
