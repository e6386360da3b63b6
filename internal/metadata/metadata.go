// Package metadata reads metadata documents uploaded for datasets: it
// detects their format (ISO 19115/19139 and ISO 19115-3, FGDC CSDGM,
// Dublin Core), refuses what is not safe or not metadata, extracts a
// simplified form (title, abstract, keywords, bounding box) for JSON
// answers, and renders Dublin Core from that form.
package metadata

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/apperr"
)

// MaxSize is the largest metadata document accepted, in bytes.
const MaxSize = 10 << 20

// Format names a metadata standard, as used in URLs (…/metadata/iso/).
type Format string

// The formats a document can be in.
const (
	ISO  Format = "iso"
	FGDC Format = "fgdc"
	DC   Format = "dc"
)

// Formats lists every format, in the order URLs are offered.
var Formats = []Format{ISO, FGDC, DC}

// Namespaces that identify the formats.
const (
	nsGMD    = "http://www.isotc211.org/2005/gmd"
	nsGMI    = "http://www.isotc211.org/2005/gmi"
	nsMDB    = "http://standards.iso.org/iso/19115/-3/mdb/"
	nsOAIDC  = "http://www.openarchives.org/OAI/2.0/oai_dc/"
	nsDC     = "http://purl.org/dc/elements/1.1/"
	nsDCTerm = "http://purl.org/dc/terms/"
)

// Simple is the simplified form of a document.
type Simple struct {
	Format   Format
	Title    string
	Abstract string
	Keywords []string
	// BBox is [west, south, east, north] in decimal degrees; nil when the
	// document gives none (Dublin Core has no bounding box element).
	BBox []float64
	// TimeStart and TimeEnd are the temporal extent of the data (ISO
	// documents' EX_TemporalExtent); nil ends are open or not given.
	TimeStart, TimeEnd *time.Time
}

// Parse checks an uploaded document and returns its simplified form. It
// refuses, as a 400 with a message for the uploader: an empty or oversized
// body, anything that is not well-formed XML, documents with a DOCTYPE
// (entity declarations make XXE and entity-expansion attacks possible, and
// none of the three formats needs one) and documents of other formats.
func Parse(doc []byte) (*Simple, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil, invalid("The metadata document is empty: send ISO 19115/19139, FGDC CSDGM or Dublin Core XML.")
	}
	if len(doc) > MaxSize {
		return nil, invalid("The metadata document is larger than the %d MiB limit.", MaxSize>>20)
	}
	root, err := readTree(doc)
	if err != nil {
		return nil, err
	}
	switch {
	case isISO(root):
		return extractISO(root), nil
	case root.ns == "" && root.local == "metadata" && root.child("idinfo") != nil:
		return extractFGDC(root), nil
	case isDC(root):
		return extractDC(root), nil
	}
	name := root.local
	if root.ns != "" {
		name = "{" + root.ns + "}" + root.local
	}
	return nil, invalid("Unrecognised metadata format: the root element is %s. Send ISO 19115/19139 (gmd:MD_Metadata or mdb:MD_Metadata), FGDC CSDGM (metadata with idinfo) or Dublin Core (oai_dc:dc).", name)
}

func invalid(format string, args ...any) error {
	return apperr.New(apperr.Invalid, format, args...)
}

func isISO(root *node) bool {
	if root.local != "MD_Metadata" && root.local != "MI_Metadata" {
		return false
	}
	return root.ns == nsGMD || root.ns == nsGMI || strings.HasPrefix(root.ns, nsMDB)
}

func isDC(root *node) bool {
	if root.ns == nsOAIDC && root.local == "dc" {
		return true
	}
	found := false
	root.walk(func(n *node) {
		if n.ns == nsDC || n.ns == nsDCTerm {
			found = true
		}
	})
	return found
}

// node is an element of a parsed document.
type node struct {
	ns, local string
	text      strings.Builder
	children  []*node
}

// maxDepth bounds element nesting; real metadata nests a few dozen deep.
const maxDepth = 256

// readTree parses doc into a tree of elements, refusing DOCTYPE and other
// directives, and external or undeclared entities (encoding/xml in strict
// mode knows only the five predefined entities and character references).
func readTree(doc []byte) (*node, error) {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	dec.CharsetReader = func(charset string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(charset) {
		case "utf-8", "utf8", "us-ascii", "ascii":
			return in, nil
		}
		return nil, fmt.Errorf("unsupported encoding %q: send UTF-8", charset)
	}
	var root *node
	var stack []*node
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, invalid("The metadata document is not well-formed XML: %s.", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			return nil, invalid("The metadata document has a DOCTYPE or other declaration; documents with DTDs or entity declarations are refused. Remove it and send the XML alone.")
		case xml.StartElement:
			if len(stack) >= maxDepth {
				return nil, invalid("The metadata document nests elements more than %d deep.", maxDepth)
			}
			n := &node{ns: t.Name.Space, local: t.Name.Local}
			if len(stack) == 0 {
				if root != nil {
					return nil, invalid("The metadata document is not well-formed XML: more than one root element.")
				}
				root = n
			} else {
				parent := stack[len(stack)-1]
				parent.children = append(parent.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(t)
			} else if len(bytes.TrimSpace(t)) > 0 {
				if root == nil {
					return nil, invalid("The metadata document is not XML: it starts with text, not an element.")
				}
				return nil, invalid("The metadata document is not well-formed XML: text after the root element.")
			}
		}
	}
	if root == nil {
		return nil, invalid("The metadata document is not XML: no root element found.")
	}
	return root, nil
}

// child returns the first child with the local name.
func (n *node) child(local string) *node {
	for _, c := range n.children {
		if c.local == local {
			return c
		}
	}
	return nil
}

// find returns the elements at a path of local names below n; "*" matches
// any one element.
func (n *node) find(path ...string) []*node {
	cur := []*node{n}
	for _, step := range path {
		var next []*node
		for _, c := range cur {
			for _, k := range c.children {
				if step == "*" || k.local == step {
					next = append(next, k)
				}
			}
		}
		cur = next
	}
	return cur
}

// value is the trimmed text of n and its descendants, with runs of
// whitespace collapsed.
func (n *node) value() string {
	var b strings.Builder
	n.walk(func(d *node) { b.WriteString(d.text.String()); b.WriteByte(' ') })
	return strings.Join(strings.Fields(b.String()), " ")
}

// walk visits n and its descendants, depth first.
func (n *node) walk(fn func(*node)) {
	fn(n)
	for _, c := range n.children {
		c.walk(fn)
	}
}

// first returns the value of the first element at path with a value.
func (n *node) first(path ...string) string {
	for _, m := range n.find(path...) {
		if v := m.value(); v != "" {
			return v
		}
	}
	return ""
}

// values returns the distinct non-empty values at path, in order.
func (n *node) values(path ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range n.find(path...) {
		if v := m.value(); v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
