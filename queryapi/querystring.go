package queryapi

import (
	"net/url"
	"strings"
)

// maxQueryParams is net/url's default limit on the parameters of a query
// string: beyond it, url.URL.Query answers none.
const maxQueryParams = 10000

// parseQuery parses a raw query string exactly as url.URL.Query does
// (malformed pairs are dropped), in two allocations for the usual point
// query instead of one per parameter: it runs on every request.
func parseQuery(raw string) url.Values {
	n := strings.Count(raw, "&") + 1
	if n > maxQueryParams {
		return url.Values{}
	}
	n = min(n, 16)
	m := make(url.Values, n)
	vals := make([]string, 0, n)
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		if v, err = url.QueryUnescape(v); err != nil {
			continue
		}
		if old, ok := m[k]; ok {
			m[k] = append(old, v) // each key's slice is full, so this copies
			continue
		}
		vals = append(vals, v)
		m[k] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	return m
}
