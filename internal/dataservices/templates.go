package dataservices

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// Fill substitutes a dataset's id (as its URLs name it: 12, or c12 for a
// catalog item), short name and title for the tokens {id}, {shortname}
// and {title} in an external service template URL.
// Everything else, tile placeholders such as {z}/{x}/{y} included, is left
// as it is. Short names and titles are percent-encoded (every byte but
// ASCII letters, digits and -._~), so that a title with spaces, slashes,
// ampersands or non-ASCII letters still makes one valid path segment or
// query value.
func Fill(template, id, shortName, title string) string {
	return strings.NewReplacer(
		"{id}", escape(id),
		"{shortname}", escape(shortName),
		"{title}", escape(title),
	).Replace(template)
}

// escape percent-encodes every byte of s outside RFC 3986's unreserved
// set.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && (c == '-' || c == '.' || c == '_' || c == '~' ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// ShortName derives a dataset's short name from its title: letters and
// digits of any script, lower-cased, with every other run of characters
// turned into one hyphen.
func ShortName(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// CheckTemplateURL reports why a template URL is unusable: it must be an
// absolute http or https URL once its tokens are filled.
func CheckTemplateURL(template string) error {
	if strings.TrimSpace(template) == "" {
		return fmt.Errorf("service_url is required")
	}
	filled := Fill(template, "1", "name", "Title")
	// Tile placeholders stay in the URL: give them values to parse it.
	filled = strings.NewReplacer("{z}", "0", "{x}", "0", "{y}", "0", "{-y}", "0", "{s}", "a").Replace(filled)
	u, err := url.Parse(filled)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("service_url %q is not an absolute http or https URL", template)
	}
	return nil
}
