package schematype

// ExportItem is one item of an export as the caller asked for it: the
// item's URL and its per-item options (api-shapes §7.1).
type ExportItem struct {
	Item    string         `json:"item"`
	Options map[string]any `json:"options,omitempty"`
}

// ExportPart is one dataset an export writes, resolved when the export was
// validated: what the job reads and how it writes it.
type ExportPart struct {
	// Item is the URL the part came from (a set's URL for its members).
	Item string `json:"item"`
	// Kind is vector, table, raster or grid.
	Kind string `json:"kind"`
	// LayerID and VersionID name the layer or table and its version.
	LayerID   int `json:"layer_id"`
	VersionID int `json:"version_id"`
	// Name is the base name of the part's files, unique in the export.
	Name  string `json:"name"`
	Title string `json:"title"`
	// Format is the MIME value of the part's format.
	Format string `json:"format"`
	// FeatureCount is the estimate at validation (features in the crop
	// area's bounding box).
	FeatureCount int64 `json:"feature_count"`
}
