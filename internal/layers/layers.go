// Package layers holds what creating a layer or table and editing its
// drafts takes: which datasources may make one and the shape of layer
// they make, and the writes of a new layer, a new draft and a draft's
// edit, each in one transaction with the import it starts.
//
// The front doors authorize the caller on the layer, and check the
// owning group and the catalogue terms (catalogterms) before calling in;
// this package checks what only layers have: datasources, names and
// primary keys.
package layers

import (
	"context"
	"fmt"
	"reflect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/jobs"
	"github.com/geopub/geopub/internal/store"
)

// Service writes layers, their drafts and the imports those start.
type Service struct {
	Store *store.Store
	Jobs  *jobs.Jobs
}

// A Shape is the type and kind of layer datasources make.
type Shape struct {
	Type layer.Type
	Kind layer.Kind
}

// Fits reports whether datasources of shape s may replace those of l: a
// vector layer stays vector, a table a table, a grid or raster a grid or
// raster (imports decide between the last two from the bands).
func (s Shape) Fits(l *ent.Layer) bool {
	return s.Type == l.Type && (s.Kind == layer.KindVector) == (l.Kind == layer.KindVector)
}

// CheckDatasources loads the datasources a layer is to be made from: they
// must exist in sources p may use (access.UseSource), be found by their source's
// last scan, be of one data type (vector, table or grid) and share one
// schema. It returns them in id order with the shape of layer they make.
func CheckDatasources(ctx context.Context, c *ent.Client, p auth.Principal, ids []int) ([]*ent.Datasource, Shape, error) {
	if len(ids) == 0 {
		return nil, Shape{}, apperr.Field("datasources", "Give at least one datasource.")
	}
	usable, err := access.SourcesHeld(ctx, c, p, access.UseSource)
	if err != nil {
		return nil, Shape{}, err
	}
	dss, err := c.Datasource.Query().
		Where(datasource.IDIn(ids...), datasource.HasSourceWith(usable)).
		Order(datasource.ByID()).All(ctx)
	if err != nil {
		return nil, Shape{}, err
	}
	if len(dss) != distinct(ids) {
		return nil, Shape{}, apperr.Field("datasources", "Some datasources do not exist or are not yours to use.")
	}
	first := dss[0]
	for _, d := range dss {
		if d.Missing {
			return nil, Shape{}, apperr.Field("datasources", fmt.Sprintf("Datasource %d was not found by the last scan of its source.", d.ID))
		}
		if d.DataType != first.DataType {
			return nil, Shape{}, apperr.Field("datasources", fmt.Sprintf("Datasources must share one data type: %d is %s, %d is %s.", first.ID, first.DataType, d.ID, d.DataType))
		}
		if !reflect.DeepEqual(d.Fields, first.Fields) || d.GeometryType != first.GeometryType {
			return nil, Shape{}, apperr.Field("datasources", fmt.Sprintf("Datasources must share one schema: %d and %d differ in fields or geometry type.", first.ID, d.ID))
		}
	}
	switch first.DataType {
	case datasource.DataTypeVector:
		return dss, Shape{layer.TypeLayer, layer.KindVector}, nil
	case datasource.DataTypeTable:
		return dss, Shape{layer.TypeTable, layer.KindVector}, nil
	case datasource.DataTypeGrid:
		return dss, Shape{layer.TypeLayer, layer.KindGrid}, nil
	}
	return nil, Shape{}, apperr.Field("datasources", "A document datasource makes a document, not a layer.")
}

// distinct counts the different values in ids.
func distinct(ids []int) int {
	seen := make(map[int]bool, len(ids))
	for _, id := range ids {
		seen[id] = true
	}
	return len(seen)
}
