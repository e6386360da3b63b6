package rest_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// reasonCode is what clients compare: a stable word, no prose.
var reasonCode = regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)

// Issue 24 #20; api-shapes §7.4: invalid_reasons holds codes
// (["outside-extent"]) that clients compare, the prose goes in
// invalid_reasons_detail, one entry per code in the same order; GraphQL's
// invalidReasons and invalidReasonsDetail are the same lists.
func TestExportReasonsAreCodes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		d := publishExportData(t, e)
		far := map[string]any{"type": "Polygon", "coordinates": [][][2]float64{{{170, -46}, {170.1, -46}, {170.1, -45.9}, {170, -46}}}}
		body := map[string]any{"crs": "EPSG:999999", "formats": map[string]any{"vector": "application/x-ogc-gpkg"},
			"items": []map[string]any{{"item": d.points}, {"item": e.API + "/layers/987654/"}}, "extent": far}
		type reasons struct {
			Codes  []string `json:"invalid_reasons"`
			Detail []string `json:"invalid_reasons_detail"`
		}
		var v struct {
			reasons
			Items []struct {
				Item string `json:"item"`
				reasons
			} `json:"items"`
		}
		check := func(where string, rs reasons, want string, prose string) {
			t.Helper()
			if len(rs.Codes) == 0 || len(rs.Codes) != len(rs.Detail) {
				t.Errorf("%s: codes %q, detail %q", where, rs.Codes, rs.Detail)
				return
			}
			found := false
			for i, c := range rs.Codes {
				if !reasonCode.MatchString(c) {
					t.Errorf("%s: %q is not a code", where, c)
				}
				if c == want {
					found = true
					if !strings.Contains(rs.Detail[i], prose) || strings.HasPrefix(rs.Detail[i], c) {
						t.Errorf("%s: detail of %s is %q", where, c, rs.Detail[i])
					}
				}
			}
			if !found {
				t.Errorf("%s: no %s in %q", where, want, rs.Codes)
			}
		}
		for _, path := range []string{"/exports/validate/", "/exports/"} {
			status := http.StatusOK
			if path == "/exports/" {
				status = http.StatusBadRequest
			}
			r := e.Do(t, req{Method: "POST", Path: path, Key: d.owner.Key, Body: body})
			expectStatus(t, r, status)
			r.JSON(t, &v)
			check(path+" top", v.reasons, "crs-invalid", "EPSG:999999")
			for _, it := range v.Items {
				switch it.Item {
				case d.points:
					check(path+" points", it.reasons, "outside-extent", "crop area")
				default:
					check(path+" unknown", it.reasons, "not-found", "")
				}
			}
		}

		in := map[string]any{"crs": "EPSG:999999", "formats": body["formats"], "items": body["items"], "extent": far}
		g := e.GraphQL(t, d.owner.Key, `mutation($in: ExportInput!) {
			validateExport(input: $in) { isValid invalidReasons invalidReasonsDetail items { item invalidReasons invalidReasonsDetail } } }`,
			map[string]any{"in": in})
		if len(g.Errors) > 0 {
			t.Fatalf("validateExport: %v", g.Errors)
		}
		var gv struct {
			ValidateExport struct {
				InvalidReasons, InvalidReasonsDetail []string
				Items                                []struct {
					Item                                 string
					InvalidReasons, InvalidReasonsDetail []string
				}
			}
		}
		if err := json.Unmarshal(g.Data, &gv); err != nil {
			t.Fatal(err)
		}
		check("graphql top", reasons{gv.ValidateExport.InvalidReasons, gv.ValidateExport.InvalidReasonsDetail}, "crs-invalid", "EPSG:999999")
		for _, it := range gv.ValidateExport.Items {
			if it.Item == d.points {
				check("graphql points", reasons{it.InvalidReasons, it.InvalidReasonsDetail}, "outside-extent", "crop area")
			}
		}
	})
}
