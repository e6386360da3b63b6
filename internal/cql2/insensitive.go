package cql2

import (
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// fold is s case-folded (Unicode simple folding, so "STRASSE" and
// "strasse" match, and "Σ", "σ", "ς" fold alike).
func fold(s string) string { return cases.Fold().String(s) }

// stripAccents is s without its accents: decomposed (NFD), its
// nonspacing marks (Unicode category Mn) dropped, then composed again
// (NFC), so "Ä", "A\u0308" and "A" all become "A" while letters that do
// not decompose ("ø", "ß") stay as they are.
func stripAccents(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		return s
	}
	return out
}
