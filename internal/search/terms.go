package search

import (
	"strings"
	"unicode"
)

// Terms splits free text into the plain words the engines match: runs of
// letters and digits, lower-cased, without duplicates, at most 32 of at
// most 64 characters each. Everything else (quotes, `*`, `^`, `-`, `:`,
// parentheses, NUL) separates words, so no character of q ever reaches an
// engine's query syntax; operator words (AND, OR, NOT, NEAR) become plain
// words because every term is quoted when the engine query is built.
func Terms(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if r := []rune(w); len(r) > maxTermRunes {
			w = string(r[:maxTermRunes])
		}
		w = strings.ToLower(w)
		if seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxTerms {
			break
		}
	}
	return out
}
