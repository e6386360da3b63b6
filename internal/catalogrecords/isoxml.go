package catalogrecords

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"time"
)

// isoXML builds an ISO metadata document in memory (documents are small:
// one record). Element names carry their prefixes; the root declares the
// namespaces.
type isoXML struct{ b bytes.Buffer }

func (x *isoXML) open(name string, attrs ...string) {
	x.b.WriteString("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		x.b.WriteString(" " + attrs[i] + `="`)
		_ = xml.EscapeText(&x.b, []byte(attrs[i+1]))
		x.b.WriteString(`"`)
	}
	x.b.WriteString(">")
}

func (x *isoXML) close(name string) { x.b.WriteString("</" + name + ">") }

// elem writes <name attrs>text</name>.
func (x *isoXML) elem(name, text string, attrs ...string) {
	x.open(name, attrs...)
	_ = xml.EscapeText(&x.b, []byte(text))
	x.close(name)
}

// wrap writes <outer><inner attrs>text</inner></outer>, the property and
// value pattern both ISO encodings use (gmd:title/gco:CharacterString).
func (x *isoXML) wrap(outer, inner, text string, attrs ...string) {
	x.open(outer)
	x.elem(inner, text, attrs...)
	x.close(outer)
}

// code writes a codelist value: <outer><inner codeList=… codeListValue=v>v</inner></outer>.
func (x *isoXML) code(outer, inner, list, v string) {
	x.wrap(outer, inner, v, "codeList", list, "codeListValue", v)
}

func (x *isoXML) bytes() []byte { return x.b.Bytes() }

// isoDate is t as an ISO dateTime in UTC.
func isoDate(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func decimal(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// isoDates are a record's dated events with their CI_DateTypeCode.
func (r *Record) isoDates() [][2]string {
	var out [][2]string
	for _, d := range []struct {
		t    time.Time
		kind string
	}{{r.Created, "creation"}, {r.Published, "publication"}, {r.Modified, "revision"}} {
		if !d.t.IsZero() {
			out = append(out, [2]string{isoDate(d.t), d.kind})
		}
	}
	return out
}

// stampTime is the metadata's own date: the last modification, else the
// publication, else the creation, else now (the date is mandatory).
func (r *Record) stampTime() time.Time {
	if !r.Modified.IsZero() {
		return r.Modified
	}
	if !r.Published.IsZero() {
		return r.Published
	}
	if !r.Created.IsZero() {
		return r.Created
	}
	return time.Now()
}

// scopeCode is the ISO MD_ScopeCode of r: tables and documents carry no
// geometry, so they are non-geographic datasets; sets are series.
func (r *Record) scopeCode() string {
	switch r.Type {
	case Table, Document:
		return "nonGeographicDataset"
	case Set:
		return "series"
	}
	return "dataset"
}

// onlineFunction is the CI_OnLineFunctionCode of a link.
func onlineFunction(l Link) string {
	switch {
	case l.Rel == "enclosure" || l.Service == "wfs" || l.Service == "ogc-features":
		return "download"
	case l.Rel == "service":
		return "browsing"
	}
	return "information"
}

// isoTopics are ISO 19115's MD_TopicCategoryCode values; themes whose key
// is one of them are also written as topic categories.
var isoTopics = map[string]bool{"farming": true, "biota": true, "boundaries": true,
	"climatologyMeteorologyAtmosphere": true, "economy": true, "elevation": true, "environment": true,
	"geoscientificInformation": true, "health": true, "imageryBaseMapsEarthCover": true,
	"intelligenceMilitary": true, "inlandWaters": true, "location": true, "oceans": true,
	"planningCadastre": true, "society": true, "structure": true, "transportation": true,
	"utilitiesCommunication": true}

// topics are r's themes that are ISO topic categories (by key, or the
// last segment of a nested key).
func (r *Record) topics() []string {
	var out []string
	for _, t := range r.Themes {
		k := t.Key
		for i := len(k) - 1; i >= 0; i-- {
			if k[i] == '/' {
				k = k[i+1:]
				break
			}
		}
		if isoTopics[k] {
			out = append(out, k)
		}
	}
	return out
}

func (r *Record) themeNames() []string {
	out := make([]string, 0, len(r.Themes))
	for _, t := range r.Themes {
		out = append(out, t.Name)
	}
	return out
}

// text is the licence as one line: title, version and URL.
func (l *License) text() string {
	s := l.Title
	if s == "" {
		s = l.Type
	}
	if l.Version != "" {
		s += " " + l.Version
	}
	if l.URL != "" {
		s += " (" + l.URL + ")"
	}
	return s
}

// temporalElement writes a record's temporal extent as a gml:TimePeriod
// inside prefix:temporalElement (gmd in ISO 19139, gex in 19115-3); an
// open end is an indeterminate "unknown" position.
func temporalElement(x *isoXML, prefix string, r *Record) {
	x.open(prefix + ":temporalElement")
	x.open(prefix + ":EX_TemporalExtent")
	x.open(prefix + ":extent")
	x.open("gml:TimePeriod", "gml:id", "extent")
	for _, end := range []struct {
		name string
		at   *time.Time
	}{{"gml:beginPosition", r.TimeStart}, {"gml:endPosition", r.TimeEnd}} {
		if end.at == nil {
			x.elem(end.name, "", "indeterminatePosition", "unknown")
			continue
		}
		x.elem(end.name, end.at.UTC().Format(time.RFC3339))
	}
	x.close("gml:TimePeriod")
	x.close(prefix + ":extent")
	x.close(prefix + ":EX_TemporalExtent")
	x.close(prefix + ":temporalElement")
}
