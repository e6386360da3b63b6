package cswserver

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/geopub/geopub/internal/catalogrecords"
)

// Namespaces of the answers.
const (
	nsCSW  = SchemaCSW
	nsCSW3 = SchemaCSW3
	nsDC   = "http://purl.org/dc/elements/1.1/"
	nsDCT  = "http://purl.org/dc/terms/"
	nsOWS  = "http://www.opengis.net/ows"
	nsOWS2 = "http://www.opengis.net/ows/2.0"
	nsOGC  = "http://www.opengis.net/ogc"
	nsFES  = "http://www.opengis.net/fes/2.0"
	nsXSD  = "http://www.w3.org/2001/XMLSchema"
	nsXLK  = "http://www.w3.org/1999/xlink"
	nsXSI  = "http://www.w3.org/2001/XMLSchema-instance"
	crs84  = "urn:ogc:def:crs:OGC:1.3:CRS84"
)

// rootNS are the namespace declarations of a response root holding
// records of version v: csw (2.0.2) or csw30 (3.0), dc, dct, ows.
func rootNS(v string) []string {
	if v == V3 {
		return []string{"xmlns:csw30", nsCSW3, "xmlns:dc", nsDC, "xmlns:dct", nsDCT, "xmlns:ows", nsOWS2, "xmlns:xsi", nsXSI}
	}
	return []string{"xmlns:csw", nsCSW, "xmlns:dc", nsDC, "xmlns:dct", nsDCT, "xmlns:ows", nsOWS, "xmlns:xsi", nsXSI}
}

// cswPrefix is the csw namespace prefix of version v.
func cswPrefix(v string) string {
	if v == V3 {
		return "csw30"
	}
	return "csw"
}

// writeRecord writes r in schema at element set set; records in a
// csw schema take the prefix of version v (declared by the root, else
// by ns on the record).
func writeRecord(x *xw, r *catalogrecords.Record, v, schema, set string, ns ...string) error {
	switch schema {
	case SchemaGMD:
		return embed(x, catalogrecords.ISO19139, r)
	case SchemaMDB:
		return embed(x, catalogrecords.ISO19115_3, r)
	}
	p := cswPrefix(v)
	el := map[string]string{"brief": "BriefRecord", "summary": "SummaryRecord", "full": "Record"}[set]
	x.open(p+":"+el, ns...)
	x.elem("dc:identifier", r.Identifier)
	x.elem("dc:title", r.Title)
	x.elem("dc:type", string(r.Type))
	if set != "brief" {
		for _, s := range subjects(r) {
			x.elem("dc:subject", s)
		}
		for _, f := range r.Formats {
			x.elem("dc:format", f.MediaType)
		}
	}
	if set == "full" {
		if r.Publisher.Name != "" {
			x.elem("dc:publisher", r.Publisher.Name)
		}
		if r.License != nil {
			x.elem("dc:rights", licenceText(r.License))
		}
		x.elem("dc:language", "eng")
	}
	if set != "brief" {
		if !r.Modified.IsZero() {
			x.elem("dct:modified", r.Modified.UTC().Format("2006-01-02T15:04:05Z"))
		}
		x.elem("dct:abstract", r.Abstract)
	}
	if set == "full" {
		if !r.Created.IsZero() {
			x.elem("dct:created", r.Created.UTC().Format("2006-01-02T15:04:05Z"))
		}
		if !r.Published.IsZero() {
			x.elem("dct:issued", r.Published.UTC().Format("2006-01-02T15:04:05Z"))
		}
		for _, l := range r.Links {
			x.elem("dct:references", l.Href, "scheme", l.Protocol())
		}
	}
	if len(r.BBox) == 4 {
		x.open("ows:BoundingBox", "crs", crs84, "dimensions", "2")
		x.elem("ows:LowerCorner", num(r.BBox[0])+" "+num(r.BBox[1]))
		x.elem("ows:UpperCorner", num(r.BBox[2])+" "+num(r.BBox[3]))
		x.close("ows:BoundingBox")
	}
	x.close(p + ":" + el)
	return nil
}

func licenceText(l *catalogrecords.License) string {
	s := l.Title
	if s == "" {
		s = l.Type
	}
	if l.URL != "" {
		s += " (" + l.URL + ")"
	}
	return s
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// embed writes an ISO document inside the answer, without its XML
// declaration.
func embed(x *xw, render func(*catalogrecords.Record) ([]byte, error), r *catalogrecords.Record) error {
	doc, err := render(r)
	if err != nil {
		return fmt.Errorf("iso for %s: %w", r.Identifier, err)
	}
	x.b.Write(stripProlog(doc))
	return nil
}

// stripProlog drops what may precede a document's root element: a BOM,
// the XML declaration, comments and processing instructions.
func stripProlog(doc []byte) []byte {
	doc = bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf"))
	for {
		doc = bytes.TrimLeft(doc, " \t\r\n")
		var end []byte
		switch {
		case bytes.HasPrefix(doc, []byte("<?")):
			end = []byte("?>")
		case bytes.HasPrefix(doc, []byte("<!--")):
			end = []byte("-->")
		case bytes.HasPrefix(doc, []byte("<!")): // a DOCTYPE in an uploaded document
			end = []byte(">")
		default:
			return doc
		}
		i := bytes.Index(doc, end)
		if i < 0 {
			return doc
		}
		doc = doc[i+len(end):]
	}
}
