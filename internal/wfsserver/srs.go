package wfsserver

import (
	"errors"
	"strconv"
	"strings"

	"github.com/twpayne/go-geom"

	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// SRS is a CRS as a WFS request names it, with the axis order its form
// implies: the urn:ogc:def:crs and http://www.opengis.net/def/crs forms
// follow the EPSG order (latitude first for EPSG:4326), the short
// EPSG:{code} and .../epsg.xml#{code} forms longitude (easting) first, as
// GDAL and most clients expect.
type SRS struct {
	CRS of.CRS
	// Swap is set when the form's order is the reverse of the EPSG order.
	Swap bool
	// Name is the form the response's srsName repeats.
	Name string
}

// Code is the EPSG code, 4326 for CRS84.
func (s SRS) Code() int {
	if s.CRS.IsCRS84() {
		return 4326
	}
	return s.CRS.EPSG
}

// lonLat reports whether s is CRS84 in longitude, latitude order: the
// storage CRS, nothing to transform.
func (s SRS) lonLat() bool {
	return s.CRS.IsCRS84() || s.CRS.EPSG == 4326 && s.Swap
}

// URN is the urn:ogc:def:crs form of EPSG code.
func URN(code int) string { return "urn:ogc:def:crs:EPSG::" + strconv.Itoa(code) }

// ParseSRS reads an srsName; ok is false for a form or code this service
// does not know, or a CRS without horizontal axes.
func ParseSRS(s string) (SRS, bool) {
	out, err := parseSRS(s)
	return out, err == nil
}

// errUnknownSRS is an srsName of a form or code this service does not
// know.
var errUnknownSRS = errors.New("unknown srsName")

// srsProblem is the 400 for an srsName (of parameter param) that
// parseSRS refused with err.
func srsProblem(param, s string, err error) error {
	if errors.Is(err, of.ErrNotHorizontal) {
		return invalid(param, "%s %q is not a horizontal CRS (it has no easting and northing, or longitude and latitude, axes): give a geographic or projected CRS", param, clip(s))
	}
	return invalid(param, "%s %q is not a CRS this service knows: give urn:ogc:def:crs:EPSG::{code} or EPSG:{code}", param, clip(s))
}

// parseSRS reads an srsName: errUnknownSRS for a form or code this
// service does not know, of.ErrNotHorizontal for a CRS without horizontal
// axes.
func parseSRS(s string) (SRS, error) {
	t := strings.TrimSpace(s)
	l := strings.ToLower(t)
	switch l {
	case "urn:ogc:def:crs:ogc:1.3:crs84", "urn:ogc:def:crs:ogc::crs84", "crs:84", "ogc:crs84",
		"http://www.opengis.net/def/crs/ogc/1.3/crs84":
		return SRS{Name: "urn:ogc:def:crs:OGC:1.3:CRS84"}, nil
	}
	var code string
	short := false
	switch {
	case strings.HasPrefix(l, "epsg:"):
		code, short = t[5:], true
	case strings.HasPrefix(l, "http://www.opengis.net/gml/srs/epsg.xml#"):
		code, short = t[strings.IndexByte(t, '#')+1:], true
	case strings.HasPrefix(l, "urn:ogc:def:crs:epsg:"), strings.HasPrefix(l, "urn:x-ogc:def:crs:epsg:"),
		strings.HasPrefix(l, "http://www.opengis.net/def/crs/epsg/"):
		code = t[strings.LastIndexAny(t, ":/")+1:]
	default:
		return SRS{}, errUnknownSRS
	}
	n, err := strconv.Atoi(code)
	if err != nil || n <= 0 {
		return SRS{}, errUnknownSRS
	}
	crs, err := of.ParseCRS("EPSG:" + strconv.Itoa(n))
	if errors.Is(err, of.ErrNotHorizontal) {
		return SRS{}, err
	}
	if err != nil {
		return SRS{}, errUnknownSRS
	}
	out := SRS{CRS: crs, Name: URN(n)}
	if short {
		out.Swap = crs.NorthingFirst()
		out.Name = t
		if strings.HasPrefix(l, "epsg:") {
			out.Name = "EPSG:" + strconv.Itoa(n)
		}
	} else if strings.HasPrefix(l, "http://") {
		out.Name = "http://www.opengis.net/def/crs/EPSG/0/" + strconv.Itoa(n)
	}
	return out, nil
}

// defaultSRS is a type's CRS: the layer's source CRS, EPSG:4326 when it
// has none PROJ knows.
func defaultSRS(c *of.Collection) SRS {
	if c.SourceCRS != "" {
		if s, ok := ParseSRS(c.SourceCRS); ok && !s.CRS.IsCRS84() {
			return SRS{CRS: s.CRS, Name: URN(s.CRS.EPSG)}
		}
	}
	s, _ := ParseSRS(URN(4326))
	return s
}

// projector brings stored CRS84 coordinates to an SRS.
type projector struct {
	srs SRS
	tr  *of.Transformer
}

func newProjector(s SRS) (*projector, error) {
	p := &projector{srs: s}
	if s.lonLat() || s.CRS.EPSG == 4326 {
		return p, nil
	}
	tr, err := of.NewTransformer(s.CRS)
	if err != nil {
		return nil, err
	}
	p.tr = tr
	return p, nil
}

func (p *projector) Close() {
	if p.tr != nil {
		p.tr.Close()
	}
}

// forward transforms g's coordinates in place.
func (p *projector) forward(g geom.T) error {
	if c, ok := g.(*geom.GeometryCollection); ok {
		for _, m := range c.Geoms() {
			if err := p.forward(m); err != nil {
				return err
			}
		}
		return nil
	}
	flat, stride := g.FlatCoords(), g.Stride()
	switch {
	case p.srs.lonLat():
		return nil
	case p.srs.CRS.EPSG == 4326: // latitude, longitude
		swap(flat, stride)
		return nil
	}
	if err := p.tr.Forward(flat, stride); err != nil {
		return err
	}
	if p.srs.Swap {
		swap(flat, stride)
	}
	return nil
}

// toCRS84 brings flat coordinates given in s to CRS84 in place.
func toCRS84(flat []float64, stride int, s SRS) error {
	if s.lonLat() {
		return nil
	}
	if s.Swap != (s.CRS.EPSG == 4326) {
		swap(flat, stride)
	}
	if s.CRS.EPSG == 4326 {
		return nil
	}
	tr, err := of.NewTransformer(s.CRS)
	if err != nil {
		return err
	}
	defer tr.Close()
	return tr.Inverse(flat, stride)
}

// boxToCRS84 brings a box given in s (its axis order) to CRS84: its
// envelope and, for a box in a CRS other than WGS 84, its exact outline
// (of.Transformer.InverseBox); nil outlines when the envelope is the box.
func boxToCRS84(b [4]float64, s SRS) ([4]float64, []*geom.Polygon, error) {
	if s.lonLat() {
		return b, nil, nil
	}
	if s.Swap {
		b = [4]float64{b[1], b[0], b[3], b[2]}
	}
	if s.CRS.EPSG == 4326 {
		return [4]float64{b[1], b[0], b[3], b[2]}, nil, nil
	}
	tr, err := of.NewTransformer(s.CRS)
	if err != nil {
		return b, nil, err
	}
	defer tr.Close()
	return tr.InverseBox(b)
}

func swap(flat []float64, stride int) {
	for i := 0; i+1 < len(flat); i += stride {
		flat[i], flat[i+1] = flat[i+1], flat[i]
	}
}
