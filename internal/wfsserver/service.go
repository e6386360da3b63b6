package wfsserver

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// Namespace is the namespace of the feature types, bound to Prefix.
const (
	Namespace = "https://geopub.org/wfs"
	Prefix    = "geopub"
)

// Service answers WFS requests over the collections of an OGC API
// Features service: the same types, access rules and stored features.
type Service struct {
	f       *of.Service
	cursors *cursorCache
	orders  orderCache // sorted matches (SORTBY)
	// changesets remembers the totals and page ends of changeset queries.
	changesets changesetCache
}

// New returns the WFS service over f.
func New(f *of.Service) *Service { return &Service{f: f, cursors: newCursorCache()} }

// Result is an answer ready to be written: its media type, and Write,
// which streams the document.
type Result struct {
	ContentType string
	Write       func(io.Writer) error
	// LayerID and Features say what a GetFeature or GetPropertyValue
	// answer serves: the layer read (0 for other operations) and how many
	// of its features (its usage figures count them).
	LayerID  int
	Features int
}

// Call is one request: who asks, what, and where the service is (the
// GET endpoint the documents link to, ending in / or ?).
type Call struct {
	Viewer   *access.Viewer
	Request  *Request
	Endpoint string
}

// Serve answers c; errors are *Exception (the caller's fault) or
// internal errors.
func (s *Service) Serve(ctx context.Context, c Call) (*Result, error) {
	switch c.Request.Operation {
	case OpGetCapabilities:
		return s.capabilities(ctx, c)
	case OpDescribeFeatureType:
		return s.describe(ctx, c)
	case OpListStoredQueries:
		return s.listStoredQueries(ctx, c)
	case OpDescribeStoredQueries:
		return s.describeStoredQueries(ctx, c)
	}
	if c.Request.ByID && c.Request.Operation == OpGetFeature {
		return s.getFeatureByID(ctx, c)
	}
	return s.getFeature(ctx, c)
}

// featureType is a collection as WFS shows it: its element names.
type featureType struct {
	c    *of.Collection
	name string // layer-{id} or table-{id}: its element name too
	// fields are the attributes with their element names.
	fields      []typeField
	byElement   map[string]schematype.Field
	geomElement string // "" for tables
	srs         SRS    // the default CRS
	changeset   bool   // a changeset type (fields start with __change__)
}

// fieldNames are the attribute names in order.
func (t *featureType) fieldNames() []string {
	out := make([]string, len(t.fields))
	for i, f := range t.fields {
		out[i] = f.Name
	}
	return out
}

type typeField struct {
	schematype.Field
	Element string
}

func newFeatureType(c *of.Collection) *featureType {
	t := &featureType{c: c, name: c.ID, byElement: map[string]schematype.Field{}, srs: defaultSRS(c)}
	used := map[string]bool{}
	unique := func(s string) string {
		n := s
		for i := 2; used[n]; i++ {
			n = s + "_" + itoa(i)
		}
		used[n] = true
		return n
	}
	if !c.Table {
		g := "geometry"
		if c.GeometryField != "" {
			g = ncName(c.GeometryField)
		}
		t.geomElement = unique(g)
	}
	for _, f := range c.Fields {
		el := unique(ncName(f.Name))
		t.fields = append(t.fields, typeField{Field: f, Element: el})
		t.byElement[el] = f
	}
	return t
}

// lookup returns the type v may read by name, or a not-found exception.
func (s *Service) lookup(ctx context.Context, v *access.Viewer, name, param string) (*featureType, error) {
	if strings.HasSuffix(name, changesetSuffix) {
		return s.changesetType(ctx, v, name, param)
	}
	c, err := s.f.Collection(ctx, v, name)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, notFound(param, name)
	}
	return newFeatureType(c), nil
}

// link is endpoint with query parameters (the credentials are in the
// endpoint when the caller sent them in the URL).
func link(endpoint string, q url.Values) string {
	sep := "?"
	if strings.HasSuffix(endpoint, "?") || strings.HasSuffix(endpoint, "&") {
		sep = ""
	} else if strings.Contains(endpoint, "?") {
		sep = "&"
	}
	return endpoint + sep + q.Encode()
}

// ServiceKey and Scope are those of OGC API Features: one wfs service
// rule and one wxs:wfs token scope cover both.
const (
	ServiceKey = of.ServiceKey
	Scope      = of.Scope
)

// Client is the Ent client the service reads through.
func (s *Service) Client() *ent.Client { return s.f.Client() }

// Logger is the service's logger.
func (s *Service) Logger() *slog.Logger { return s.f.Logger() }

// only is t with just the named properties (element names; the geometry
// only when named), for PROPERTYNAME. A changeset keeps __change__.
func (t *featureType) only(names []string) (*featureType, error) {
	want := map[string]bool{}
	for _, n := range names {
		if _, ok := t.byElement[n]; !ok && n != t.geomElement {
			return nil, invalid("propertyName", "%q is not a property of %s", clip(n), t.name)
		}
		want[n] = true
	}
	out := *t
	if !want[t.geomElement] {
		out.geomElement = ""
	}
	out.fields = nil
	for _, f := range t.fields {
		if want[f.Element] || f.Name == ChangeColumn {
			out.fields = append(out.fields, f)
		}
	}
	return &out, nil
}
