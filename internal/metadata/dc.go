package metadata

import (
	"bytes"
	"encoding/xml"
	"strconv"
)

// RenderDC renders the simplified form as an OAI-PMH Dublin Core record
// (oai_dc:dc): title, description, one subject per keyword, and the
// bounding box as a DCMI Box in dc:coverage. It is a crosswalk of the
// simplified form, not of the whole document: what the form does not hold
// is not carried over. A document uploaded as Dublin Core is served as
// uploaded instead.
func RenderDC(s *Simple) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<oai_dc:dc xmlns:oai_dc="` + nsOAIDC + `" xmlns:dc="` + nsDC + `"` +
		` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"` +
		` xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd">` + "\n")
	elem := func(name, value string) {
		if value == "" {
			return
		}
		b.WriteString("  <dc:" + name + ">")
		_ = xml.EscapeText(&b, []byte(value))
		b.WriteString("</dc:" + name + ">\n")
	}
	elem("title", s.Title)
	elem("description", s.Abstract)
	for _, k := range s.Keywords {
		elem("subject", k)
	}
	if len(s.BBox) == 4 {
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		elem("coverage", "westlimit="+f(s.BBox[0])+"; southlimit="+f(s.BBox[1])+
			"; eastlimit="+f(s.BBox[2])+"; northlimit="+f(s.BBox[3])+"; units=signed decimal degrees")
	}
	b.WriteString("</oai_dc:dc>\n")
	return b.Bytes()
}
