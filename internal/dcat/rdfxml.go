package dcat

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// WriteRDFXML writes g as RDF/XML: one rdf:Description per subject
// (rdf:about, or rdf:nodeID for blank nodes), its properties as elements
// of the declared namespaces, objects as rdf:resource, rdf:nodeID or
// escaped text with rdf:datatype or xml:lang. A predicate outside the
// declared namespaces is an error (RDF/XML cannot name it otherwise).
func WriteRDFXML(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(xml.Header + "<rdf:RDF")
	for _, n := range Namespaces {
		fmt.Fprintf(bw, "\n    xmlns:%s=\"%s\"", n.Prefix, attr(n.IRI))
	}
	bw.WriteString(">\n")
	for _, s := range bySubject(g) {
		if s.subject.Kind == KindBlank {
			fmt.Fprintf(bw, "  <rdf:Description rdf:nodeID=\"%s\">\n", attr(s.subject.Value))
		} else {
			fmt.Fprintf(bw, "  <rdf:Description rdf:about=\"%s\">\n", attr(s.subject.Value))
		}
		for _, t := range s.triples {
			p, l, ok := split(t.P.Value)
			if !ok {
				return fmt.Errorf("dcat: predicate %s is in no declared namespace", t.P.Value)
			}
			name := p + ":" + l
			switch {
			case t.O.Kind == KindIRI:
				fmt.Fprintf(bw, "    <%s rdf:resource=\"%s\"/>\n", name, attr(t.O.Value))
			case t.O.Kind == KindBlank:
				fmt.Fprintf(bw, "    <%s rdf:nodeID=\"%s\"/>\n", name, attr(t.O.Value))
			case t.O.Lang != "":
				fmt.Fprintf(bw, "    <%s xml:lang=\"%s\">%s</%s>\n", name, attr(t.O.Lang), text(t.O.Value), name)
			case t.O.Datatype != "":
				fmt.Fprintf(bw, "    <%s rdf:datatype=\"%s\">%s</%s>\n", name, attr(t.O.Datatype), text(t.O.Value), name)
			default:
				fmt.Fprintf(bw, "    <%s>%s</%s>\n", name, text(t.O.Value), name)
			}
		}
		bw.WriteString("  </rdf:Description>\n")
	}
	bw.WriteString("</rdf:RDF>\n")
	return bw.Flush()
}

// text escapes character data; xml.EscapeText also escapes tab, newline
// and carriage return, so a parser's line-end normalisation keeps them.
func text(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// attr escapes an attribute value (the same escapes, quotes included).
func attr(s string) string { return text(s) }
