package ogc

import "github.com/go-chi/chi/v5"

// mountMapServer adds MapServer's root, export and cached tiles, and
// VectorTileServer.
func (a *ArcGIS) mountMapServer(r chi.Router) {}
