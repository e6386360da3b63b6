package dcat

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Kind says what a Term is.
type Kind int

// The kinds of term.
const (
	KindIRI Kind = iota
	KindBlank
	KindLiteral
)

// Term is an RDF term: an IRI, a blank node (Value is its label) or a
// literal (Value, with a Datatype IRI or a Lang tag, or neither for a
// plain string).
type Term struct {
	Kind     Kind
	Value    string
	Datatype string
	Lang     string
}

// Triple is one statement.
type Triple struct {
	S, P, O Term
}

// Graph is a set of triples kept in the order they were added (the
// writers group them by subject in that order), without duplicates.
type Graph struct {
	triples []Triple
	seen    map[Triple]bool
	blanks  int
}

// NewGraph is an empty graph.
func NewGraph() *Graph { return &Graph{seen: map[Triple]bool{}} }

// Triples are the graph's statements in order.
func (g *Graph) Triples() []Triple { return g.triples }

// Add adds a triple unless it is there already. A zero object (an IRI
// that failed Check, an empty literal) is skipped, so callers can add
// optional values without testing them.
func (g *Graph) Add(s, p, o Term) {
	if s.Value == "" || p.Value == "" || (o.Kind != KindLiteral && o.Value == "") || (o.Kind == KindLiteral && o.Value == "") {
		return
	}
	t := Triple{s, p, o}
	if g.seen[t] {
		return
	}
	g.seen[t] = true
	g.triples = append(g.triples, t)
}

// Blank is a fresh blank node.
func (g *Graph) Blank() Term {
	g.blanks++
	return Term{Kind: KindBlank, Value: fmt.Sprintf("b%d", g.blanks)}
}

// IRI is an IRI term for s as Check cleans it; the zero Term (which Add
// skips) when s is not an IRI we write.
func IRI(s string) Term {
	c, ok := Check(s)
	if !ok {
		return Term{}
	}
	return Term{Kind: KindIRI, Value: c}
}

// iriSchemes are the schemes the feeds write.
var iriSchemes = map[string]bool{"http": true, "https": true, "mailto": true, "urn": true}

// Check cleans an IRI for every syntax: absolute, with a known scheme,
// valid UTF-8, and the characters Turtle's IRIREF and XML attributes
// cannot hold (controls, space, <>"{}|\^`) percent-encoded. ok is false
// for what is not such an IRI.
func Check(s string) (string, bool) {
	if s == "" || len(s) > 8192 || !utf8.ValidString(s) {
		return "", false
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || !iriSchemes[strings.ToLower(u.Scheme)] {
		return "", false
	}
	if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return "", false
	}
	var b strings.Builder
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r <= 0x20 || r == 0x7f || strings.ContainsRune("<>\"{}|\\^`", r):
			fmt.Fprintf(&b, "%%%02X", r)
		case !xmlChar(r):
			// Not representable in XML 1.0: encoded as UTF-8 bytes.
			for _, c := range []byte(string(r)) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), true
}

// Lit is a plain string literal, cleaned by Clean.
func Lit(s string) Term { return Term{Kind: KindLiteral, Value: Clean(s)} }

// Typed is a literal of datatype dt (an IRI).
func Typed(s, dt string) Term { return Term{Kind: KindLiteral, Value: Clean(s), Datatype: dt} }

// langTag is a BCP 47 tag as Turtle's LANGTAG reads it.
var langTag = regexp.MustCompile(`^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$`)

// LangLit is a literal in language lang (a plain literal when lang is not
// a valid tag).
func LangLit(s, lang string) Term {
	t := Lit(s)
	if langTag.MatchString(lang) {
		t.Lang = strings.ToLower(lang)
	}
	return t
}

// Clean makes s valid UTF-8 and drops the characters XML 1.0 cannot
// carry, so that a literal reads the same in Turtle, JSON-LD and RDF/XML.
func Clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if xmlChar(r) {
			return r
		}
		return -1
	}, s)
}

// xmlChar reports whether XML 1.0 allows r (its Char production).
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || (r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}
