package dcatfeed

import (
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strconv"
	"strings"
)

// syntax is one serialisation of the DCAT-AP feed.
type syntax struct {
	// name is the ?format= value that picks it.
	name string
	// contentType is what the answer is labelled.
	contentType string
	// accepts are the media types of Accept that choose it.
	accepts []string
}

// syntaxes in the order a tie between equally acceptable types goes;
// JSON-LD first, so application/json, */* and no Accept get JSON-LD.
var syntaxes = []syntax{
	{"jsonld", "application/ld+json", []string{"application/ld+json", "application/json"}},
	{"ttl", "text/turtle; charset=utf-8", []string{"text/turtle", "application/x-turtle"}},
	{"rdf", "application/rdf+xml; charset=utf-8", []string{"application/rdf+xml", "application/xml", "text/xml"}},
}

// formatNames maps ?format= values (and their common spellings) to a
// syntax name.
var formatNames = map[string]string{
	"jsonld": "jsonld", "json-ld": "jsonld", "json": "jsonld",
	"ttl": "ttl", "turtle": "ttl",
	"rdf": "rdf", "xml": "rdf", "rdfxml": "rdf", "rdf+xml": "rdf",
}

// errNotAcceptable: the Accept header names nothing the feed writes.
var errNotAcceptable = errors.New("none of the media types in Accept is one this feed writes: " +
	"text/turtle, application/ld+json, application/rdf+xml or application/json (or use ?format=ttl|jsonld|rdf)")

// negotiate picks the syntax for an Accept header: the highest q, ties
// to the order of syntaxes; no header is */*.
func negotiate(accept string) (syntax, error) {
	if strings.TrimSpace(accept) == "" {
		return syntaxes[0], nil
	}
	if len(accept) > 4096 {
		return syntax{}, errNotAcceptable
	}
	best, bestQ := -1, 0.0
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil || q < 0 || q > 1 {
				continue
			}
		}
		for i, s := range syntaxes {
			if !matches(mt, s.accepts) {
				continue
			}
			if q > bestQ || (q == bestQ && q > 0 && i < best) {
				best, bestQ = i, q
			}
		}
	}
	if best < 0 {
		return syntax{}, errNotAcceptable
	}
	return syntaxes[best], nil
}

// matches reports whether media range mt covers one of types.
func matches(mt string, types []string) bool {
	for _, t := range types {
		if mt == "*/*" || mt == t || (strings.HasSuffix(mt, "/*") && strings.HasPrefix(t, strings.TrimSuffix(mt, "*"))) {
			return true
		}
	}
	return false
}

// Paging limits.
const (
	// DefaultPageSize is the DCAT-AP feed's page (ckanext-dcat's 100).
	DefaultPageSize = 100
	// MaxPageSize is the largest page either feed gives.
	MaxPageSize = 1000
	// maxPage bounds ?page= so offsets stay small integers.
	maxPage = 1_000_000
)

// params are a feed request's query parameters.
type params struct {
	page, size int
	// format is the ?format= syntax name, "" when not given.
	format string
}

// known are the parameters the feeds read; others are ignored, as
// harvesters add their own.
var known = []string{"page", "page_size", "format"}

// parseParams reads page, page_size and format (data.json has no
// format); each may appear once.
func parseParams(q url.Values, defaultSize int, formats bool) (params, error) {
	p := params{page: 1, size: defaultSize}
	for _, k := range known {
		if len(q[k]) > 1 {
			return p, fmt.Errorf("%s is given %d times; give it once", k, len(q[k]))
		}
	}
	var err error
	if v := q.Get("page"); v != "" {
		if p.page, err = strconv.Atoi(v); err != nil || p.page < 1 || p.page > maxPage {
			return p, fmt.Errorf("page must be a whole number from 1 to %d", maxPage)
		}
	}
	if v := q.Get("page_size"); v != "" {
		if p.size, err = strconv.Atoi(v); err != nil || p.size < 1 || p.size > MaxPageSize {
			return p, fmt.Errorf("page_size must be a whole number from 1 to %d", MaxPageSize)
		}
	}
	if v := q.Get("format"); v != "" {
		name, ok := formatNames[strings.ToLower(v)]
		switch {
		case !formats:
			return p, errors.New("data.json is DCAT-US JSON only; the DCAT-AP feed (" + CatalogPath + ") takes format")
		case !ok:
			return p, errors.New("format must be ttl, jsonld or rdf")
		}
		p.format = name
	}
	return p, nil
}

// MediaTypes are the media types the feeds answer in (for a compressing
// middleware's list).
var MediaTypes = []string{"application/ld+json", "text/turtle", "application/rdf+xml", "application/json"}
