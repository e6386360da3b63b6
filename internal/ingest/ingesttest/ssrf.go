package ingesttest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Tattler is a loopback HTTP server that counts the requests it receives
// and answers each with a schema defining a "leaked" field: the shape of
// the answer an attacker would want GDAL to turn into a datasource's
// fields.
type Tattler struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

// NewTattler starts a Tattler that stops when the test ends.
func NewTattler(t testing.TB) *Tattler {
	tt := &Tattler{}
	tt.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tt.mu.Lock()
		tt.seen = append(tt.seen, r.Method+" "+r.URL.String())
		tt.mu.Unlock()
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprint(w, LeakSchema)
	}))
	t.Cleanup(tt.Close)
	return tt
}

// Requests are the requests received so far.
func (tt *Tattler) Requests() []string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return append([]string(nil), tt.seen...)
}

// LeakSchema is the schema a Tattler answers with.
const LeakSchema = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:gml="http://www.opengis.net/gml"
 xmlns:ms="http://example.com/ms" targetNamespace="http://example.com/ms" elementFormDefault="qualified">
<xs:element name="towns" type="ms:townsType" substitutionGroup="gml:_Feature"/>
<xs:complexType name="townsType"><xs:complexContent><xs:extension base="gml:AbstractFeatureType"><xs:sequence>
<xs:element name="geom" type="gml:PointPropertyType"/>
<xs:element name="leaked" type="xs:int"/>
<xs:element name="name" type="xs:string"/>
</xs:sequence></xs:extension></xs:complexContent></xs:complexType>
</xs:schema>`

const gmlFeatures = `<gml:featureMember><ms:towns><ms:name>Wellington</ms:name>` +
	`<ms:geom><gml:Point><gml:coordinates>174.77,-41.28</gml:coordinates></gml:Point></ms:geom></ms:towns></gml:featureMember>`

// SSRFFiles are uploads that would make GDAL fetch from base (a Tattler's
// URL): a GML file whose schemaLocation is a WFS DescribeFeatureType
// request, a GML file whose local .xsd includes URLs (plain and through
// /vsicurl/), and a VRT reading a raster through /vsicurl/.
func SSRFFiles(base string) map[string]string {
	head := `<?xml version="1.0" encoding="utf-8"?>` + "\n" +
		`<wfs:FeatureCollection xmlns:wfs="http://www.opengis.net/wfs" xmlns:gml="http://www.opengis.net/gml"` +
		` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ms="http://example.com/ms"`
	return map[string]string{
		"wfs/towns.gml": head + ` xsi:schemaLocation="http://example.com/ms ` + base +
			`/wfs?SERVICE=WFS&amp;VERSION=1.0.0&amp;REQUEST=DescribeFeatureType&amp;TYPENAME=towns">` + "\n" +
			gmlFeatures + "\n</wfs:FeatureCollection>\n",
		"xsd/towns.gml": head + ` xsi:schemaLocation="http://example.com/ms towns.xsd">` + "\n" +
			gmlFeatures + "\n</wfs:FeatureCollection>\n",
		"xsd/towns.xsd": `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
			`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="http://example.com/ms">` +
			`<xs:include schemaLocation="` + base + `/include.xsd"/>` +
			`<xs:include schemaLocation="/vsicurl/` + base + `/vsicurl-include.xsd"/>` +
			`</xs:schema>`,
		"vrt/remote.vrt": `<VRTDataset rasterXSize="1" rasterYSize="1"><VRTRasterBand dataType="Byte" band="1">` +
			`<SimpleSource><SourceFilename relativeToVRT="0">/vsicurl/` + base + `/x.tif</SourceFilename>` +
			`<SourceBand>1</SourceBand></SimpleSource></VRTRasterBand></VRTDataset>`,
	}
}

// Leaked reports whether fields (name:type pairs or names) hold the field
// only the Tattler's schema defines.
func Leaked(fields string) bool { return strings.Contains(fields, "leaked") }
