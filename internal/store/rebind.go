package store

import (
	"strconv"
	"strings"
)

// Rebind turns the `?` placeholders of hand-written SQL into PostgreSQL's
// `$n` when pg is set, and leaves SQLite's as they are. The SQL must hold
// no `?` inside a literal: every value is an argument.
func Rebind(q string, pg bool) string {
	if !pg {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
