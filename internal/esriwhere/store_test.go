package esriwhere_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/cql2"
	"github.com/geopub/geopub/internal/esriwhere"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/ogcfeatures"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// Where clauses as the FeatureServer door uses them: parsed against a
// stored version's fields (FieldsOf) and passed as
// ogcfeatures.Filter.Expr to Items, on both stores, over attributes as
// imports store them (integers, doubles, booleans, dates as
// "2024-01-01", date-times as RFC 3339, nulls). OBJECTID, the feature id,
// is matched as the door must: the fid added to the properties.
func TestWhereOnStoredFeatures(t *testing.T) {
	schema := []schematype.Field{{Name: "GEOMETRY", Type: "geometry"}, {Name: "NAME", Type: "string"},
		{Name: "Rank", Type: "integer"}, {Name: "area", Type: "double"}, {Name: "open", Type: "boolean"},
		{Name: "day", Type: "date"}, {Name: "seen", Type: "datetime"}}
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	rows := []featurerows.Row{
		{FID: 1, Attrs: map[string]any{"NAME": "Wellington", "Rank": int64(1), "area": 290.5, "open": true, "day": "1840-01-22", "seen": at("2020-01-01T10:30:00Z")}},
		{FID: 2, Attrs: map[string]any{"NAME": "O'Brien's 100%", "Rank": int64(7), "area": 0.5, "open": false, "day": "2020-01-01", "seen": at("2020-01-01T00:00:00Z")}},
		{FID: 3, Attrs: map[string]any{"NAME": "auckland_1", "Rank": nil, "area": 1086.0, "open": nil, "day": nil, "seen": at("2021-06-30T23:59:59+12:00")}},
		{FID: 4, Attrs: map[string]any{"NAME": nil, "Rank": int64(-3), "area": nil, "open": true, "day": "2020-02-29", "seen": nil}},
	}
	cases := []struct {
		where string
		want  string // fids kept
	}{
		{"1=1", "[1 2 3 4]"},
		{"1=0", "[]"},
		{"NAME = 'O''Brien''s 100%'", "[2]"},
		{"name LIKE '%100!%' ESCAPE '!'", "[2]"},
		{"UPPER(NAME) LIKE 'AUCK%'", "[3]"},
		{"NAME NOT LIKE 'W%'", "[2 3]"},
		{"Rank > 0", "[1 2]"},
		{"rank IN (1, 7, 99)", "[1 2]"},
		{"Rank IS NULL OR Rank < 0", "[3 4]"},
		{"area BETWEEN 0.5 AND 300", "[1 2]"},
		{"open = 1", "[1 4]"},
		{"open = FALSE", "[2]"},
		{"day = DATE '2020-01-01'", "[2]"},
		{"day >= date '2020-01-01'", "[2 4]"},
		{"seen >= TIMESTAMP '2020-01-01 00:00:00' AND seen < TIMESTAMP '2020-01-01 12:00:00'", "[1 2]"},
		{"seen > '2021-06-30 12:00:00'", "[]"}, // 23:59:59+12:00 is 11:59:59Z
		{"seen BETWEEN DATE '2021-06-30' AND DATE '2021-07-01'", "[3]"},
		{"NOT (NAME IS NULL) AND area < Rank", "[2]"},
	}
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		owner := storetest.User(t, st.Client, "where@example.com")
		var vid int
		err := st.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
			now := time.Now().UTC()
			l, err := c.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindVector).SetName("where").SetUserID(owner.ID).
				SetFirstPublishedAt(now).SetPublishedAt(now).Save(ctx)
			if err != nil {
				return err
			}
			v, err := c.LayerVersion.Create().SetLayerID(l.ID).SetName("where").SetCreatedBy(owner.ID).
				SetState(layerversion.StatePublished).SetStatus(layerversion.StatusOk).SetProgress(1).
				SetDatasourceIds([]int{}).SetPublishedAt(now).SetCrs("EPSG:4326").SetGeometryType("Point").SetGeometryField("GEOMETRY").
				SetFields(schema).SetFeatureCount(int64(len(rows))).Save(ctx)
			if err != nil {
				return err
			}
			vid = v.ID
			w, err := featurerows.NewWriter(ctx, st, tx, v.ID)
			if err != nil {
				return err
			}
			for i, r := range rows {
				if r.Geom, err = wkb.Marshal(geom.NewPointFlat(geom.XY, []float64{174 + float64(i)/10, -41}), binary.LittleEndian); err != nil {
					return err
				}
				if err := w.Write(r); err != nil {
					return err
				}
			}
			_, err = w.Close()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		c := &ogcfeatures.Collection{ID: "layer-1", VersionID: vid, Fields: schema[1:], GeometryType: "Point", GeometryField: "GEOMETRY"}
		svc := ogcfeatures.New(st, 0, nil)
		fields := esriwhere.FieldsOf(schema, "OBJECTID")
		read := func(e cql2.Expr) []ogcfeatures.Item {
			page, err := svc.Items(ctx, c, ogcfeatures.Filter{Expr: e, Collection: c}, nil, 100)
			if err != nil {
				t.Fatal(err)
			}
			return page.Items
		}
		for _, tc := range cases {
			e, err := esriwhere.Parse(tc.where, fields)
			if err != nil {
				t.Errorf("%s: %v", tc.where, err)
				continue
			}
			fids := []int64{}
			for _, it := range read(e) {
				fids = append(fids, it.FID)
			}
			if got := fmt.Sprint(fids); got != tc.want {
				t.Errorf("%s (%s): %s, want %s", tc.where, show(e), got, tc.want)
			}
		}
		// OBJECTID: the door gives each feature its fid as a property.
		all := read(nil)
		for _, tc := range []struct{ where, want string }{
			{"OBJECTID > 2", "[3 4]"},
			{"objectid IN (1, 4) AND open = 1", "[1 4]"},
			{"OBJECTID BETWEEN 2 AND 3 OR NAME LIKE 'W%'", "[1 2 3]"},
		} {
			e, err := esriwhere.Parse(tc.where, fields)
			if err != nil {
				t.Fatalf("%s: %v", tc.where, err)
			}
			fids := []int64{}
			for _, it := range all {
				var props map[string]any
				if err := json.Unmarshal(it.Attrs, &props); err != nil {
					t.Fatal(err)
				}
				props["OBJECTID"] = float64(it.FID)
				if cql2.Match(e, &cql2.Feature{Props: props}) {
					fids = append(fids, it.FID)
				}
			}
			if got := fmt.Sprint(fids); got != tc.want {
				t.Errorf("%s (%s): %s, want %s", tc.where, show(e), got, tc.want)
			}
		}
	})
}
