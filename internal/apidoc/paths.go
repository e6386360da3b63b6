package apidoc

import (
	"fmt"
	"strings"
)

// pathParam is a parameter of a chi pattern: its name and, when the
// pattern constrains it, the regular expression.
type pathParam struct{ name, regexp string }

// openAPIPath turns a chi pattern into an OpenAPI path template and its
// parameters: /groups/{gid:[0-9]+}/permissions becomes
// /groups/{gid}/permissions/. The API's canonical URLs end in a slash (the
// router accepts both), so the path does too, except for a file name such
// as openapi.json.
func openAPIPath(pattern string) (string, []pathParam, error) {
	var b strings.Builder
	var params []pathParam
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c != '{' {
			b.WriteByte(c)
			continue
		}
		depth, end := 0, -1
		for j := i; j < len(pattern) && end < 0; j++ {
			switch pattern[j] {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					end = j
				}
			}
		}
		if end < 0 {
			return "", nil, fmt.Errorf("apidoc: unclosed parameter in %q", pattern)
		}
		name, re, _ := strings.Cut(pattern[i+1:end], ":")
		params = append(params, pathParam{name, re})
		b.WriteString("{" + name + "}")
		i = end
	}
	p := b.String()
	if !strings.HasSuffix(p, "/") && !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".graphql") {
		p += "/"
	}
	return p, params, nil
}

// operationID names an operation after its method and path:
// get_groups_gid_permissions.
func operationID(method, path string) string {
	id := strings.ToLower(method)
	for _, part := range strings.FieldsFunc(path, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		id += "_" + part
	}
	return id
}
