package geoservices

import (
	"context"
	"io"

	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/ogcfeatures"
)

// Answer writes the answer to q over layer c to w: statistics, a count,
// ids or an extent when asked for, else a page of features in q.Format.
func (s *Service) Answer(ctx context.Context, w io.Writer, c *ogcfeatures.Collection, q *Query, pretty bool) error {
	switch {
	case len(q.Statistics) > 0:
		rows, err := s.StatisticsRows(ctx, c, q)
		if err != nil {
			return err
		}
		return s.writeStatistics(w, c, q, rows, pretty)
	case q.ExtentOnly:
		p, err := q.OutSR.Projector()
		if err != nil {
			return err
		}
		defer p.Close()
		box, n, ok, err := s.Extent(ctx, c, q, p)
		if err != nil {
			return err
		}
		doc := map[string]any{"extent": nil}
		if ok {
			doc["extent"] = ExtentDoc(box[:], q.OutSR)
		}
		if q.CountOnly {
			doc["count"] = n
		}
		return encode(w, doc, pretty)
	case q.CountOnly:
		n, err := s.Count(ctx, c, q)
		if err != nil {
			return err
		}
		if q.Format == FormatGeoJSON {
			return encode(w, map[string]any{"type": "FeatureCollection", "features": []any{}, "properties": map[string]any{"count": n}}, pretty)
		}
		if q.Format == FormatPBF {
			return WritePBFCount(w, n)
		}
		return encode(w, map[string]any{"count": n}, pretty)
	case q.IDsOnly:
		ids, err := s.IDs(ctx, c, q)
		if err != nil {
			return err
		}
		if q.Format == FormatPBF {
			return WritePBFIDs(w, ids)
		}
		return encode(w, map[string]any{"objectIdFieldName": ObjectIDField, "objectIds": ids}, pretty)
	}
	p, err := s.Page(ctx, c, q)
	if err != nil {
		return err
	}
	switch q.Format {
	case FormatGeoJSON:
		return WriteGeoJSON(w, c, q, p, pretty)
	case FormatPBF:
		return WritePBF(w, c, q, p)
	}
	return WriteJSON(w, c, q, p, pretty)
}

// writeStatistics writes statistics rows as a feature set without
// geometries.
func (s *Service) writeStatistics(w io.Writer, c *ogcfeatures.Collection, q *Query, rows []map[string]any, pretty bool) error {
	var fields []FieldDoc
	for _, g := range q.GroupBy {
		f, _ := field(c, g)
		fields = append(fields, fieldDoc(f))
	}
	for _, st := range q.Statistics {
		typ := "double"
		switch st.Type {
		case "count":
			typ = "integer"
		case "min", "max":
			if f, ok := field(c, st.Field); ok && f.Type != "oid" {
				typ = f.Type
			}
		}
		fields = append(fields, fieldDoc(schematype.Field{Name: st.Out, Type: typ}))
	}
	feats := make([]map[string]any, len(rows))
	for i, r := range rows {
		feats[i] = map[string]any{"attributes": r}
	}
	if q.Format == FormatGeoJSON {
		gf := make([]map[string]any, len(rows))
		for i, r := range rows {
			gf[i] = map[string]any{"type": "Feature", "geometry": nil, "properties": r}
		}
		return encode(w, map[string]any{"type": "FeatureCollection", "features": gf}, pretty)
	}
	return encode(w, map[string]any{"displayFieldName": "", "fields": fields, "features": feats}, pretty)
}
