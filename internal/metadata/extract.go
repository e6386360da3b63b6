package metadata

import (
	"strconv"
	"time"
)

// extractISO reads ISO 19139 (gmd) and ISO 19115-3 (mdb/mri/cit/gex): both
// use the same local names along these paths.
func extractISO(root *node) *Simple {
	s := &Simple{Format: ISO}
	ident := root.find("identificationInfo", "*")
	for _, id := range ident {
		if s.Title == "" {
			s.Title = id.first("citation", "CI_Citation", "title")
		}
		if s.Abstract == "" {
			s.Abstract = id.first("abstract")
		}
		for _, k := range id.find("descriptiveKeywords", "MD_Keywords", "keyword") {
			s.Keywords = appendNew(s.Keywords, k.value())
		}
		if s.TimeStart == nil && s.TimeEnd == nil {
			s.TimeStart, s.TimeEnd = temporalExtent(id)
		}
		if s.BBox == nil {
			for _, b := range id.find("extent", "EX_Extent", "geographicElement", "EX_GeographicBoundingBox") {
				if bb := bbox(b.first("westBoundLongitude"), b.first("southBoundLatitude"),
					b.first("eastBoundLongitude"), b.first("northBoundLatitude")); bb != nil {
					s.BBox = bb
					break
				}
			}
		}
	}
	return s
}

// temporalExtent reads the first temporal extent of an identification:
// a gml:TimePeriod's begin and end positions, or a gml:TimeInstant's
// position as both. ISO 19139 and 19115-3 share the path's local names
// (mri:extent/gex:EX_Extent/gex:temporalElement/...).
func temporalExtent(id *node) (start, end *time.Time) {
	for _, t := range id.find("extent", "EX_Extent", "temporalElement", "*", "extent") {
		for _, p := range t.find("TimePeriod") {
			start = isoTime(firstOf(p, []string{"beginPosition"}, []string{"begin", "TimeInstant", "timePosition"}), false)
			end = isoTime(firstOf(p, []string{"endPosition"}, []string{"end", "TimeInstant", "timePosition"}), true)
			if start != nil || end != nil {
				return start, end
			}
		}
		for _, i := range t.find("TimeInstant") {
			if at := i.first("timePosition"); at != "" {
				return isoTime(at, false), isoTime(at, true)
			}
		}
	}
	return nil, nil
}

func firstOf(n *node, paths ...[]string) string {
	for _, p := range paths {
		if v := n.first(p...); v != "" {
			return v
		}
	}
	return ""
}

// isoTime reads an ISO 8601 date-time, date, year-month or year; end
// gives a date's (month's, year's) last instant instead of its first.
// Unknown values ("now", "unknown", indeterminate positions) are nil.
func isoTime(s string, end bool) *time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02", "2006-01", "2006"} {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		if end {
			switch layout {
			case "2006-01-02":
				t = t.AddDate(0, 0, 1).Add(-time.Nanosecond)
			case "2006-01":
				t = t.AddDate(0, 1, 0).Add(-time.Nanosecond)
			case "2006":
				t = t.AddDate(1, 0, 0).Add(-time.Nanosecond)
			}
		}
		t = t.UTC()
		return &t
	}
	return nil
}

// extractFGDC reads FGDC CSDGM.
func extractFGDC(root *node) *Simple {
	s := &Simple{Format: FGDC}
	s.Title = root.first("idinfo", "citation", "citeinfo", "title")
	s.Abstract = root.first("idinfo", "descript", "abstract")
	for _, path := range [][]string{
		{"idinfo", "keywords", "theme", "themekey"},
		{"idinfo", "keywords", "place", "placekey"},
	} {
		for _, k := range root.values(path...) {
			s.Keywords = appendNew(s.Keywords, k)
		}
	}
	for _, b := range root.find("idinfo", "spdom", "bounding") {
		if bb := bbox(b.first("westbc"), b.first("southbc"), b.first("eastbc"), b.first("northbc")); bb != nil {
			s.BBox = bb
			break
		}
	}
	return s
}

// extractDC reads Dublin Core elements (and DCMI terms) wherever they are:
// title, description or abstract, and subjects as keywords.
func extractDC(root *node) *Simple {
	s := &Simple{Format: DC}
	root.walk(func(n *node) {
		if n.ns != nsDC && n.ns != nsDCTerm {
			return
		}
		v := n.value()
		switch n.local {
		case "title":
			if s.Title == "" {
				s.Title = v
			}
		case "description", "abstract":
			if s.Abstract == "" {
				s.Abstract = v
			}
		case "subject":
			s.Keywords = appendNew(s.Keywords, v)
		}
	})
	return s
}

func appendNew(list []string, v string) []string {
	if v == "" {
		return list
	}
	for _, have := range list {
		if have == v {
			return list
		}
	}
	return append(list, v)
}

// bbox parses four bounds; it returns nil unless all are numbers within
// the ranges of longitude and latitude with south <= north.
func bbox(west, south, east, north string) []float64 {
	var out [4]float64
	for i, s := range []string{west, south, east, north} {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil
		}
		out[i] = f
	}
	w, s, e, n := out[0], out[1], out[2], out[3]
	if w < -180 || w > 180 || e < -180 || e > 180 || s < -90 || s > 90 || n < -90 || n > 90 || s > n {
		return nil
	}
	return out[:]
}
