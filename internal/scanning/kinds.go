package scanning

import (
	"net/url"

	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/arcgis"
	"github.com/geopub/geopub/internal/remote/pgsource"
	"github.com/geopub/geopub/internal/remote/s3source"
	"github.com/geopub/geopub/internal/remote/smbsource"
	"github.com/geopub/geopub/internal/remote/wfs"
)

// kindOf is the kind (remote.Files or remote.Service) that reads sources
// of type t; nil for uploads and URL archives, which gather handles.
func kindOf(t source.Type) any {
	switch t {
	case source.TypePostgres:
		return pgsource.Kind{}
	case source.TypeS3:
		return s3source.Kind{}
	case source.TypeCifs:
		return smbsource.Kind{}
	case source.TypeWfs:
		return wfs.Kind{}
	case source.TypeArcgis:
		return arcgis.Kind{}
	}
	return nil
}

// ServiceOf is the service kind of sources of type t, if it is one: its
// datasources are discovered and fetched, not materialized.
func ServiceOf(t source.Type) (remote.Service, bool) {
	s, ok := kindOf(t).(remote.Service)
	return s, ok
}

// CheckRemoteURL lets the kind of type t check a url_remote beyond its
// scheme; the error's message is for the user.
func CheckRemoteURL(t source.Type, u *url.URL) error {
	if c, ok := kindOf(t).(remote.URLChecker); ok {
		return c.CheckURL(u)
	}
	return nil
}
