package rastertiles

import (
	"bytes"
	"encoding/xml"
	"math"
	"strconv"
	"text/template"
)

// TileMatrixSet is the identifier of the one tile matrix set served: Web
// Mercator in Google Maps' well-known scale set, zoom z being matrix z.
const TileMatrixSet = "EPSG:3857"

// scale0 is the scale denominator of zoom 0 in GoogleMapsCompatible
// (0.28 mm pixels).
const scale0 = 559082264.0287178

// WMTSLinks are the URLs a capabilities document names.
type WMTSLinks struct {
	// Capabilities is the document's own URL.
	Capabilities string
	// KVP is the base of GetCapabilities and GetTile requests in
	// key-value form (it ends in ? or &).
	KVP string
	// Tile is the RESTful tile URL template with {TileMatrix},
	// {TileCol}, {TileRow} and {Style} for each format.
	Tile map[Format]string
}

type wmtsMatrix struct {
	ID            int
	Scale         float64
	Width, Height int
}

type wmtsFormat struct {
	Type, Template string
}

type wmtsDoc struct {
	Src      *Source
	Links    WMTSLinks
	Formats  []wmtsFormat
	Matrices []wmtsMatrix
	Style    string
	Set      string
	Half     string
}

// Capabilities is the WMTS 1.0.0 GetCapabilities document of src: one
// layer (src.Name), its style, formats and RESTful tile templates, and
// the tile matrix set EPSG:3857 from zoom 0 to src.MaxZoom.
func Capabilities(src *Source, links WMTSLinks) ([]byte, error) {
	d := wmtsDoc{Src: src, Links: links, Style: DefaultStyle, Set: TileMatrixSet, Half: ftoa(mercatorHalf)}
	for _, f := range Formats {
		if t, ok := links.Tile[f]; ok {
			d.Formats = append(d.Formats, wmtsFormat{Type: f.ContentType(), Template: t})
		}
	}
	for z := 0; z <= src.MaxZoom; z++ {
		n := 1 << z
		d.Matrices = append(d.Matrices, wmtsMatrix{ID: z, Scale: scale0 / math.Exp2(float64(z)), Width: n, Height: n})
	}
	var b bytes.Buffer
	if err := capabilitiesTemplate.Execute(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func xmlText(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

var capabilitiesTemplate = template.Must(template.New("wmts").Funcs(template.FuncMap{"x": xmlText, "num": num}).Parse(`<?xml version="1.0" encoding="UTF-8"?>
<Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.opengis.net/wmts/1.0 http://schemas.opengis.net/wmts/1.0/wmtsGetCapabilities_response.xsd" version="1.0.0">
  <ows:ServiceIdentification>
    <ows:Title>{{x .Src.Title}}</ows:Title>
    <ows:ServiceType>OGC WMTS</ows:ServiceType>
    <ows:ServiceTypeVersion>1.0.0</ows:ServiceTypeVersion>
  </ows:ServiceIdentification>
  <ows:OperationsMetadata>
    <ows:Operation name="GetCapabilities">
      <ows:DCP><ows:HTTP><ows:Get xlink:href="{{x .Links.KVP}}"><ows:Constraint name="GetEncoding"><ows:AllowedValues><ows:Value>KVP</ows:Value></ows:AllowedValues></ows:Constraint></ows:Get></ows:HTTP></ows:DCP>
    </ows:Operation>
    <ows:Operation name="GetTile">
      <ows:DCP><ows:HTTP><ows:Get xlink:href="{{x .Links.KVP}}"><ows:Constraint name="GetEncoding"><ows:AllowedValues><ows:Value>KVP</ows:Value></ows:AllowedValues></ows:Constraint></ows:Get></ows:HTTP></ows:DCP>
    </ows:Operation>
  </ows:OperationsMetadata>
  <Contents>
    <Layer>
      <ows:Title>{{x .Src.Title}}</ows:Title>
      <ows:WGS84BoundingBox>
        <ows:LowerCorner>{{num (index .Src.Bounds 0)}} {{num (index .Src.Bounds 1)}}</ows:LowerCorner>
        <ows:UpperCorner>{{num (index .Src.Bounds 2)}} {{num (index .Src.Bounds 3)}}</ows:UpperCorner>
      </ows:WGS84BoundingBox>
      <ows:Identifier>{{x .Src.Name}}</ows:Identifier>
      <Style isDefault="true">
        <ows:Title>Default</ows:Title>
        <ows:Identifier>{{x .Style}}</ows:Identifier>
      </Style>
{{- range .Formats}}
      <Format>{{.Type}}</Format>
{{- end}}
      <TileMatrixSetLink>
        <TileMatrixSet>{{.Set}}</TileMatrixSet>
      </TileMatrixSetLink>
{{- range .Formats}}
      <ResourceURL format="{{.Type}}" resourceType="tile" template="{{x .Template}}"/>
{{- end}}
    </Layer>
    <TileMatrixSet>
      <ows:Identifier>{{.Set}}</ows:Identifier>
      <ows:SupportedCRS>urn:ogc:def:crs:EPSG::3857</ows:SupportedCRS>
      <WellKnownScaleSet>urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible</WellKnownScaleSet>
{{- range .Matrices}}
      <TileMatrix>
        <ows:Identifier>{{.ID}}</ows:Identifier>
        <ScaleDenominator>{{num .Scale}}</ScaleDenominator>
        <TopLeftCorner>-{{$.Half}} {{$.Half}}</TopLeftCorner>
        <TileWidth>256</TileWidth>
        <TileHeight>256</TileHeight>
        <MatrixWidth>{{.Width}}</MatrixWidth>
        <MatrixHeight>{{.Height}}</MatrixHeight>
      </TileMatrix>
{{- end}}
    </TileMatrixSet>
  </Contents>
  <ServiceMetadataURL xlink:href="{{x .Links.Capabilities}}"/>
</Capabilities>
`))
