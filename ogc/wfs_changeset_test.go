package ogc_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
)

// pkFields are the schema of a layer whose features are identified by
// their code.
var pkFields = []schematype.Field{{Name: "GEOMETRY", Type: "geometry"}, {Name: "code", Type: "integer"}, {Name: "name", Type: "string"}}

// publishPKVersion stores a version of a layer with a primary key
// (creating the layer when id is 0), published at at unless draft.
func publishPKVersion(t *testing.T, e *env, owner *ent.User, id int, at time.Time, draft bool, fs []feature) int {
	t.Helper()
	return publishKeyedVersion(t, e, owner, id, at, draft, pkFields, fs)
}

// publishKeyedVersion is publishPKVersion with the fields given (the key
// is code).
func publishKeyedVersion(t *testing.T, e *env, owner *ent.User, id int, at time.Time, draft bool, fields []schematype.Field, fs []feature) int {
	t.Helper()
	ctx := context.Background()
	err := e.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
		if id == 0 {
			l, err := c.Layer.Create().SetType(layer.TypeLayer).SetKind(layer.KindVector).SetName("Parcels").SetUserID(owner.ID).
				SetFirstPublishedAt(at).SetPublishedAt(at).Save(ctx)
			if err != nil {
				return err
			}
			id = l.ID
			if err := access.GrantDefaults(ctx, c, access.KindLayer, l.ID, owner.ID); err != nil {
				return err
			}
		}
		vc := c.LayerVersion.Create().SetLayerID(id).SetName("Parcels").SetCreatedBy(owner.ID).
			SetStatus(layerversion.StatusOk).SetProgress(1).SetDatasourceIds([]int{}).SetCrs("EPSG:4326").
			SetGeometryType("point").SetGeometryField("GEOMETRY").SetFields(fields).SetPrimaryKeyFields([]string{"code"}).
			SetFeatureCount(int64(len(fs)))
		if draft {
			vc.SetState(layerversion.StateDraft)
		} else {
			vc.SetState(layerversion.StatePublished).SetPublishedAt(at)
		}
		v, err := vc.Save(ctx)
		if err != nil {
			return err
		}
		if err := writeFeatures(ctx, e, tx, v.ID, fs); err != nil {
			return err
		}
		if draft {
			return nil
		}
		if _, err := c.LayerVersion.Update().Where(layerversion.LayerID(id), layerversion.IDNEQ(v.ID),
			layerversion.StateEQ(layerversion.StatePublished)).SetState(layerversion.StateSuperseded).Save(ctx); err != nil {
			return err
		}
		return c.Layer.UpdateOneID(id).SetPublishedVersionID(v.ID).SetPublishedAt(at).Exec(ctx)
	})
	if err != nil {
		t.Fatalf("publishing a version: %v", err)
	}
	return id
}

// The changeset type of a layer with a primary key: the features that
// changed between the versions published at two times, with __change__.
func TestWFSChangesets(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner, reader := e.NewUser(t, "Owner"), e.NewUser(t, "Reader")
		t1 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		t2, t3 := t1.Add(24*time.Hour), t1.Add(48*time.Hour)
		pf := func(fid int64, code int64, name string, x float64) feature {
			return feature{fid, pt(174+x, -41), map[string]any{"code": code, "name": name}}
		}
		id := publishPKVersion(t, e, owner.User, 0, t1, false, []feature{pf(1, 10, "a", 0), pf(2, 20, "b", 0.1), pf(3, 30, "c", 0.2)})
		// B renamed, C deleted, D inserted; then D moved and A deleted.
		publishPKVersion(t, e, owner.User, id, t2, false, []feature{pf(1, 10, "a", 0), pf(2, 20, "b2", 0.1), pf(4, 40, "d", 0.3)})
		publishPKVersion(t, e, owner.User, id, t3, false, []feature{pf(2, 20, "b2", 0.1), pf(4, 40, "d", 0.35)})
		// A draft after them is never part of a changeset.
		publishPKVersion(t, e, owner.User, id, t3.Add(time.Hour), true, []feature{pf(9, 90, "draft", 0)})
		typ := fmt.Sprintf("geopub:layer-%d-changeset", id)
		f := &fixture{e: e, owner: owner, reader: reader}

		changes := func(key, viewparams string, extra ...string) map[string]string {
			t.Helper()
			params := append([]string{"REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", typ, "OUTPUTFORMAT", "application/json",
				"VIEWPARAMS", viewparams}, extra...)
			var fc struct {
				Features []struct {
					Properties map[string]any `json:"properties"`
				} `json:"features"`
			}
			f.wfs(t, key, params...).json(t, http.StatusOK, "application/json", &fc)
			out := map[string]string{}
			for _, ft := range fc.Features {
				out[ft.Properties["name"].(string)] = ft.Properties["__change__"].(string)
			}
			return out
		}
		ts := func(t time.Time) string { return t.Format(time.RFC3339) }
		for _, tc := range []struct {
			from, to time.Time
			extra    []string
			want     map[string]string
		}{
			// FROM is exclusive of the version published at it.
			{t1, t2, nil, map[string]string{"b2": "UPDATE", "c": "DELETE", "d": "INSERT"}},
			// Collapsed over the range: d inserted then moved is an insert.
			{t1, t3, nil, map[string]string{"a": "DELETE", "b2": "UPDATE", "c": "DELETE", "d": "INSERT"}},
			{t2, t3.Add(2 * time.Hour), nil, map[string]string{"a": "DELETE", "d": "UPDATE"}},
			// Before the first publish: everything is an insert.
			{t1.Add(-time.Hour), t1, nil, map[string]string{"a": "INSERT", "b": "INSERT", "c": "INSERT"}},
			{t2, t2, nil, map[string]string{}},
			// Standard filters apply, __change__ included.
			{t1, t3, []string{"FILTER", `<Filter><PropertyIsEqualTo><ValueReference>__change__</ValueReference><Literal>DELETE</Literal></PropertyIsEqualTo></Filter>`},
				map[string]string{"a": "DELETE", "c": "DELETE"}},
			{t1, t3, []string{"BBOX", "174.25,-41.1,174.4,-40.9,EPSG:4326"}, map[string]string{"d": "INSERT"}},
		} {
			vp := "from:" + ts(tc.from) + ";to:" + ts(tc.to)
			if got := changes(owner.Key, vp, tc.extra...); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("%s %v: %v, want %v", vp, tc.extra, got, tc.want)
			}
		}

		// viewparams as clients send it: its semicolon unencoded.
		var fc wfsJSON
		f.get(t, owner.Key, e.HTTP.URL+"/services/wfs/?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&OUTPUTFORMAT=application/json&TYPENAMES="+
			typ+"&viewparams=from:"+ts(t1)+";to:"+ts(t2)).json(t, http.StatusOK, "application/json", &fc)
		if fc.NumberReturned != 3 || fc.NumberMatched == nil || *fc.NumberMatched != 3 {
			t.Errorf("unencoded viewparams: %+v", fc)
		}

		// Listed in the capabilities; described with __change__.
		r := f.wfs(t, owner.Key, "REQUEST", "GetCapabilities")
		if !slices.Contains(typeNames(t, r.body), typ) {
			t.Errorf("capabilities lack %s", typ)
		}
		r = f.wfs(t, owner.Key, "REQUEST", "DescribeFeatureType", "VERSION", "2.0.0", "TYPENAMES", typ)
		if !strings.Contains(string(r.body), `name="__change__"`) {
			t.Errorf("DescribeFeatureType: %s", r.body)
		}
		f.wfs(t, owner.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", typ).exception(t, 400, "MissingParameterValue")

		// The wfs-changesets service rule: disabled, the type is gone
		// (the layer's plain type stays).
		f.call(t, owner.Key, "PUT", fmt.Sprintf("/layers/%d/services/wfs-changesets/", id), `{"enabled": false}`, http.StatusOK)
		waitFresh()
		f.wfs(t, owner.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", typ, "VIEWPARAMS", "from:"+ts(t1)).exception(t, 404, "NotFound")
		names := typeNames(t, f.wfs(t, owner.Key, "REQUEST", "GetCapabilities").body)
		if slices.Contains(names, typ) || !slices.Contains(names, fmt.Sprintf("geopub:layer-%d", id)) {
			t.Errorf("disabled changesets: types %v", names)
		}

		// A layer without a primary key has no changeset type.
		plain := publish(t, e, owner.User, layer.TypeLayer, "Plain", "point", attrFields, []feature{{1, pt(174, -41), map[string]any{"name": "x"}}})
		f.wfs(t, owner.Key, "REQUEST", "GetFeature", "VERSION", "2.0.0", "TYPENAMES", fmt.Sprintf("geopub:layer-%d-changeset", plain),
			"VIEWPARAMS", "from:"+ts(t1)).exception(t, 404, "NotFound")
	})
}
