package exports

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// SitePrefix starts every export name (api-shapes §7.1: "fred the
// export" → "<prefix>-fred-the-export").
const SitePrefix = "geopub"

// maxNameLen bounds a name (the column holds 200).
const maxNameLen = 120

// slug lowers s to ASCII letters, digits and single hyphens.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue // accents fall away: "Māori" → "maori"
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
		default:
			dash = true
		}
		if b.Len() >= maxNameLen {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

// Name normalises an export's name: a slug with the site prefix. An empty
// name is made from the parts' titles: the first, and how many more.
func Name(asked string, titles []string) string {
	s := slug(asked)
	if s == "" && len(titles) > 0 {
		s = slug(titles[0])
		if len(titles) > 1 {
			s += fmt.Sprintf("-and-%d-more", len(titles)-1)
		}
	}
	s = strings.TrimPrefix(s, SitePrefix+"-")
	if s == "" || s == SitePrefix {
		return SitePrefix + "-export"
	}
	return SitePrefix + "-" + s
}

// uniqueNames gives each title a slug unique among them ("roads",
// "roads-2"), the base names of the parts' files.
func uniqueNames(titles []string) []string {
	seen := map[string]int{}
	out := make([]string, len(titles))
	for i, t := range titles {
		s := slug(t)
		if s == "" {
			s = "data"
		}
		seen[s]++
		if n := seen[s]; n > 1 {
			s = fmt.Sprintf("%s-%d", s, n)
		}
		out[i] = s
	}
	return out
}
