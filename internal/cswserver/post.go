package cswserver

import (
	"strconv"
	"strings"
)

// ParsePost reads an XML request document (CSW 2.0.2 or 3.0): at most
// MaxPostBytes, no DOCTYPE, bounded nesting. The document's attributes
// and elements become the parameters of the equivalent KVP request, and
// its Filter is kept as read.
func ParsePost(body []byte) (*Request, error) {
	if len(body) > MaxPostBytes {
		return &Request{Version: V2}, TooLarge()
	}
	root, err := parseXML(body, MaxPostBytes, "request")
	if err != nil {
		return &Request{Version: V2}, err
	}
	p := map[string]string{"REQUEST": root.name(), "SERVICE": firstOf(root.attr("service"), "CSW")}
	for _, a := range []string{"version", "outputSchema", "outputFormat", "resultType", "startPosition", "maxRecords"} {
		if v := root.attr(a); v != "" {
			p[strings.ToUpper(a)] = v
		}
	}
	var filter *node
	var cql string
	switch root.name() {
	case OpGetCapabilities:
		if av := root.child("AcceptVersions"); av != nil {
			var vs []string
			for _, v := range av.Nodes {
				vs = append(vs, v.text())
			}
			p["ACCEPTVERSIONS"] = strings.Join(vs, ",")
		}
	case OpDescribeRecord:
		var names []string
		for _, c := range root.Nodes {
			if c.name() == "TypeName" {
				names = append(names, c.text())
			}
		}
		p["TYPENAME"] = strings.Join(names, ",")
	case OpGetRecordByID:
		var ids []string
		for _, c := range root.Nodes {
			switch c.name() {
			case "Id":
				ids = append(ids, c.text())
			case "ElementSetName":
				p["ELEMENTSETNAME"] = c.text()
			}
		}
		p["ID"] = strings.Join(ids, ",")
	case OpGetDomain:
		if c := root.child("PropertyName"); c != nil {
			p["PROPERTYNAME"] = c.text()
		}
		if c := root.child("ParameterName"); c != nil {
			p["PARAMETERNAME"] = c.text()
		}
	case OpGetRecords:
		q := root.child("Query")
		if q == nil {
			p["TYPENAMES"] = "csw:Record" // CSW 3.0 allows a query-less GetRecords
			break
		}
		p["TYPENAMES"] = strings.ReplaceAll(firstOf(q.attr("typeNames"), "csw:Record"), " ", ",")
		if e := q.child("ElementSetName"); e != nil {
			p["ELEMENTSETNAME"] = e.text()
		} else if q.child("ElementName") != nil {
			p["ELEMENTNAME"] = "yes"
		}
		if c := q.child("Constraint"); c != nil {
			if filter = c.child("Filter"); filter == nil {
				if t := c.child("CqlText"); t != nil {
					cql = t.text()
				} else {
					return &Request{Version: V2}, bad("a Constraint holds a Filter or a CqlText")
				}
			}
		}
		if s := q.child("SortBy"); s != nil {
			keys := make([]string, 0, len(s.Nodes))
			for _, sp := range s.Nodes {
				name := firstOf(textOf(sp.child("PropertyName")), textOf(sp.child("ValueReference")))
				dir := "A"
				if strings.HasPrefix(strings.ToUpper(textOf(sp.child("SortOrder"))), "D") {
					dir = "D"
				}
				keys = append(keys, name+":"+dir)
			}
			if len(keys) > 0 {
				p["SORTBY"] = strings.Join(keys, ",")
			}
		}
	}
	if cql != "" {
		p["CONSTRAINT"], p["CONSTRAINTLANGUAGE"] = cql, LangCQL
	}
	r, err := fromParams(p)
	if err == nil && filter != nil {
		r.filter, r.Lang = filter, LangFilter
	}
	return r, err
}

func textOf(n *node) string {
	if n == nil {
		return ""
	}
	return n.text()
}

// itoa is for the documents' numbers.
func itoa(n int) string { return strconv.Itoa(n) }
