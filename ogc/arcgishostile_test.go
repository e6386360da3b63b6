package ogc_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestArcGISQueryRefusesHostileInput sends what an attacker or a broken
// client would through the real router: each is a 400 with the Esri
// error document naming the problem, never a 500, never features.
func TestArcGISQueryRefusesHostileInput(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newFixture(t, e)
		deep := strings.Repeat("(", 5000) + "1=1" + strings.Repeat(")", 5000)
		nots := strings.Repeat("NOT ", 2000) + "rank = 1"
		var in strings.Builder
		in.WriteString("rank IN (")
		for i := 0; i < 20000; i++ {
			if i > 0 {
				in.WriteString(",")
			}
			in.WriteString(fmt.Sprint(i))
		}
		in.WriteString(")")
		var ids strings.Builder
		for i := 0; i < 20000; i++ {
			fmt.Fprintf(&ids, "%d,", i)
		}
		bigRing := make([][2]float64, 0, 200001)
		for i := 0; i < 200000; i++ {
			bigRing = append(bigRing, [2]float64{174 + float64(i)*1e-6, -41})
		}
		bigRing = append(bigRing, bigRing[0])
		bigPoly, _ := json.Marshal(map[string]any{"rings": [][][2]float64{bigRing}})
		cases := map[string]url.Values{
			"stacked statement":    {"where": {"1=1; DROP TABLE features"}},
			"comment":              {"where": {"name = 'x' -- '"}},
			"quote break":          {"where": {"name = 'x'' OR 1=1"}},
			"union":                {"where": {"1=1 UNION SELECT * FROM users"}},
			"subquery":             {"where": {"rank IN (SELECT id FROM users)"}},
			"function":             {"where": {"pg_sleep(10) = 1"}},
			"unknown field":        {"where": {"password = 'x'"}},
			"deep nesting":         {"where": {deep}},
			"deep NOT":             {"where": {nots}},
			"huge IN list":         {"where": {in.String()}},
			"NUL":                  {"where": {"name = 'a\x00'"}},
			"bad UTF-8":            {"where": {"name = '\xff\xfe'"}},
			"objectIds text":       {"objectIds": {"1,two,3"}},
			"objectIds injection":  {"objectIds": {"1) OR (1=1"}},
			"too many objectIds":   {"objectIds": {ids.String()}},
			"geometry garbage":     {"geometry": {"{not json"}},
			"geometry NaN":         {"geometry": {"NaN,0,1,1"}},
			"geometry inverted":    {"geometry": {"10,10,0,0"}},
			"geometry missing":     {"geometry": {`{"xmin":1}`}},
			"geometry type":        {"geometry": {`{"x":1,"y":2}`}, "geometryType": {"esriGeometryCircle"}},
			"polygon short ring":   {"geometry": {`{"rings":[[[0,0],[1,1]]]}`}, "geometryType": {"esriGeometryPolygon"}},
			"polygon huge":         {"geometry": {string(bigPoly)}, "geometryType": {"esriGeometryPolygon"}},
			"polyline nested":      {"geometry": {`{"paths":[[["a","b"]]]}`}, "geometryType": {"esriGeometryPolyline"}},
			"spatialRel":           {"geometry": {"0,0,1,1"}, "spatialRel": {"esriSpatialRelRelation"}},
			"spatialRel garbage":   {"geometry": {"0,0,1,1"}, "spatialRel": {"'; DROP"}},
			"inSR text":            {"geometry": {"0,0,1,1"}, "inSR": {"EPSG:4326'"}},
			"inSR unknown":         {"geometry": {"0,0,1,1"}, "inSR": {"999999"}},
			"inSR wkt":             {"geometry": {"0,0,1,1"}, "inSR": {`{"wkt":"GEOGCS[...]"}`}},
			"inSR JSON garbage":    {"geometry": {"0,0,1,1"}, "inSR": {`{"wkid":"x"}`}},
			"outSR garbage":        {"outSR": {"web mercator"}},
			"outSR negative":       {"outSR": {"-3857"}},
			"outSR vertical":       {"outSR": {"5773"}},
			"outFields unknown":    {"outFields": {"name,password"}},
			"outFields injection":  {"outFields": {"name; DROP TABLE features"}},
			"orderBy unknown":      {"orderByFields": {"password"}},
			"orderBy direction":    {"orderByFields": {"name SIDEWAYS"}},
			"orderBy injection":    {"orderByFields": {"name; DROP TABLE features"}},
			"orderBy words":        {"orderByFields": {"name DESC NULLS FIRST"}},
			"statistics garbage":   {"outStatistics": {"[{"}},
			"statistics type":      {"outStatistics": {`[{"statisticType":"median","onStatisticField":"rank"}]`}},
			"statistics field":     {"outStatistics": {`[{"statisticType":"sum","onStatisticField":"password"}]`}},
			"statistics text sum":  {"outStatistics": {`[{"statisticType":"sum","onStatisticField":"name"}]`}},
			"statistics empty":     {"outStatistics": {`[]`}},
			"groupBy without stat": {"groupByFieldsForStatistics": {"rank"}},
			"groupBy unknown":      {"outStatistics": {`[{"statisticType":"count","onStatisticField":"rank"}]`}, "groupByFieldsForStatistics": {"secret"}},
			"resultOffset":         {"resultOffset": {"-1"}},
			"resultOffset text":    {"resultOffset": {"ten"}},
			"resultRecordCount":    {"resultRecordCount": {"1e9"}},
			"returnGeometry":       {"returnGeometry": {"maybe"}},
			"returnCountOnly":      {"returnCountOnly": {"yes please"}},
			"format":               {"f": {"kml"}},
		}
		path := fmt.Sprintf("/services/layer_%d/FeatureServer/0/query", f.points)
		for name, params := range cases {
			if params.Get("where") == "" {
				params.Set("where", "1=1")
			}
			if params.Get("f") == "" {
				params.Set("f", "json")
			}
			for _, post := range []bool{false, true} {
				var st int
				var b []byte
				if post {
					st, b = arcgis(t, e, "", path, params)
				} else {
					st, b = arcgis(t, e, "", path+"?"+params.Encode(), nil)
				}
				if name == "polygon huge" && !post && st == 414 || len(path+params.Encode()) > 1<<20 && !post {
					continue // the URL itself is refused by the HTTP server
				}
				var doc struct {
					Error *struct {
						Code    int
						Message string
						Details []string
					}
				}
				if err := json.Unmarshal(b, &doc); err != nil || st != 400 || doc.Error == nil || doc.Error.Code != 400 || len(doc.Error.Details) == 0 {
					t.Errorf("%s (post %v): %d %.300s", name, post, st, b)
				}
			}
		}
	})
}
