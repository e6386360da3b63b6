package rest

import (
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/geopub/geopub/internal/apperr"
)

// formatOf reads the format a request asks for: its format parameter,
// one of names (a 400 naming them otherwise); else the first media type
// of its Accept header that types maps to a format; else def.
func formatOf(r *http.Request, names []string, types map[string]string, def string) (string, error) {
	if f := strings.TrimSpace(r.URL.Query().Get("format")); f != "" {
		if slices.Contains(names, f) {
			return f, nil
		}
		return "", apperr.Field("format", fmt.Sprintf("Use %s, not %q.", orList(names), clipParam(f)))
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if f, ok := types[mt]; ok {
			return f, nil
		}
	}
	return def, nil
}

// orList joins names as prose: "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// clipParam shortens a parameter's value quoted in an error.
func clipParam(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
