package ogc

import "github.com/go-chi/chi/v5"

// mountFeatureServer adds the services directory, FeatureServer and the
// MapServer layer resources and queries.
func (a *ArcGIS) mountFeatureServer(r chi.Router) {}
