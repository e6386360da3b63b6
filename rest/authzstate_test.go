package rest_test

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/migrate"
)

// The authorization matrix proves that a refused write changed nothing by
// comparing a fingerprint of every domain table before and after it.

// volatile are the tables and columns that change on reads or in the
// background, not through the API's writes: sessions and login throttles,
// a token's last use.
var volatile = map[string]bool{
	"sessions": true, "login_throttles": true, "tokens.last_used_at": true,
}

// fingerprint is one line per domain table: its name, row count and a hash
// of its rows.
func fingerprint(t *testing.T, e *env) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tb := range migrate.Tables {
		if volatile[tb.Name] {
			continue
		}
		var cols []string
		for _, c := range tb.Columns {
			if !volatile[tb.Name+"."+c.Name] {
				cols = append(cols, `"`+c.Name+`"`)
			}
		}
		q := fmt.Sprintf(`SELECT %s FROM "%s" ORDER BY 1`, strings.Join(cols, ", "), tb.Name)
		rows, err := e.Store.DB.QueryContext(t.Context(), q)
		if err != nil {
			t.Fatalf("fingerprint %s: %v", tb.Name, err)
		}
		h, n := sha256.New(), 0
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("fingerprint %s: %v", tb.Name, err)
			}
			for _, v := range vals {
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				if tm, ok := v.(time.Time); ok {
					v = tm.UTC().Format(time.RFC3339Nano)
				}
				fmt.Fprintf(h, "%v|", v)
			}
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("fingerprint %s: %v", tb.Name, err)
		}
		rows.Close()
		out[tb.Name] = fmt.Sprintf("%d rows %x", n, h.Sum(nil)[:8])
	}
	return out
}

// changedTables names the tables whose fingerprints differ.
func changedTables(before, after map[string]string) []string {
	var out []string
	for name, b := range before {
		if after[name] != b {
			out = append(out, fmt.Sprintf("%s (%s -> %s)", name, b, after[name]))
		}
	}
	return out
}

// settle waits until no job is queued or running, so that the background
// work an allowed write started does not count as a change made by the
// refused calls that follow it.
func settle(t *testing.T, e *env) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		err := e.Store.DB.QueryRowContext(t.Context(),
			`SELECT COUNT(*) FROM river_job WHERE state IN ('available', 'running', 'retryable', 'scheduled', 'pending')`).Scan(&n)
		if err != nil {
			t.Fatalf("counting jobs: %v", err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d jobs still queued or running after 30 s", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
