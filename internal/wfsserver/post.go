package wfsserver

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"strings"
)

// MaxPostBytes bounds the body of an XML POST request.
const MaxPostBytes = 1 << 20

// CodeOperationParsingFailed is WFS 2.0's code for a request document
// that cannot be read (Table 3: "the request is syntactically malformed").
const CodeOperationParsingFailed = "OperationParsingFailed"

// TooLarge answers a request body over MaxPostBytes.
func TooLarge() *Exception {
	return &Exception{Status: http.StatusRequestEntityTooLarge, Code: CodeOperationParsingFailed, Locator: "request",
		Text: "the request document is larger than 1 MiB"}
}

// ParsePost reads an XML-encoded request (WFS 2.0 7.6.4 and 1.1 XML
// encoding): a GetCapabilities, DescribeFeatureType or GetFeature
// document, turned into the parameters of the equivalent KVP request so
// that both run (and page) alike. Errors are *Exception.
func ParsePost(body []byte) (*Request, error) {
	r := &Request{Version: Versions[0], Params: map[string]string{}}
	if len(body) > MaxPostBytes {
		return r, TooLarge()
	}
	var root node
	dec := xml.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&root); err != nil {
		return r, &Exception{Status: http.StatusBadRequest, Code: CodeOperationParsingFailed, Locator: "request",
			Text: "the request is not a well-formed XML document: " + err.Error()}
	}
	if v := root.attrFold("version"); v != "" {
		r.Version = v
		if !isV2(v) {
			r.Version = "1.1.0"
		}
	}
	p := map[string]string{"REQUEST": root.name(), "SERVICE": root.attrFold("service")}
	if p["SERVICE"] == "" {
		p["SERVICE"] = "WFS"
	}
	if v := root.attrFold("version"); v != "" {
		p["VERSION"] = v
	}
	switch root.name() {
	case OpGetCapabilities:
		var vs []string
		root.each("Version", func(n *node) { vs = append(vs, strings.TrimSpace(n.Text)) })
		p["ACCEPTVERSIONS"] = strings.Join(vs, ",")
	case OpDescribeFeatureType:
		var names []string
		root.each("TypeName", func(n *node) { names = append(names, strings.TrimSpace(n.Text)) })
		p["TYPENAMES"] = strings.Join(names, ",")
		setAttr(p, "OUTPUTFORMAT", &root, "outputFormat")
	case OpGetFeature:
		if err := getFeatureParams(p, &root); err != nil {
			return r, err
		}
	case OpDescribeStoredQueries:
		var ids []string
		root.each("StoredQueryId", func(n *node) { ids = append(ids, strings.TrimSpace(n.Text)) })
		p["STOREDQUERY_ID"] = strings.Join(ids, ",")
	}
	if p["VERSION"] == "" {
		delete(p, "VERSION")
	}
	return parseParams(p)
}

// getFeatureParams reads a GetFeature document's attributes and its
// Query into KVP parameters.
func getFeatureParams(p map[string]string, root *node) error {
	for _, a := range []string{"count", "maxFeatures", "startIndex", "resultType", "outputFormat", "viewParams"} {
		setAttr(p, strings.ToUpper(a), root, a)
	}
	var queries []*node
	for i := range root.Nodes {
		switch n := &root.Nodes[i]; n.name() {
		case "Query":
			queries = append(queries, n)
		case "StoredQuery":
			// <wfs:StoredQuery id="…GetFeatureById"><wfs:Parameter name="ID">…
			p["STOREDQUERY_ID"] = n.attrFold("id")
			n.each("Parameter", func(a *node) {
				if strings.EqualFold(a.attrFold("name"), "ID") {
					p["ID"] = strings.TrimSpace(a.Text)
				}
			})
		}
	}
	if _, ok := p["STOREDQUERY_ID"]; ok && len(queries) > 0 {
		return invalid("StoredQuery", "a GetFeature holds either queries or a stored query, not both")
	}
	if len(queries) == 0 {
		return nil // the missing typeNames is reported as in KVP
	}
	var names []string
	for _, q := range queries {
		if n := q.attrFold("typeNames"); n != "" {
			names = append(names, n)
		} else {
			names = append(names, q.attrFold("typeName"))
		}
	}
	p["TYPENAMES"] = strings.Join(names, ",")
	q := queries[0]
	setAttr(p, "SRSNAME", q, "srsName")
	var props, sorts []string
	for i := range q.Nodes {
		switch c := &q.Nodes[i]; c.name() {
		case "Filter":
			var b strings.Builder
			c.write(&b)
			p["FILTER"] = b.String()
		case "PropertyName":
			props = append(props, strings.TrimSpace(c.Text))
		case "SortBy":
			c.each("SortProperty", func(s *node) {
				var name, order string
				for j := range s.Nodes {
					switch k := &s.Nodes[j]; k.name() {
					case "ValueReference", "PropertyName":
						name = strings.TrimSpace(k.Text)
					case "SortOrder":
						order = strings.TrimSpace(k.Text)
					}
				}
				sorts = append(sorts, strings.TrimSpace(name+" "+order))
			})
		}
	}
	if len(props) > 0 {
		p["PROPERTYNAME"] = strings.Join(props, ",")
	}
	if len(sorts) > 0 {
		p["SORTBY"] = strings.Join(sorts, ",")
	}
	return nil
}

func setAttr(p map[string]string, key string, n *node, attr string) {
	if v := n.attrFold(attr); v != "" {
		p[key] = v
	}
}

// attrFold is the value of an attribute named without regard to case
// (clients write outputformat and typenames).
func (n *node) attrFold(local string) string {
	for _, a := range n.Attrs {
		if strings.EqualFold(a.Name.Local, local) && a.Name.Space != "xmlns" {
			return a.Value
		}
	}
	return ""
}

// each calls fn on every descendant element named local.
func (n *node) each(local string, fn func(*node)) {
	for i := range n.Nodes {
		c := &n.Nodes[i]
		if c.name() == local {
			fn(c)
			continue
		}
		c.each(local, fn)
	}
}

// write writes n as XML with local names only (the filter reader ignores
// namespaces), for the FILTER parameter of the equivalent KVP request.
func (n *node) write(b *strings.Builder) {
	b.WriteString("<" + n.name())
	for _, a := range n.Attrs {
		if a.Name.Space == "xmlns" || a.Name.Local == "xmlns" {
			continue
		}
		b.WriteString(" " + a.Name.Local + `="`)
		_ = xml.EscapeText(b, []byte(a.Value))
		b.WriteString(`"`)
	}
	b.WriteString(">")
	if len(n.Nodes) == 0 {
		_ = xml.EscapeText(b, []byte(n.Text))
	}
	for i := range n.Nodes {
		n.Nodes[i].write(b)
	}
	b.WriteString("</" + n.name() + ">")
}
