package cswserver

import (
	"regexp"
	"strings"

	"github.com/geopub/geopub/internal/cql2"
)

// parseCQL reads a CQL_TEXT constraint: CQL2 text (internal/cql2) over
// the queryable names, with OGC CQL's BBOX(property, w, s, e, n[, crs])
// read as S_INTERSECTS(property, BBOX(w, s, e, n)).
func parseCQL(s string) (cql2.Expr, error) {
	if len(s) > maxConstraintBytes {
		return nil, bad("the constraint is longer than %d bytes", maxConstraintBytes)
	}
	text, err := bboxCalls(s)
	if err != nil {
		return nil, err
	}
	e, err := cql2.ParseText(text)
	if err != nil {
		return nil, bad("the CQL constraint cannot be read: %s", clip(err.Error()))
	}
	return mapNames(e)
}

var bboxCall = regexp.MustCompile(`(?i)\bBBOX\s*\(\s*([A-Za-z_][A-Za-z0-9_.:]*)\s*,`)

// bboxCalls rewrites CQL's BBOX(property, ...) calls (outside quoted
// strings) into CQL2's spatial predicate.
func bboxCalls(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '\'' { // copy a string literal whole ('' escapes a quote)
			j := i + 1
			for j < len(s) && !(s[j] == '\'' && (j+1 >= len(s) || s[j+1] != '\'')) {
				if s[j] == '\'' {
					j++
				}
				j++
			}
			end := min(j+1, len(s))
			b.WriteString(s[i:end])
			i = end
			continue
		}
		m := bboxCall.FindStringSubmatchIndex(s[i:])
		if m == nil || m[0] != 0 || i > 0 && isIdentByte(s[i-1]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		prop := s[i+m[2] : i+m[3]]
		rest := s[i+m[1]:]
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return "", bad("BBOX( is not closed")
		}
		args := strings.Split(rest[:end], ",")
		if len(args) == 5 && strings.HasPrefix(strings.TrimSpace(args[4]), "'") {
			crs := strings.Trim(strings.TrimSpace(args[4]), "'")
			if latFirst, err := latitudeFirst(crs); err != nil {
				return "", err
			} else if latFirst {
				args = []string{args[1], args[0], args[3], args[2]}
			}
			args = args[:4]
		}
		if len(args) != 4 {
			return "", bad("BBOX takes a property and four numbers")
		}
		b.WriteString("S_INTERSECTS(" + prop + ", BBOX(" + strings.Join(args, ",") + "))")
		i += m[1] + end + 1
	}
	return b.String(), nil
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// mapNames turns queryable names into record properties (an unknown one
// is an error), makes LIKE case-insensitive and reads date literals
// compared with dates as times.
func mapNames(e cql2.Expr) (cql2.Expr, error) {
	var err error
	var walk func(cql2.Expr) cql2.Expr
	list := func(es []cql2.Expr) []cql2.Expr {
		out := make([]cql2.Expr, len(es))
		for i, x := range es {
			out[i] = walk(x)
		}
		return out
	}
	walk = func(e cql2.Expr) cql2.Expr {
		switch e := e.(type) {
		case cql2.Property:
			name := queryable(e.Name)
			if name == "" && err == nil {
				err = bad("%s is not a queryable", clip(e.Name))
			}
			return cql2.Property{Name: name}
		case cql2.Logical:
			return cql2.Logical{Op: e.Op, Args: list(e.Args)}
		case cql2.Not:
			return cql2.Not{Arg: walk(e.Arg)}
		case cql2.Compare:
			l, r := walk(e.Left), walk(e.Right)
			if p, ok := l.(cql2.Property); ok {
				r = dateLiteral(p.Name, r)
			}
			return cql2.Compare{Op: e.Op, Left: l, Right: r}
		case cql2.Like:
			return cql2.Like{Arg: cql2.CaseI{Arg: walk(e.Arg)}, Pattern: cql2.CaseI{Arg: walk(e.Pattern)}}
		case cql2.Between:
			a := walk(e.Arg)
			p, _ := a.(cql2.Property)
			return cql2.Between{Arg: a, Low: dateLiteral(p.Name, walk(e.Low)), High: dateLiteral(p.Name, walk(e.High))}
		case cql2.In:
			return cql2.In{Arg: walk(e.Arg), List: list(e.List)}
		case cql2.IsNull:
			return cql2.IsNull{Arg: walk(e.Arg)}
		case cql2.Spatial:
			return cql2.Spatial{Op: e.Op, A: walk(e.A), B: walk(e.B)}
		case cql2.Distance:
			return cql2.Distance{Op: e.Op, A: walk(e.A), B: walk(e.B), Metres: e.Metres}
		case cql2.CaseI:
			return cql2.CaseI{Arg: walk(e.Arg)}
		case cql2.AccentI:
			return cql2.AccentI{Arg: walk(e.Arg)}
		}
		return e
	}
	out := walk(e)
	return out, err
}

func dateLiteral(prop string, e cql2.Expr) cql2.Expr {
	if l, ok := e.(cql2.Literal); ok {
		if s, ok := l.Value.(string); ok {
			return literal(prop, s)
		}
	}
	return e
}
