package cql2

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/geojson"
)

// ParseJSON parses the CQL2 JSON encoding.
func ParseJSON(data []byte) (Expr, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, errorf("the filter is not JSON: %v", err)
	}
	if dec.More() {
		return nil, errorf("the filter has text after its JSON value")
	}
	return jsonPredicate(v, 0)
}

func jsonPredicate(v any, depth int) (Expr, error) {
	if depth > maxDepth {
		return nil, errorf("the filter nests deeper than %d levels", maxDepth)
	}
	if b, ok := v.(bool); ok {
		return Literal{Value: b}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errorf("a predicate must be an object with op and args")
	}
	op, _ := m["op"].(string)
	args, ok := m["args"].([]any)
	if op == "" || !ok {
		return nil, errorf("a predicate must be an object with op and args")
	}
	op = strings.ToLower(op)
	pred := func(i int) (Expr, error) { return jsonPredicate(args[i], depth+1) }
	val := func(i int) (Expr, error) { return jsonValue(args[i], depth+1) }
	want := func(n int) error {
		if len(args) != n {
			return errorf("%s takes %d arguments, not %d", op, n, len(args))
		}
		return nil
	}
	switch op {
	case "and", "or":
		if len(args) < 2 {
			return nil, errorf("%s takes at least 2 arguments", op)
		}
		out := Logical{Op: op}
		for i := range args {
			e, err := pred(i)
			if err != nil {
				return nil, err
			}
			out.Args = append(out.Args, e)
		}
		return out, nil
	case "not":
		if err := want(1); err != nil {
			return nil, err
		}
		e, err := pred(0)
		if err != nil {
			return nil, err
		}
		return Not{Arg: e}, nil
	case "=", "<>", "<", "<=", ">", ">=", "like":
		if err := want(2); err != nil {
			return nil, err
		}
		a, err := val(0)
		if err != nil {
			return nil, err
		}
		b, err := val(1)
		if err != nil {
			return nil, err
		}
		if op == "like" {
			return Like{Arg: a, Pattern: b}, nil
		}
		return Compare{Op: op, Left: a, Right: b}, nil
	case "between":
		if err := want(3); err != nil {
			return nil, err
		}
		var vs [3]Expr
		for i := range vs {
			var err error
			if vs[i], err = val(i); err != nil {
				return nil, err
			}
		}
		return Between{Arg: vs[0], Low: vs[1], High: vs[2]}, nil
	case "in":
		if err := want(2); err != nil {
			return nil, err
		}
		a, err := val(0)
		if err != nil {
			return nil, err
		}
		list, ok := args[1].([]any)
		if !ok {
			return nil, errorf("in takes a value and an array")
		}
		out := In{Arg: a}
		for _, item := range list {
			e, err := jsonValue(item, depth+1)
			if err != nil {
				return nil, err
			}
			out.List = append(out.List, e)
		}
		return out, nil
	case "isnull":
		if err := want(1); err != nil {
			return nil, err
		}
		a, err := val(0)
		if err != nil {
			return nil, err
		}
		return IsNull{Arg: a}, nil
	}
	if strings.HasPrefix(op, "s_") {
		sop, err := spatialOp(op)
		if err != nil {
			return nil, err
		}
		if len(args) != 2 {
			return nil, errorf("%s takes 2 geometries, not %d arguments", op, len(args))
		}
		a, err := val(0)
		if err != nil {
			return nil, err
		}
		b, err := val(1)
		if err != nil {
			return nil, err
		}
		if !isGeometryOperand(a) || !isGeometryOperand(b) {
			return nil, errorf("%s takes two geometries: properties, GeoJSON geometries or bboxes", op)
		}
		return Spatial{Op: sop, A: a, B: b}, nil
	}
	if isStringFunction(op) {
		return nil, errorf("%s gives a string, not a predicate: compare it with a value", op)
	}
	return nil, errorf("operator %q is not supported", op)
}

// isGeometryOperand reports whether e may stand for a geometry: a
// property or a geometry literal.
func isGeometryOperand(e Expr) bool {
	switch e := e.(type) {
	case Property:
		return true
	case Literal:
		_, ok := e.Value.(geom.T)
		return ok
	}
	return false
}

// jsonValue reads a scalar or geometry operand.
func jsonValue(v any, depth int) (Expr, error) {
	switch v := v.(type) {
	case string:
		return Literal{Value: v}, nil
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return nil, errorf("%s is not a number", v)
		}
		return Literal{Value: f}, nil
	case bool:
		return Literal{Value: v}, nil
	case map[string]any:
		if p, ok := v["property"].(string); ok {
			return Property{Name: p}, nil
		}
		if s, ok := v["timestamp"].(string); ok {
			return timeLiteral(s, false)
		}
		if s, ok := v["date"].(string); ok {
			return timeLiteral(s, true)
		}
		if b, ok := v["bbox"].([]any); ok {
			nums := make([]float64, 0, len(b))
			for _, x := range b {
				n, ok := x.(json.Number)
				if !ok {
					return nil, errorf("bbox holds numbers only")
				}
				f, err := n.Float64()
				if err != nil {
					return nil, errorf("bbox holds numbers only")
				}
				nums = append(nums, f)
			}
			g, err := bboxPolygon(nums)
			if err != nil {
				return nil, err
			}
			return Literal{Value: g}, nil
		}
		if _, ok := v["type"].(string); ok {
			enc, _ := json.Marshal(v)
			var g geom.T
			if err := geojson.Unmarshal(enc, &g); err != nil {
				return nil, errorf("not a GeoJSON geometry: %v", err)
			}
			return Literal{Value: g}, nil
		}
		if op, ok := v["op"].(string); ok && isStringFunction(op) {
			return jsonStringFunction(op, v["args"], depth+1)
		}
		if _, ok := v["op"]; ok {
			return jsonPredicate(v, depth)
		}
	}
	return nil, errorf("unsupported operand %v", v)
}

// jsonStringFunction reads {"op": "casei" or "accenti", "args": [arg]}:
// one character expression, that is a string, a property or another
// casei or accenti (OGC 21-065r2, characterClause).
func jsonStringFunction(op string, args any, depth int) (Expr, error) {
	if depth > maxDepth {
		return nil, errorf("the filter nests deeper than %d levels", maxDepth)
	}
	list, ok := args.([]any)
	if !ok || len(list) != 1 {
		return nil, errorf("%s takes one argument, a string or a property", op)
	}
	switch a := list[0].(type) {
	case string:
		return stringFunction(op, Literal{Value: a}), nil
	case map[string]any:
		if p, ok := a["property"].(string); ok {
			return stringFunction(op, Property{Name: p}), nil
		}
		if inner, ok := a["op"].(string); ok && isStringFunction(inner) {
			arg, err := jsonStringFunction(inner, a["args"], depth+1)
			if err != nil {
				return nil, err
			}
			return stringFunction(op, arg), nil
		}
	}
	return nil, errorf("%s takes a string or a property, not %v", op, list[0])
}
