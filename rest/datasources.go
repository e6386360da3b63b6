package rest

import (
	"net/http"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/schema/schematype"
)

// datasourceSummary is a datasource list item.
type datasourceSummary struct {
	ID           int       `json:"id"`
	URL          string    `json:"url"`
	Title        string    `json:"title"`
	DataType     string    `json:"data_type"`
	Format       string    `json:"format"`
	GeometryType string    `json:"geometry_type"`
	UpdatedAt    time.Time `json:"updated_at"`
	UploadPath   string    `json:"upload_path"`
}

// datasourceJSON is the datasource resource.
type datasourceJSON struct {
	datasourceSummary
	Layer  string             `json:"layer"`
	CRS    *string            `json:"crs"`
	Fields []schematype.Field `json:"fields"`
	// PrimaryKey is the key the source declares, which imports take as
	// the layer's primary key; empty when it declares none.
	PrimaryKey  []string `json:"primary_key"`
	NumDims     int      `json:"num_dims"`
	NumFeatures int64    `json:"num_features"`
	NumBands    *int     `json:"num_bands"`
	FileSize    int64    `json:"file_size"`
	Extent      any      `json:"extent"`
	Missing     bool     `json:"missing"`
	Source      string   `json:"source"`
	Metadata    any      `json:"metadata"`
}

func (l links) datasourceSummary(d *ent.Datasource) datasourceSummary {
	return datasourceSummary{
		ID: d.ID, URL: l.api("sources/%d/datasources/%d/", d.SourceID, d.ID), Title: d.Title,
		DataType: string(d.DataType), Format: d.Format, GeometryType: d.GeometryType,
		UpdatedAt: d.UpdatedAt, UploadPath: d.Path,
	}
}

func (l links) datasource(d *ent.Datasource) datasourceJSON {
	fields := d.Fields
	if fields == nil {
		fields = []schematype.Field{}
	}
	key := d.PrimaryKey
	if key == nil {
		key = []string{}
	}
	var bands *int
	if d.DataType == "grid" {
		bands = &d.NumBands
	}
	return datasourceJSON{
		datasourceSummary: l.datasourceSummary(d),
		Layer:             d.LayerName,
		CRS:               nullable(d.Crs),
		Fields:            fields,
		PrimaryKey:        key,
		NumDims:           d.NumDims,
		NumFeatures:       d.FeatureCount,
		NumBands:          bands,
		FileSize:          d.FileSize,
		Extent:            extentPolygon(d.Extent),
		Missing:           d.Missing,
		Source:            l.api("sources/%d/", d.SourceID),
	}
}

// extentPolygon renders a [minx, miny, maxx, maxy] box as a GeoJSON
// Polygon, null when unknown.
func extentPolygon(b []float64) any {
	if len(b) != 4 {
		return nil
	}
	ring := [][2]float64{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}, {b[0], b[1]}}
	return map[string]any{"type": "Polygon", "coordinates": [][][2]float64{ring}}
}

func (a *API) listDatasources(w http.ResponseWriter, r *http.Request) error {
	sid, err := pathID(r, "sid")
	if err != nil {
		return err
	}
	q := queryOf(r)
	page, size, err := q.paging()
	if err != nil {
		return err
	}
	missing, err := q.boolPtr("missing")
	if err != nil {
		return err
	}
	ex, err := expandOf(r, expandList)
	if err != nil {
		return err
	}
	p, err := a.res.Query().SourceDatasources(r.Context(), sid, missing, page, size)
	if err != nil {
		return err
	}
	l := a.links(r)
	var body any
	if ex["list"] {
		docs, err := a.res.DatasourcesMetadata(r.Context(), p.Items...)
		if err != nil {
			return err
		}
		full := make([]datasourceJSON, 0, len(p.Items))
		for _, d := range p.Items {
			js := l.datasource(d)
			js.Metadata = l.metadataRefs(datasourcePath(d), docs[d.ID])
			full = append(full, js)
		}
		body = full
	} else {
		items := make([]datasourceSummary, 0, len(p.Items))
		for _, d := range p.Items {
			items = append(items, l.datasourceSummary(d))
		}
		body = items
	}
	a.writePage(w, r, pageResult{page: p.PageInfo.Page, size: p.PageInfo.PageSize, total: p.PageInfo.Total, count: len(p.Items)}, nil, body)
	return nil
}

func (a *API) getDatasource(w http.ResponseWriter, r *http.Request) error {
	sid, err := pathID(r, "sid")
	if err != nil {
		return err
	}
	did, err := pathID(r, "did")
	if err != nil {
		return err
	}
	d, err := a.res.Query().Datasource(r.Context(), sid, did)
	if err != nil {
		return err
	}
	docs, err := a.res.DatasourcesMetadata(r.Context(), d)
	if err != nil {
		return err
	}
	js := a.links(r).datasource(d)
	js.Metadata = a.links(r).metadataRefs(datasourcePath(d), docs[d.ID])
	writeJSON(w, http.StatusOK, js)
	return nil
}
