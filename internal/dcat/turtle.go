package dcat

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteTurtle writes g as Turtle: the namespaces as @prefix lines, then
// each subject with its predicates, in the order they were added.
func WriteTurtle(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	for _, n := range Namespaces {
		fmt.Fprintf(bw, "@prefix %s: <%s> .\n", n.Prefix, n.IRI)
	}
	for _, s := range bySubject(g) {
		fmt.Fprintf(bw, "\n%s", turtleTerm(s.subject))
		for i, t := range s.triples {
			sep := " ;\n    "
			if i == 0 {
				sep = "\n    "
			}
			pred := turtleTerm(t.P)
			if t.P == rdfType {
				pred = "a"
			}
			fmt.Fprintf(bw, "%s%s %s", sep, pred, turtleTerm(t.O))
		}
		bw.WriteString(" .\n")
	}
	return bw.Flush()
}

// subjectGroup is one subject's triples.
type subjectGroup struct {
	subject Term
	triples []Triple
}

// bySubject groups g's triples by subject, subjects in order of first
// appearance.
func bySubject(g *Graph) []subjectGroup {
	var out []subjectGroup
	at := map[Term]int{}
	for _, t := range g.Triples() {
		i, ok := at[t.S]
		if !ok {
			i = len(out)
			at[t.S] = i
			out = append(out, subjectGroup{subject: t.S})
		}
		out[i].triples = append(out[i].triples, t)
	}
	return out
}

// turtleTerm spells a term: a prefixed name when the IRI is in a declared
// namespace, else <iri> (Check already encoded what IRIREF forbids).
func turtleTerm(t Term) string {
	switch t.Kind {
	case KindBlank:
		return "_:" + t.Value
	case KindLiteral:
		s := `"` + turtleEscape(t.Value) + `"`
		switch {
		case t.Lang != "":
			s += "@" + t.Lang
		case t.Datatype != "":
			s += "^^" + turtleTerm(Term{Kind: KindIRI, Value: t.Datatype})
		}
		return s
	}
	if p, l, ok := split(t.Value); ok {
		return p + ":" + l
	}
	return "<" + t.Value + ">"
}

// turtleEscape escapes a string for a "..." literal (ECHAR, and UCHAR
// for the other controls).
func turtleEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}
