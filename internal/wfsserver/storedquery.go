package wfsserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// GetFeatureByID is the one stored query of WFS 2.0 (09-025r2 7.9.3.6),
// and the only one this service offers (it manages none).
const GetFeatureByID = "urn:ogc:def:query:OGC-WFS::GetFeatureById"

// storedQuery reads a GetFeature's stored query and returns the feature
// id it asks for.
func (r *Request) storedQuery(id string, p map[string]string) (string, error) {
	if !r.V2() {
		return "", invalid("storedQuery_Id", "stored queries are WFS 2.0: send VERSION=2.0.0")
	}
	if id != GetFeatureByID {
		return "", invalid("storedQuery_Id", "the only stored query is %s, not %q", GetFeatureByID, clip(id))
	}
	for _, k := range []string{"TYPENAMES", "TYPENAME", "RESOURCEID", "FEATUREID", "BBOX", "FILTER"} {
		if _, ok := p[k]; ok {
			return "", invalid(strings.ToLower(k), "a stored query takes no ad hoc query parameters such as %s", strings.ToLower(k))
		}
	}
	fid := strings.TrimSpace(p["ID"])
	if fid == "" {
		return "", missing("ID")
	}
	return fid, nil
}

// parseStoredQueries reads a ListStoredQueries or DescribeStoredQueries
// request.
func (r *Request) parseStoredQueries(p map[string]string) error {
	if !r.V2() {
		return &Exception{Status: http.StatusBadRequest, Code: CodeOperationNotSupported, Locator: r.Operation,
			Text: r.Operation + " is WFS 2.0: send VERSION=2.0.0"}
	}
	if r.Operation != OpDescribeStoredQueries {
		return nil
	}
	for _, id := range strings.Split(p["STOREDQUERY_ID"], ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		if id != GetFeatureByID {
			return invalid("storedQuery_Id", "the only stored query is %s, not %q", GetFeatureByID, clip(id))
		}
		r.StoredQueryIDs = append(r.StoredQueryIDs, id)
	}
	return nil
}

const (
	byIDTitle    = "Get feature by identifier"
	byIDAbstract = "The feature whose gml:id (typeName.fid) is ID, itself rather than in a collection; " +
		"404 NotFound when there is none you may read."
)

// listStoredQueries answers ListStoredQueries: GetFeatureById, returning
// any type the caller may read.
func (s *Service) listStoredQueries(ctx context.Context, c Call) (*Result, error) {
	cs, err := s.f.Collections(ctx, c.Viewer)
	if err != nil {
		return nil, err
	}
	return &Result{ContentType: "text/xml; charset=UTF-8", Write: func(w io.Writer) error {
		x := newXW(w)
		x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
		x.open("wfs:ListStoredQueriesResponse", "xmlns:wfs", "http://www.opengis.net/wfs/2.0", "xmlns:"+Prefix, Namespace,
			"xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance",
			"xsi:schemaLocation", "http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd")
		x.open("wfs:StoredQuery", "id", GetFeatureByID)
		x.elem("wfs:Title", byIDTitle)
		for _, col := range cs {
			x.elem("wfs:ReturnFeatureType", Prefix+":"+col.ID)
		}
		x.close("wfs:StoredQuery")
		x.close("wfs:ListStoredQueriesResponse")
		return x.flush()
	}}, nil
}

// describeStoredQueries answers DescribeStoredQueries: GetFeatureById's
// one parameter.
func (s *Service) describeStoredQueries(context.Context, Call) (*Result, error) {
	return &Result{ContentType: "text/xml; charset=UTF-8", Write: func(w io.Writer) error {
		x := newXW(w)
		x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
		x.open("wfs:DescribeStoredQueriesResponse", "xmlns:wfs", "http://www.opengis.net/wfs/2.0",
			"xmlns:xs", "http://www.w3.org/2001/XMLSchema", "xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance",
			"xsi:schemaLocation", "http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd")
		x.open("wfs:StoredQueryDescription", "id", GetFeatureByID)
		x.elem("wfs:Title", byIDTitle)
		x.elem("wfs:Abstract", byIDAbstract)
		x.empty("wfs:Parameter", "name", "ID", "type", "xs:string")
		x.empty("wfs:QueryExpressionText", "isPrivate", "true", "language", "urn:ogc:def:queryLanguage:OGC-WFS::WFS_QueryExpression",
			"returnFeatureTypes", "")
		x.close("wfs:StoredQueryDescription")
		x.close("wfs:DescribeStoredQueriesResponse")
		return x.flush()
	}}, nil
}

// getFeatureByID answers the GetFeatureById stored query: the feature
// itself (a GML feature element, or a GeoJSON Feature), 404 NotFound
// when no type the caller may read has a feature of that id.
func (s *Service) getFeatureByID(ctx context.Context, c Call) (*Result, error) {
	id := c.Request.ResourceIDs[0]
	gone := &Exception{Status: http.StatusNotFound, Code: CodeNotFound, Locator: "ID",
		Text: "there is no feature " + clip(id) + " you may read"}
	q, err := s.prepare(ctx, c)
	var e *Exception
	if errors.As(err, &e) && e.Code == CodeNotFound {
		return nil, gone
	}
	if err != nil {
		return nil, err
	}
	if q.t.changeset || len(q.filter.FIDs) == 0 {
		return nil, gone
	}
	page, err := s.f.Items(ctx, q.t.c, q.filter, nil, 1)
	if err != nil {
		return nil, err
	}
	if len(page.Items) == 0 {
		return nil, gone
	}
	fc := &collection{q: q, c: c, matched: 1, now: time.Now().UTC(), bare: true}
	if fc.features, err = project(page.Items, q.srs); err != nil {
		return nil, err
	}
	return fc.result(), nil
}
