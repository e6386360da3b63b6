package cswserver

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"strings"
)

// Limits of an XML request document or filter.
const (
	// MaxPostBytes bounds a POST body.
	MaxPostBytes = 1 << 20
	// maxDepth bounds element nesting (a filter of And in And in ...).
	maxDepth = 64
	// maxNodes bounds the number of elements.
	maxNodes = 20000
)

// TooLarge answers a body over MaxPostBytes.
func TooLarge() *Exception {
	return &Exception{Status: http.StatusRequestEntityTooLarge, Code: CodeNoApplicableCode, Locator: "request",
		Text: "the request document is larger than 1 MiB"}
}

// node is an element of a request document, its name without namespace:
// CSW 2.0.2 and 3.0, Filter 1.1 and FES 2.0 share their element names.
type node struct {
	Name  xml.Name
	Attrs []xml.Attr
	Nodes []*node
	Text  string
}

func (n *node) name() string { return n.Name.Local }

// attr is the value of the attribute with local name local, matched
// case-insensitively (clients differ: outputSchema, outputschema).
func (n *node) attr(local string) string {
	for _, a := range n.Attrs {
		if strings.EqualFold(a.Name.Local, local) {
			return a.Value
		}
	}
	return ""
}

// child is the first child element named local.
func (n *node) child(local string) *node {
	for _, c := range n.Nodes {
		if c.name() == local {
			return c
		}
	}
	return nil
}

// text is the trimmed character data.
func (n *node) text() string { return strings.TrimSpace(n.Text) }

// parseXML reads a document into nodes: no DOCTYPE or other directive
// (so no entity can be declared; undefined ones are errors), at most
// maxDepth deep and maxNodes elements, at most limit bytes.
func parseXML(doc []byte, limit int, param string) (*node, error) {
	if len(doc) > limit {
		return nil, invalid(param, "the document is longer than %d bytes", limit)
	}
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	var stack []*node
	var root *node
	count := 0
	bad := func(format string, args ...any) error { return invalid(param, format, args...) }
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bad("the document is not well-formed XML: %s", clip(err.Error()))
		}
		switch t := tok.(type) {
		case xml.Directive:
			return nil, bad("DOCTYPE and other declarations are not accepted")
		case xml.StartElement:
			if len(stack) >= maxDepth {
				return nil, bad("the document nests deeper than %d elements", maxDepth)
			}
			if count++; count > maxNodes {
				return nil, bad("the document has more than %d elements", maxNodes)
			}
			n := &node{Name: t.Name, Attrs: t.Attr}
			if len(stack) == 0 {
				if root != nil {
					return nil, bad("the document has more than one root element")
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.Nodes = append(p.Nodes, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text += string(t)
			}
		}
	}
	if root == nil {
		return nil, bad("the document is empty")
	}
	return root, nil
}

func xmlEscape(w io.Writer, s string) error { return xml.EscapeText(w, []byte(s)) }
