package catalogterms

import "strings"

// ParentKey is the key of a category's parent, "" at the top level.
func ParentKey(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i]
	}
	return ""
}
