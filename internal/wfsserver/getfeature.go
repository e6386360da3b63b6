package wfsserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/geojson"

	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// Output formats of GetFeature.
const (
	FormatGML32  = "application/gml+xml; version=3.2"
	FormatGML311 = "text/xml; subtype=gml/3.1.1"
	FormatJSON   = "application/json"
)

// normFormat compares formats without case, spaces or + (which an
// unencoded query turns into a space).
func normFormat(s string) string {
	return strings.NewReplacer(" ", "", "+", "", "\"", "").Replace(strings.ToLower(s))
}

func isJSON(format string) bool {
	switch normFormat(format) {
	case "application/json", "json", "geojson", "application/geojson", "application/geo+json", "application/vnd.geo+json":
		return true
	}
	return false
}

// query is a GetFeature request made ready to run.
type query struct {
	t      *featureType
	filter of.Filter
	srs    SRS
	key    string // the request's filters, for the cursor cache
	count  int
	start  int
	sort   []sortField // SORTBY, none for feature id order
	json   bool
	gml32  bool
}

func (s *Service) getFeature(ctx context.Context, c Call) (*Result, error) {
	r := c.Request
	q, err := s.prepare(ctx, c)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	if r.Hits && !q.t.changeset {
		matched, err := s.count(ctx, q)
		if err != nil {
			return nil, err
		}
		fc := &collection{q: q, c: c, matched: matched, now: now}
		return fc.result(), nil
	}
	if q.t.changeset {
		items, matched, more, err := s.changesetPage(ctx, q, r.ViewParams, r.Hits, now)
		if err != nil {
			return nil, err
		}
		fc := &collection{q: q, c: c, matched: matched, now: now}
		if r.Hits {
			items, more = nil, false
		}
		if more {
			fc.next = q.start + len(items)
		}
		if fc.features, err = project(items, q.srs); err != nil {
			return nil, err
		}
		return fc.result(), nil
	}
	if len(q.sort) > 0 {
		items, matched, err := s.sortedPage(ctx, q)
		if err != nil {
			return nil, err
		}
		fc := &collection{q: q, c: c, matched: matched, now: now}
		if int64(q.start+len(items)) < matched && q.count > 0 {
			fc.next = q.start + len(items)
		}
		if fc.features, err = project(items, q.srs); err != nil {
			return nil, err
		}
		return fc.result(), nil
	}
	after, done, err := s.seek(ctx, q)
	if err != nil {
		return nil, err
	}
	fc := &collection{q: q, c: c, matched: -1, now: now}
	unfiltered := q.filter.Expr == nil && len(q.filter.Boxes) == 0 && q.filter.FIDs == nil
	if !done && q.count > 0 && unfiltered {
		// Every row matches: the page's size is known before it is read,
		// so it is streamed in batches rather than held.
		left := max(0, q.t.c.FeatureCount-int64(q.start))
		n := int(min(int64(q.count), left))
		fc.matched, fc.returned = q.t.c.FeatureCount, n
		if int64(q.start+n) < q.t.c.FeatureCount {
			fc.next = q.start + n
		}
		fc.stream = func(yield func(feature) error) error { return s.stream(ctx, q, after, n, yield) }
		return fc.result(), nil
	}
	if !done && q.count > 0 {
		page, err := s.f.Items(ctx, q.t.c, q.filter, after, q.count)
		if err != nil {
			return nil, err
		}
		fc.matched = page.Matched
		if page.Next == nil && fc.matched < 0 {
			// The last page: every match has been seen.
			fc.matched = int64(q.start + len(page.Items))
		}
		if page.Next != nil {
			s.cursors.put(cursorKey{q.t.c.VersionID, q.key, q.start + len(page.Items)}, *page.Next)
			fc.next = q.start + len(page.Items)
		}
		if fc.features, err = project(page.Items, q.srs); err != nil {
			return nil, err
		}
	} else if unfiltered {
		fc.matched = q.t.c.FeatureCount
	}
	return fc.result(), nil
}

// streamBatch is how many features a streamed page reads at a time.
const streamBatch = 1000

// stream reads n features after the cursor in batches, reprojects them
// and hands them to yield; the position after them is remembered for the
// next page.
func (s *Service) stream(ctx context.Context, q *query, after *of.Cursor, n int, yield func(feature) error) error {
	p, err := newProjector(q.srs)
	if err != nil {
		return err
	}
	defer p.Close()
	for left := n; left > 0; {
		page, err := s.f.Items(ctx, q.t.c, q.filter, after, min(left, streamBatch))
		if err != nil {
			return err
		}
		for _, it := range page.Items {
			f, err := projectOne(it, p, q.srs)
			if err != nil {
				return err
			}
			if err := yield(f); err != nil {
				return err
			}
		}
		left -= len(page.Items)
		if page.Next == nil || len(page.Items) == 0 {
			return nil
		}
		after = page.Next
	}
	if after != nil {
		s.cursors.put(cursorKey{q.t.c.VersionID, q.key, q.start + n}, *after)
	}
	return nil
}

// prepare reads the parameters of a GetFeature request against its type.
func (s *Service) prepare(ctx context.Context, c Call) (*query, error) {
	r := c.Request
	q := &query{start: r.Start}
	if isJSON(r.OutputFormat) && r.Operation == OpGetPropertyValue {
		return nil, invalid("outputFormat", "GetPropertyValue answers in GML: outputFormat must be %s or %s", FormatGML32, FormatGML311)
	}
	if isJSON(r.OutputFormat) {
		q.json = true
	} else {
		var ok bool
		if q.gml32, ok = gmlVersion32(r.OutputFormat, r.V2()); !ok {
			return nil, invalid("outputFormat", "outputFormat must be %s, %s or %s", FormatGML32, FormatGML311, FormatJSON)
		}
	}
	t, err := s.lookup(ctx, c.Viewer, r.TypeNames[0], r.typeNamesParam())
	if err != nil {
		return nil, err
	}
	q.t, q.filter = t, of.Filter{Collection: t.c}
	q.srs = t.srs
	if r.SRSName != "" {
		srs, err := parseSRS(r.SRSName)
		if err != nil {
			return nil, srsProblem("srsName", r.SRSName, err)
		}
		q.srs = srs
	} else if q.json {
		// GeoJSON is read longitude (easting) first.
		q.srs.Swap, q.srs.Name = q.srs.CRS.NorthingFirst(), "EPSG:"+itoa(q.srs.Code())
	}
	switch {
	case r.Count < 0:
		q.count = 0
	case r.Count == 0 || r.Count > MaxCount:
		q.count = MaxCount
	default:
		q.count = r.Count
	}
	if len(r.SortBy) > 0 {
		if q.sort, err = t.sortFields(r.SortBy); err != nil {
			return nil, err
		}
	}
	if len(r.PropertyNames) > 0 {
		if q.t, err = t.only(r.PropertyNames); err != nil {
			return nil, err
		}
	}
	rids := r.ResourceIDs
	if r.BBox != "" {
		if t.c.Table {
			return nil, invalid("bbox", "%s has no geometry for a bbox", t.name)
		}
		box, outlines, err := bboxParam(r.BBox, t.srs)
		if err != nil {
			return nil, err
		}
		q.filter.Boxes, q.filter.Outlines = of.BoxesOf(box), outlines
	}
	if r.Filter != "" {
		pf, err := parseFilter(r.Filter, t, t.srs)
		if err != nil {
			return nil, err
		}
		q.filter.Expr, rids = pf.expr, append(rids, pf.rids...)
		q.filter.Within = of.SpatialBounds(pf.expr, t.c)
	}
	if rids != nil {
		q.filter.FIDs = []int64{}
		for _, id := range rids {
			name, fid, ok := strings.Cut(id, ".")
			n, err := strconv.ParseInt(fid, 10, 64)
			if ok && err == nil && name == t.name {
				q.filter.FIDs = append(q.filter.FIDs, n)
			}
		}
	}
	q.key = t.name + "\x00" + r.BBox + "\x00" + r.Filter + "\x00" + strings.Join(rids, ",")
	return q, nil
}

// seek finds the keyset position before the start index: remembered from
// the page before, else found by reading past the skipped features. done
// is set when no feature is left after it.
func (s *Service) seek(ctx context.Context, q *query) (*of.Cursor, bool, error) {
	if q.start == 0 {
		return nil, false, nil
	}
	k := cursorKey{q.t.c.VersionID, q.key, q.start}
	if cur, ok := s.cursors.get(k); ok {
		return &cur, false, nil
	}
	var after *of.Cursor
	for left := q.start; left > 0; {
		p, err := s.f.Items(ctx, q.t.c, q.filter, after, min(left, of.MaxLimit))
		if err != nil {
			return nil, false, err
		}
		left -= len(p.Items)
		if p.Next == nil {
			return nil, true, nil
		}
		after = p.Next
	}
	s.cursors.put(k, *after)
	return after, false, nil
}

// count is the number of features q matches.
func (s *Service) count(ctx context.Context, q *query) (int64, error) {
	f := q.filter
	if f.Expr == nil && len(f.Boxes) == 0 && f.FIDs == nil {
		return q.t.c.FeatureCount, nil
	}
	var n int64
	var after *of.Cursor
	for {
		p, err := s.f.Items(ctx, q.t.c, f, after, of.MaxLimit)
		if err != nil {
			return 0, err
		}
		n += int64(len(p.Items))
		if p.Next == nil {
			return n, nil
		}
		after = p.Next
	}
}

// feature is a stored feature with its geometry in the response's CRS.
type feature struct {
	fid   int64
	g     geom.T
	attrs []byte
}

func project(items []of.Item, srs SRS) ([]feature, error) {
	p, err := newProjector(srs)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	out := make([]feature, len(items))
	for i, it := range items {
		if out[i], err = projectOne(it, p, srs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func projectOne(it of.Item, p *projector, srs SRS) (feature, error) {
	g, err := of.Geometry(it.Geom, nil)
	if err != nil {
		return feature{}, fmt.Errorf("wfs: feature %d: %w", it.FID, err)
	}
	if g != nil {
		if err := p.forward(g); err != nil {
			return feature{}, invalid("srsName", "feature %d cannot be given in %s: it is outside the CRS's area", it.FID, srs.Name)
		}
	}
	return feature{fid: it.FID, g: g, attrs: it.Attrs}, nil
}

// collection is a GetFeature answer.
type collection struct {
	q        *query
	c        Call
	features []feature
	// stream, when set, yields the features instead (returned of them).
	stream   func(yield func(feature) error) error
	returned int
	matched  int64 // -1: unknown
	next     int   // start index of the next page, 0 for none
	now      time.Time
	// bare answers with the one feature itself, not a collection
	// (GetFeatureById).
	bare bool
}

func (fc *collection) result() *Result {
	if fc.stream == nil {
		fc.returned = len(fc.features)
	}
	res := &Result{ContentType: "text/xml; subtype=gml/3.1.1", Write: fc.writeGML,
		LayerID: fc.q.t.c.LayerID, Features: fc.returned}
	switch {
	case fc.c.Request.Operation == OpGetPropertyValue:
		res.ContentType = "text/xml; charset=UTF-8"
	case fc.q.json:
		res.ContentType, res.Write = FormatJSON, fc.writeJSON
	case fc.q.gml32:
		res.ContentType = "application/gml+xml; version=3.2"
	}
	return res
}

// pageLink is the request again from another start index.
func (fc *collection) pageLink(start int) string {
	v := url.Values{}
	for k, val := range fc.c.Request.Params {
		if k != "KEY" {
			v.Set(k, val)
		}
	}
	v.Set("STARTINDEX", itoa(start))
	v.Set("COUNT", itoa(fc.q.count))
	return link(fc.c.Endpoint, v)
}

func (fc *collection) schemaLink() string {
	r := fc.c.Request
	v := url.Values{"SERVICE": {"WFS"}, "VERSION": {r.Version}, "REQUEST": {OpDescribeFeatureType},
		"TYPENAMES": {Prefix + ":" + fc.q.t.name}}
	if !r.V2() {
		v = url.Values{"SERVICE": {"WFS"}, "VERSION": {r.Version}, "REQUEST": {OpDescribeFeatureType},
			"TYPENAME": {Prefix + ":" + fc.q.t.name}}
	}
	if fc.q.gml32 {
		v.Set("OUTPUTFORMAT", FormatGML32)
	} else {
		v.Set("OUTPUTFORMAT", FormatGML311)
	}
	return link(fc.c.Endpoint, v)
}

func (fc *collection) writeGML(w io.Writer) error {
	q, v2 := fc.q, fc.c.Request.V2()
	gmlNS, gmlLoc := "http://www.opengis.net/gml", "http://schemas.opengis.net/gml/3.1.1/base/gml.xsd"
	if q.gml32 {
		gmlNS, gmlLoc = "http://www.opengis.net/gml/3.2", "http://schemas.opengis.net/gml/3.2.1/gml.xsd"
	}
	x := newXW(w)
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	attrs := []string{"xmlns:gml", gmlNS, "xmlns:" + Prefix, Namespace, "xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"}
	gw := &gmlWriter{x: x, gml32: q.gml32, srsName: q.srs.Name}
	if fc.bare {
		attrs = append(attrs, "xsi:schemaLocation", Namespace+" "+fc.schemaLink()+" "+gmlNS+" "+gmlLoc)
		if err := fc.writeFeatureGML(x, gw, fc.features[0], attrs...); err != nil {
			return err
		}
		return x.flush()
	}
	ts := fc.now.Format("2006-01-02T15:04:05Z")
	member := "gml:featureMember"
	if v2 {
		matched := "unknown"
		if fc.matched >= 0 {
			matched = strconv.FormatInt(fc.matched, 10)
		}
		attrs = append(attrs, "xmlns:wfs", "http://www.opengis.net/wfs/2.0",
			"xsi:schemaLocation", Namespace+" "+fc.schemaLink()+" http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd "+gmlNS+" "+gmlLoc,
			"timeStamp", ts, "numberMatched", matched, "numberReturned", itoa(fc.returned))
		if fc.next > 0 {
			attrs = append(attrs, "next", fc.pageLink(fc.next))
		}
		if q.start > 0 {
			attrs = append(attrs, "previous", fc.pageLink(max(0, q.start-max(q.count, 1))))
		}
		member = "wfs:member"
	} else {
		// WFS 1.1 has one count: of the features returned, and of those
		// the query matches in a hits answer (WFS 1.1.0, 9.3), which
		// clients read as the layer's feature count.
		n := strconv.Itoa(fc.returned)
		if fc.c.Request.Hits && fc.matched >= 0 {
			n = strconv.FormatInt(fc.matched, 10)
		}
		attrs = append(attrs, "xmlns:wfs", "http://www.opengis.net/wfs",
			"xsi:schemaLocation", Namespace+" "+fc.schemaLink()+" http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.1.0/wfs.xsd",
			"timeStamp", ts, "numberOfFeatures", n)
	}
	root, write := "wfs:FeatureCollection", fc.writeFeatureGML
	if fc.c.Request.Operation == OpGetPropertyValue {
		root, write = "wfs:ValueCollection", fc.writeValueGML
	}
	x.open(root, attrs...)
	err := fc.each(func(f feature) error {
		x.open(member)
		if err := write(x, gw, f); err != nil {
			return err
		}
		x.close(member)
		return x.err
	})
	if err != nil {
		return err
	}
	x.close(root)
	return x.flush()
}

// writeValueGML writes the value of a GetPropertyValue's property of one
// feature: the property's element (nil when the feature has no value, so
// that every feature has its member).
func (fc *collection) writeValueGML(x *xw, gw *gmlWriter, f feature, _ ...string) error {
	t, ref := fc.q.t, fc.c.Request.ValueReference
	el := Prefix + ":" + ref
	if ref == t.geomElement {
		if f.g == nil {
			x.empty(el, "xsi:nil", "true")
			return x.err
		}
		x.open(el)
		gw.geometry(f.g, featureID(t, f)+".geom")
		x.close(el)
		return x.err
	}
	var props map[string]json.RawMessage
	_ = json.Unmarshal(f.attrs, &props)
	if v := props[t.byElement[ref].Name]; len(v) > 0 && string(v) != "null" {
		x.elem(el, valueText(v))
	} else {
		x.empty(el, "xsi:nil", "true")
	}
	return x.err
}

// featureID is a feature's id: typeName.fid.
func featureID(t *featureType, f feature) string { return t.name + "." + strconv.FormatInt(f.fid, 10) }

// writeFeatureGML writes one feature's element, with attrs (namespaces
// when it is the document's root).
func (fc *collection) writeFeatureGML(x *xw, gw *gmlWriter, f feature, attrs ...string) error {
	t := fc.q.t
	id := featureID(t, f)
	el := Prefix + ":" + t.name
	x.open(el, append(attrs, "gml:id", id)...)
	if f.g != nil && t.geomElement != "" {
		x.open(Prefix + ":" + t.geomElement)
		gw.geometry(f.g, id+".geom")
		x.close(Prefix + ":" + t.geomElement)
	}
	var props map[string]json.RawMessage
	_ = json.Unmarshal(f.attrs, &props)
	for _, fl := range t.fields {
		v, ok := props[fl.Name]
		if !ok || len(v) == 0 || string(v) == "null" {
			continue
		}
		x.elem(Prefix+":"+fl.Element, valueText(v))
	}
	x.close(el)
	return x.err
}

// valueText is a stored JSON value as XML text: strings unquoted, other
// values as JSON writes them.
func valueText(v json.RawMessage) string {
	if v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return string(v)
}

func (fc *collection) writeJSON(w io.Writer) error {
	q := fc.q
	x := newXW(w)
	if fc.bare {
		b, err := featureJSON(q.t, q.t.fieldNames(), fc.features[0])
		if err != nil {
			return err
		}
		x.raw(string(b) + "\n")
		return x.flush()
	}
	x.raw(`{"type":"FeatureCollection","timeStamp":"` + fc.now.Format("2006-01-02T15:04:05Z") + `"`)
	if fc.matched >= 0 {
		x.raw(`,"numberMatched":` + strconv.FormatInt(fc.matched, 10))
	}
	x.raw(`,"numberReturned":` + itoa(fc.returned))
	if fc.next > 0 {
		enc, _ := json.Marshal(fc.pageLink(fc.next))
		x.raw(`,"links":[{"rel":"next","type":"application/json","href":` + string(enc) + `}]`)
	}
	x.raw(`,"features":[`)
	names := q.t.fieldNames()
	i := 0
	err := fc.each(func(f feature) error {
		if i++; i > 1 {
			x.raw(",")
		}
		b, err := featureJSON(q.t, names, f)
		if err != nil {
			return err
		}
		x.raw(string(b))
		return x.err
	})
	if err != nil {
		return err
	}
	x.raw("]}\n")
	return x.flush()
}

// featureJSON is a GeoJSON Feature of type t, whose attribute names are
// names.
func featureJSON(t *featureType, names []string, f feature) ([]byte, error) {
	geometry := []byte("null")
	if f.g != nil && t.geomElement != "" {
		b, err := geojson.Marshal(f.g)
		if err != nil {
			return nil, err
		}
		geometry = b
	}
	id, _ := json.Marshal(featureID(t, f))
	b := append([]byte(`{"type":"Feature","id":`), id...)
	b = append(append(b, `,"geometry":`...), geometry...)
	b = append(append(b, `,"properties":`...), jsonProperties(names, f.attrs)...)
	return append(b, '}'), nil
}

// each hands every feature of the answer to fn, in order.
func (fc *collection) each(fn func(feature) error) error {
	if fc.stream != nil {
		return fc.stream(fn)
	}
	for _, f := range fc.features {
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// jsonProperties is the properties object of names, in order (null where
// absent).
func jsonProperties(names []string, attrs []byte) []byte {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(attrs, &m)
	b := []byte{'{'}
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(n)
		b = append(b, k...)
		b = append(b, ':')
		if v := m[n]; len(v) > 0 {
			b = append(b, v...)
		} else {
			b = append(b, "null"...)
		}
	}
	return append(b, '}')
}
