package exports

import "strings"

// A reason is written "code: detail": the code is the stable word
// clients compare (outside-extent, limit-features, ...; api-shapes §7.4
// shows invalid_reasons: ["outside-extent"]), the detail the prose for
// people. The doors answer the codes and the details as two lists of the
// same length and order.

// SplitReason returns a reason's code and detail.
func SplitReason(r string) (code, detail string) {
	code, detail, _ = strings.Cut(r, ":")
	return strings.TrimSpace(code), strings.TrimSpace(detail)
}

// Codes returns the codes of reasons, in order (never nil).
func Codes(reasons []string) []string {
	out := make([]string, 0, len(reasons))
	for _, r := range reasons {
		c, _ := SplitReason(r)
		out = append(out, c)
	}
	return out
}

// Details returns the details of reasons, in order (never nil).
func Details(reasons []string) []string {
	out := make([]string, 0, len(reasons))
	for _, r := range reasons {
		_, d := SplitReason(r)
		out = append(out, d)
	}
	return out
}
