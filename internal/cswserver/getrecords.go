package cswserver

import (
	"context"
	"slices"
	"time"

	"github.com/twpayne/go-geom"

	"github.com/geopub/geopub/internal/catalogrecords"
	"github.com/geopub/geopub/internal/cql2"
)

// query is the catalogue query of a GetRecords: the conjuncts the index
// answers exactly pushed down, the rest evaluated per record.
func query(c Call, expr cql2.Expr) catalogrecords.Query {
	r := c.Request
	q := catalogrecords.Query{Text: r.Text, BBox: r.BBox, Sort: r.Sort, Limit: r.Max, Offset: r.Start - 1, Origin: c.Origin}
	if r.Max == 0 || r.ResultType == "hits" {
		q.Limit, q.Offset = -1, 0
	}
	if c.Only != "" {
		q.IDs = []string{c.Only}
	}
	var rest []cql2.Expr
	for _, e := range conjuncts(expr) {
		if !pushDown(&q, e) {
			rest = append(rest, e)
		}
	}
	var left cql2.Expr
	switch len(rest) {
	case 0:
	case 1:
		left = rest[0]
	default:
		left = cql2.Logical{Op: "and", Args: rest}
	}
	if left != nil {
		q.Filter = func(rec *catalogrecords.Record) bool { return cql2.Match(left, feature(rec)) }
	}
	return q
}

func conjuncts(e cql2.Expr) []cql2.Expr {
	if e == nil {
		return nil
	}
	if l, ok := e.(cql2.Logical); ok && l.Op == "and" {
		var out []cql2.Expr
		for _, a := range l.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []cql2.Expr{e}
}

// pushDown moves e into q when the index answers it exactly: type = t,
// identifier = i (or IN), a box intersecting the extent. Each once.
func pushDown(q *catalogrecords.Query, e cql2.Expr) bool {
	switch e := e.(type) {
	case cql2.Compare:
		p, ok1 := e.Left.(cql2.Property)
		l, ok2 := e.Right.(cql2.Literal)
		s, ok3 := l.Value.(string)
		if !ok1 || !ok2 || !ok3 || e.Op != "=" {
			return false
		}
		switch {
		case p.Name == "type" && q.Types == nil && slices.Contains(catalogrecords.Types, catalogrecords.Type(s)):
			q.Types = []catalogrecords.Type{catalogrecords.Type(s)}
			return true
		case p.Name == "id" && q.IDs == nil:
			q.IDs = []string{s}
			return true
		}
	case cql2.In:
		if p, ok := e.Arg.(cql2.Property); ok && p.Name == "id" && q.IDs == nil {
			var ids []string
			for _, x := range e.List {
				l, ok := x.(cql2.Literal)
				s, ok2 := l.Value.(string)
				if !ok || !ok2 {
					return false
				}
				ids = append(ids, s)
			}
			q.IDs = ids
			return true
		}
	case cql2.Spatial:
		p, ok1 := e.A.(cql2.Property)
		l, ok2 := e.B.(cql2.Literal)
		if !ok1 || !ok2 || p.Name != "geometry" || e.Op != "s_intersects" || q.BBox != nil {
			return false
		}
		if box, ok := boxOf(l.Value); ok {
			q.BBox = box
			return true
		}
	}
	return false
}

// boxOf is the [w, s, e, n] of a polygon that is an axis-aligned box.
func boxOf(v any) ([]float64, bool) {
	p, ok := v.(*geom.Polygon)
	if !ok || p.NumLinearRings() != 1 || p.NumCoords() != 5 {
		return nil, false
	}
	b := p.Bounds()
	for _, c := range p.Coords()[0] {
		if (c[0] != b.Min(0) && c[0] != b.Max(0)) || (c[1] != b.Min(1) && c[1] != b.Max(1)) {
			return nil, false
		}
	}
	// a box has its 4 corners: 2 distinct x and 2 distinct y alone do not
	// make one (a bow tie), so check the area too.
	if p.Area() != (b.Max(0)-b.Min(0))*(b.Max(1)-b.Min(1)) {
		return nil, false
	}
	return []float64{b.Min(0), b.Min(1), b.Max(0), b.Max(1)}, true
}

func getRecords(ctx context.Context, src Source, c Call) ([]byte, error) {
	r := c.Request
	expr, err := r.constraint()
	if err != nil {
		return nil, err
	}
	v, p := r.Version, cswPrefix(r.Version)
	x := &xw{}
	x.decl()
	if r.ResultType == "validate" {
		x.open(p+":Acknowledgement", append(rootNS(v), "timeStamp", now())...)
		x.open(p + ":EchoedRequest")
		x.close(p + ":EchoedRequest")
		x.close(p + ":Acknowledgement")
		return x.b.Bytes(), nil
	}
	page, err := src.Records(ctx, query(c, expr))
	if err != nil {
		return nil, sourceError(err)
	}
	if r.ResultType == "hits" || r.Max == 0 {
		page.Records = nil
	}
	next := 0
	if n := r.Start + len(page.Records); len(page.Records) > 0 && n <= page.Matched {
		next = n
	}
	attrs := rootNS(v)
	if r.OutputSchema == SchemaGMD || r.OutputSchema == SchemaMDB {
		attrs = append(attrs, "xmlns:gmd", SchemaGMD)
	}
	if v == V2 {
		attrs = append(attrs, "version", V2)
	}
	x.open(p+":GetRecordsResponse", attrs...)
	x.empty(p+":SearchStatus", "timestamp", now())
	x.open(p+":SearchResults", "numberOfRecordsMatched", itoa(page.Matched), "numberOfRecordsReturned", itoa(len(page.Records)),
		"nextRecord", itoa(next), "recordSchema", r.OutputSchema, "elementSet", r.ElementSet)
	for i := range page.Records {
		if err := writeRecord(x, &page.Records[i], v, r.OutputSchema, r.ElementSet); err != nil {
			return nil, err
		}
	}
	x.close(p + ":SearchResults")
	x.close(p + ":GetRecordsResponse")
	return x.b.Bytes(), nil
}

func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05Z") }

// maxIDs bounds GetRecordById's ids.
const maxIDs = 100

func getRecordByID(ctx context.Context, src Source, c Call) ([]byte, error) {
	r := c.Request
	if len(r.IDs) > maxIDs {
		return nil, invalid("id", "at most %d ids", maxIDs)
	}
	var recs []*catalogrecords.Record
	for _, id := range r.IDs {
		if c.Only != "" && id != c.Only {
			continue
		}
		if _, _, ok := catalogrecords.ParseIdentifier(id); !ok {
			continue
		}
		rec, err := src.Record(ctx, id, c.Origin)
		if err != nil {
			return nil, sourceError(err)
		}
		if rec != nil && served(rec) {
			recs = append(recs, rec)
		}
	}
	x := &xw{}
	x.decl()
	if r.Version == V3 {
		// CSW 3.0 answers the record itself, 404 when there is none.
		if len(recs) == 0 {
			return nil, &Exception{Status: 404, Code: CodeNotFound, Locator: "id", Text: "there is no record " + clip(r.IDs[0])}
		}
		var ns []string
		if r.OutputSchema == SchemaCSW3 || r.OutputSchema == SchemaCSW {
			ns = rootNS(V3)
		}
		if err := writeRecord(x, recs[0], V3, r.OutputSchema, r.ElementSet, ns...); err != nil {
			return nil, err
		}
		return x.b.Bytes(), nil
	}
	x.open("csw:GetRecordByIdResponse", rootNS(V2)...)
	for _, rec := range recs {
		if err := writeRecord(x, rec, V2, r.OutputSchema, r.ElementSet); err != nil {
			return nil, err
		}
	}
	x.close("csw:GetRecordByIdResponse")
	return x.b.Bytes(), nil
}
