package wfs

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// capabilities is what Geopub reads of a GetCapabilities answer, for
// WFS 1.1.0 and 2.0.0 alike (elements are matched by local name).
type capabilities struct {
	XMLName    xml.Name
	Version    string        `xml:"version,attr"`
	Operations []operation   `xml:"OperationsMetadata>Operation"`
	Parameters []parameter   `xml:"OperationsMetadata>Parameter"`
	Limits     []parameter   `xml:"OperationsMetadata>Constraint"`
	Types      []featureType `xml:"FeatureTypeList>FeatureType"`
}

type operation struct {
	Name       string      `xml:"name,attr"`
	Parameters []parameter `xml:"Parameter"`
}

type parameter struct {
	Name    string   `xml:"name,attr"`
	Values  []string `xml:"AllowedValues>Value"`
	Value   []string `xml:"Value"`
	Default string   `xml:"DefaultValue"`
}

type featureType struct {
	Name       string   `xml:"Name"`
	Title      string   `xml:"Title"`
	DefaultCRS string   `xml:"DefaultCRS"`
	DefaultSRS string   `xml:"DefaultSRS"`
	Formats    []string `xml:"OutputFormats>Format"`
	Lower      string   `xml:"WGS84BoundingBox>LowerCorner"`
	Upper      string   `xml:"WGS84BoundingBox>UpperCorner"`
}

// exceptionReport is an OWS error answer.
type exceptionReport struct {
	Exceptions []struct {
		Code string `xml:"exceptionCode,attr"`
		Text string `xml:"ExceptionText"`
	} `xml:"Exception"`
}

// owsError returns the server's message when body is an exception
// report, else nil.
func owsError(body []byte) error {
	head := body
	if len(head) > 2048 {
		head = head[:2048]
	}
	if !bytes.Contains(head, []byte("ExceptionReport")) && !bytes.Contains(head, []byte("ServiceExceptionReport")) {
		return nil
	}
	var r exceptionReport
	if err := xml.Unmarshal(body, &r); err != nil || len(r.Exceptions) == 0 {
		return fmt.Errorf("the server answered with an error")
	}
	e := r.Exceptions[0]
	return fmt.Errorf("the server answered with an error: %s", clip(strings.Join(strings.Fields(e.Code+" "+e.Text), " "), 300))
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func parseCapabilities(body []byte) (*capabilities, error) {
	if err := owsError(body); err != nil {
		return nil, err
	}
	var c capabilities
	if err := xml.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("the server's capabilities are not readable XML: %s", clip(err.Error(), 200))
	}
	if c.XMLName.Local != "WFS_Capabilities" {
		return nil, fmt.Errorf("the server did not answer with WFS capabilities (got <%s>)", clip(c.XMLName.Local, 60))
	}
	return &c, nil
}

// crs is a feature type's default CRS.
func (t featureType) crs() string {
	if t.DefaultCRS != "" {
		return t.DefaultCRS
	}
	return t.DefaultSRS
}

// extent is the type's WGS84 bounding box, nil when absent or invalid.
func (t featureType) extent() *[4]float64 {
	lo, hi := strings.Fields(t.Lower), strings.Fields(t.Upper)
	if len(lo) != 2 || len(hi) != 2 {
		return nil
	}
	var e [4]float64
	for i, s := range []string{lo[0], lo[1], hi[0], hi[1]} {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil
		}
		e[i] = v
	}
	if e[0] > e[2] || e[1] > e[3] || e[0] < -180 || e[2] > 180 || e[1] < -90 || e[3] > 90 {
		return nil
	}
	return &e
}

// getFeatureFormats lists the output formats GetFeature offers for t.
func (c *capabilities) getFeatureFormats(t featureType) []string {
	if len(t.Formats) > 0 {
		return t.Formats
	}
	for _, op := range c.Operations {
		if op.Name != "GetFeature" {
			continue
		}
		for _, p := range op.Parameters {
			if strings.EqualFold(p.Name, "outputFormat") {
				return append(p.Values, p.Value...)
			}
		}
	}
	return nil
}

// pageCap is the most features the server sends in one answer when it
// says (CountDefault in 2.0, DefaultMaxFeatures in 1.1), else 0.
func (c *capabilities) pageCap() int {
	for _, p := range c.Limits {
		if p.Name != "CountDefault" && p.Name != "DefaultMaxFeatures" {
			continue
		}
		for _, v := range append([]string{p.Default}, append(p.Value, p.Values...)...) {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// jsonFormat picks a GeoJSON output format among formats, "" when none.
func jsonFormat(formats []string) string {
	best := ""
	for _, f := range formats {
		l := strings.ToLower(f)
		switch {
		case strings.Contains(l, "geojson") || strings.Contains(l, "geo+json"):
			return f
		case l == "application/json" || l == "json":
			best = f
		}
	}
	return best
}

// gmlFormat picks the GML output format of version among formats, ""
// for the server's default.
func gmlFormat(version string, formats []string) string {
	want := []string{"gml/3.1.1", "gml3"}
	if version == v20 {
		want = []string{"application/gml+xml; version=3.2", "gml/3.2"}
	}
	for _, w := range want {
		for _, f := range formats {
			if strings.Contains(strings.ToLower(f), w) {
				return f
			}
		}
	}
	return ""
}

// epsgCode reads the EPSG code of a CRS name in its usual spellings
// (EPSG:n, urn:ogc:def:crs:EPSG::n, urn:x-ogc:def:crs:EPSG:n,
// http://www.opengis.net/def/crs/EPSG/0/n, …/gml/srs/epsg.xml#n); 0 when
// none.
func epsgCode(name string) int {
	s := strings.TrimSpace(name)
	i := strings.LastIndexAny(s, ":/#")
	if i < 0 || !strings.Contains(strings.ToUpper(s), "EPSG") {
		return 0
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// crsName is Geopub's name for a CRS the server names: "EPSG:n", the name
// itself when not EPSG, "" when none. CRS84 is EPSG:4326 in lon/lat order.
func crsName(name string) string {
	if strings.HasSuffix(strings.ToUpper(name), "CRS84") {
		return "EPSG:4326"
	}
	if n := epsgCode(name); n > 0 {
		return "EPSG:" + strconv.Itoa(n)
	}
	return strings.TrimSpace(name)
}
