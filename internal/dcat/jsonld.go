package dcat

import (
	"encoding/json"
	"io"
)

// jsonLDNode is one node object of the @graph, its properties kept in
// the graph's order.
type jsonLDNode struct {
	id    string
	types []string
	keys  []string
	props map[string][]any
}

// MarshalJSON writes @id, @type, then the properties in order; a
// property with one value is that value, else an array.
func (n *jsonLDNode) MarshalJSON() ([]byte, error) {
	buf := []byte(`{"@id":`)
	b, err := json.Marshal(n.id)
	if err != nil {
		return nil, err
	}
	buf = append(buf, b...)
	if len(n.types) > 0 {
		b, _ := json.Marshal(n.types)
		buf = append(append(buf, `,"@type":`...), b...)
	}
	for _, k := range n.keys {
		kb, _ := json.Marshal(k)
		var v any = n.props[k]
		if len(n.props[k]) == 1 {
			v = n.props[k][0]
		}
		vb, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		buf = append(append(append(append(buf, ','), kb...), ':'), vb...)
	}
	return append(buf, '}'), nil
}

// Context is the @context of the JSON-LD feed: the namespaces as
// prefixes, so that properties and classes read as compact IRIs
// ("dct:title", "dcat:Dataset").
func Context() map[string]string {
	ctx := map[string]string{}
	for _, n := range Namespaces {
		ctx[n.Prefix] = n.IRI
	}
	return ctx
}

// WriteJSONLD writes g as compacted JSON-LD: the Context and a flat
// @graph of node objects, one per subject.
func WriteJSONLD(w io.Writer, g *Graph) error {
	var nodes []*jsonLDNode
	for _, s := range bySubject(g) {
		n := &jsonLDNode{id: jsonLDID(s.subject), props: map[string][]any{}}
		for _, t := range s.triples {
			if t.P == rdfType && t.O.Kind == KindIRI {
				n.types = append(n.types, compact(t.O.Value))
				continue
			}
			k := compact(t.P.Value)
			if _, ok := n.props[k]; !ok {
				n.keys = append(n.keys, k)
			}
			n.props[k] = append(n.props[k], jsonLDValue(t.O))
		}
		nodes = append(nodes, n)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]any{"@context": Context(), "@graph": nodes})
}

// compact is iri as prefix:local when a namespace holds it.
func compact(iri string) string {
	if p, l, ok := split(iri); ok {
		return p + ":" + l
	}
	return iri
}

// jsonLDID is a subject or object reference's @id.
func jsonLDID(t Term) string {
	if t.Kind == KindBlank {
		return "_:" + t.Value
	}
	return t.Value
}

// jsonLDValue is an object: {"@id"} for nodes, a bare string for plain
// literals, {"@value", "@language"|"@type"} for the others. IRIs stay
// whole (never compacted) so no value depends on the context.
func jsonLDValue(t Term) any {
	switch t.Kind {
	case KindIRI, KindBlank:
		return map[string]string{"@id": jsonLDID(t)}
	}
	switch {
	case t.Lang != "":
		return map[string]string{"@value": t.Value, "@language": t.Lang}
	case t.Datatype != "":
		return map[string]string{"@value": t.Value, "@type": compact(t.Datatype)}
	}
	return t.Value
}
