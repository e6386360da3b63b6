package queryapi

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// The limits of the vector query's parameters.
const (
	maxResultsLimit = 100
	defaultResults  = 1
	maxRadius       = 100000
	defaultRadius   = 1000
	maxLayers       = 20
)

// vectorParams are the parameters of a vector query.
type vectorParams struct {
	layers         []int
	x, y           float64
	maxResults     int
	radius         float64
	geometry       bool
	withFieldNames bool
	callback       string
}

// paramError is a bad parameter: 400, or 200 with a string under JSONP.
type paramError struct{ msg string }

func (e *paramError) Error() string { return e.msg }

func badParam(format string, args ...any) error {
	return &paramError{msg: fmt.Sprintf(format, args...)}
}

// callbackName is what a JSONP callback may be: a JavaScript identifier
// path such as jQuery123_456 or app.handlers.result.
var callbackName = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$`)

// parseCallback reads the JSONP callback. A name that is not a plain
// identifier path is refused outright (never echoed into a script).
func parseCallback(q url.Values) (string, error) {
	cb := q.Get("callback")
	if cb == "" {
		return "", nil
	}
	if len(cb) > 128 || !callbackName.MatchString(cb) {
		return "", fmt.Errorf("callback must be a JavaScript identifier (letters, digits, _ and $, dot-separated), at most 128 characters")
	}
	return cb, nil
}

// parseVector reads and checks a vector query's parameters (the spec's
// table: types, defaults, ranges). version is the format version asked
// for; with_field_names needs 1.1.
func parseVector(q url.Values, version string) (vectorParams, error) {
	p := vectorParams{maxResults: defaultResults, radius: defaultRadius}
	var err error
	if p.layers, err = layerIDs(q); err != nil {
		return p, err
	}
	return p, vectorOptions(q, version, &p)
}

// vectorOptions reads the point and the options of a vector lookup, shared
// by the vector and set queries; with_field_names needs version 1.1 or
// later.
func vectorOptions(q url.Values, version string, p *vectorParams) error {
	var err error
	if p.x, err = coordinate(q, "x", 180); err != nil {
		return err
	}
	if p.y, err = coordinate(q, "y", 90); err != nil {
		return err
	}
	if v := q.Get("max_results"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxResultsLimit {
			return badParam("max_results must be an integer from 1 to %d, not %q", maxResultsLimit, v)
		}
		p.maxResults = n
	}
	if v := q.Get("radius"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxRadius {
			return badParam("radius must be an integer number of metres from 0 to %d, not %q", maxRadius, v)
		}
		p.radius = float64(n)
	}
	if p.geometry, err = boolParam(q, "geometry"); err != nil {
		return err
	}
	if p.withFieldNames, err = boolParam(q, "with_field_names"); err != nil {
		return err
	}
	if p.withFieldNames && version == "1.0" {
		return badParam("with_field_names needs version 1.1 or later")
	}
	return nil
}

// layerIDs reads the required, repeatable layer parameter (a
// comma-separated list is accepted too), at most maxLayers ids.
func layerIDs(q url.Values) ([]int, error) {
	raw := q["layer"]
	if len(raw) == 0 {
		return nil, badParam("layer is required: give a layer id (repeat it to query several layers)")
	}
	ids := make([]int, 0, len(raw))
	for _, r := range raw {
		for part := range strings.SplitSeq(r, ",") {
			id, err := strconv.Atoi(strings.TrimSpace(part))
			if err != nil || id <= 0 {
				return nil, badParam("layer must be a layer id (a positive integer), not %q", part)
			}
			ids = append(ids, id)
		}
	}
	if len(ids) > maxLayers {
		return nil, badParam("at most %d layers per query", maxLayers)
	}
	return ids, nil
}

// coordinate reads a required decimal-degree coordinate within ±limit.
func coordinate(q url.Values, name string, limit float64) (float64, error) {
	v := q.Get(name)
	if v == "" {
		return 0, badParam("%s is required: a %s in decimal degrees (EPSG:4326)", name, map[string]string{"x": "longitude", "y": "latitude"}[name])
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < -limit || f > limit || f != f {
		return 0, badParam("%s must be a number from %g to %g, not %q", name, -limit, limit, v)
	}
	return f, nil
}

// boolParam reads an optional boolean: true/false, 1/0, yes/no, in any
// case (clients send Python's True and False).
func boolParam(q url.Values, name string) (bool, error) {
	v := q.Get(name)
	switch strings.ToLower(v) {
	case "", "false", "0", "no":
		return false, nil
	case "true", "1", "yes":
		return true, nil
	}
	return false, badParam("%s must be true or false, not %q", name, v)
}
