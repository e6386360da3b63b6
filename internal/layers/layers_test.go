package layers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/layers"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// CheckDatasources admits datasources of one type and schema in sources
// the caller may use, and names the shape of layer they make; every
// refusal is a 400 on the datasources field.
func TestCheckDatasources(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		c := st.Client
		owner, stranger := storetest.User(t, c, "owner@example.com"), storetest.User(t, c, "stranger@example.com")
		src := c.Source.Create().SetType("upload").SetTitle("Uploads").SetUserID(owner.ID).SaveX(ctx)
		if err := access.GrantCreator(ctx, c, access.KindSource, src.ID, owner.ID); err != nil {
			t.Fatal(err)
		}
		roads := []schematype.Field{{Name: "name", Type: "string"}}
		ds := func(title string, typ datasource.DataType, fields []schematype.Field, missing bool) int {
			return c.Datasource.Create().SetSourceID(src.ID).SetPath(title + ".gpkg").SetTitle(title).SetDataType(typ).
				SetFields(fields).SetGeometryType("linestring").SetMissing(missing).SaveX(ctx).ID
		}
		a, b := ds("a", datasource.DataTypeVector, roads, false), ds("b", datasource.DataTypeVector, roads, false)
		other := ds("other", datasource.DataTypeVector, []schematype.Field{{Name: "id", Type: "integer"}}, false)
		tbl := ds("t", datasource.DataTypeTable, roads, false)
		grid := ds("g", datasource.DataTypeGrid, nil, false)
		doc := ds("d", datasource.DataTypeDocument, nil, false)
		gone := ds("gone", datasource.DataTypeVector, roads, true)

		as := func(u *ent.User) auth.Principal { return auth.Principal{User: u} }
		for _, tc := range []struct {
			name string
			p    auth.Principal
			ids  []int
			want layers.Shape
			err  string
		}{
			{"two vectors", as(owner), []int{b, a}, layers.Shape{Type: layer.TypeLayer, Kind: layer.KindVector}, ""},
			{"one named twice", as(owner), []int{a, a}, layers.Shape{Type: layer.TypeLayer, Kind: layer.KindVector}, ""},
			{"table", as(owner), []int{tbl}, layers.Shape{Type: layer.TypeTable, Kind: layer.KindVector}, ""},
			{"grid", as(owner), []int{grid}, layers.Shape{Type: layer.TypeLayer, Kind: layer.KindGrid}, ""},
			{"none", as(owner), nil, layers.Shape{}, "Give at least one datasource."},
			{"not theirs", as(stranger), []int{a}, layers.Shape{}, "Some datasources do not exist or are not yours to use."},
			{"anonymous", auth.Principal{}, []int{a}, layers.Shape{}, "Some datasources do not exist or are not yours to use."},
			{"no such id", as(owner), []int{a, 999999}, layers.Shape{}, "Some datasources do not exist or are not yours to use."},
			{"two types", as(owner), []int{a, tbl}, layers.Shape{}, "must share one data type"},
			{"two schemas", as(owner), []int{a, other}, layers.Shape{}, "must share one schema"},
			{"missing", as(owner), []int{gone}, layers.Shape{}, "was not found by the last scan of its source"},
			{"document", as(owner), []int{doc}, layers.Shape{}, "A document datasource makes a document, not a layer."},
		} {
			dss, shape, err := layers.CheckDatasources(ctx, c, tc.p, tc.ids)
			if tc.err != "" {
				if err == nil || apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%s: err %v, want a 400 containing %q", tc.name, err, tc.err)
				}
				continue
			}
			if err != nil || shape != tc.want {
				t.Errorf("%s: shape %+v, err %v; want %+v", tc.name, shape, err, tc.want)
				continue
			}
			if len(dss) == 0 || dss[0].ID > dss[len(dss)-1].ID {
				t.Errorf("%s: datasources %v not in id order", tc.name, dss)
			}
		}
	})
}

// A layer's datasources may be replaced by ones of the same shape only; a
// grid and a raster are one shape, as imports tell them apart.
func TestShapeFits(t *testing.T) {
	vector := layers.Shape{Type: layer.TypeLayer, Kind: layer.KindVector}
	table := layers.Shape{Type: layer.TypeTable, Kind: layer.KindVector}
	grid := layers.Shape{Type: layer.TypeLayer, Kind: layer.KindGrid}
	for _, tc := range []struct {
		shape layers.Shape
		l     ent.Layer
		fits  bool
	}{
		{vector, ent.Layer{Type: layer.TypeLayer, Kind: layer.KindVector}, true},
		{table, ent.Layer{Type: layer.TypeLayer, Kind: layer.KindVector}, false},
		{vector, ent.Layer{Type: layer.TypeTable, Kind: layer.KindVector}, false},
		{grid, ent.Layer{Type: layer.TypeLayer, Kind: layer.KindRaster}, true},
		{grid, ent.Layer{Type: layer.TypeLayer, Kind: layer.KindVector}, false},
		{vector, ent.Layer{Type: layer.TypeLayer, Kind: layer.KindGrid}, false},
	} {
		if got := tc.shape.Fits(&tc.l); got != tc.fits {
			t.Errorf("%+v fits %s %s: %v, want %v", tc.shape, tc.l.Kind, tc.l.Type, got, tc.fits)
		}
	}
}
