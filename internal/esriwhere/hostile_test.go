package esriwhere_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/geopub/geopub/internal/esriwhere"
)

func inList(n int) string {
	var b strings.Builder
	b.WriteString("OBJECTID IN (")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	return b.String() + ")"
}

// hostile are injection attempts and resource attacks: every one is an
// *Error (a 400 at the door), none panics or runs away.
var hostile = []string{
	"' OR 1=1 --",
	"NAME = '' OR 1=1 --'",
	"NAME = 'x' OR '1'='1' --",
	"NAME = 'x'' OR ''1''=''1",
	"1=1; DROP TABLE features",
	"1=1;",
	"OBJECTID = 1; DELETE FROM features",
	"1=1 UNION SELECT password FROM users",
	"OBJECTID IN (SELECT fid FROM features)",
	"OBJECTID = (SELECT 1)",
	"EXISTS (SELECT 1)",
	"1=1 /* comment */",
	"1=1 -- comment",
	"NAME = 'a' || (SELECT current_user)",
	"NAME = CHR(39)",
	"pg_sleep(10) IS NULL",
	"NAME = 'a' AND sleep(5)=0",
	"1=1 AND 1=CAST((SELECT version()) AS int)",
	"OBJECTID = 0x41",
	"NAME = 'a\\' OR 1=1 --'",
	"NAME = \"a\" OR 1=1",
	"`NAME` = 'a'",
	"NAME = 'a' \x00 OR 1=1",
	"\x00",
	"NAME = '\xc3\x28'",
	"\xff\xfe",
	strings.Repeat("(", 10000) + "1=1" + strings.Repeat(")", 10000),
	strings.Repeat("(", 10000),
	strings.Repeat(")", 10000),
	strings.Repeat("NOT ", 10000) + "1=1",
	strings.Repeat("UPPER(", 10000) + "NAME" + strings.Repeat(")", 10000) + " = 'A'",
	inList(100000),
	inList(esriwhere.MaxInItems + 1),
	strings.Repeat("OBJECTID = 1 OR ", 20000) + "1=1",
	strings.Repeat("x", esriwhere.MaxLength+1),
	"NAME = '" + strings.Repeat("a", esriwhere.MaxLength) + "'",
	strings.Repeat("'", 1001),
	"NAME LIKE '%' ESCAPE",
	"NAME = 'a' ESCAPE 'b'",
}

func TestHostile(t *testing.T) {
	for _, where := range hostile {
		e, err := esriwhere.Parse(where, fields)
		var we *esriwhere.Error
		if !errors.As(err, &we) {
			t.Errorf("%.60q: %v (%v), want an *Error", where, err, show(e))
			continue
		}
		if !utf8.ValidString(we.Error()) || len(we.Error()) > 400 {
			t.Errorf("%.60q: the message is not short valid UTF-8: %q", where, we.Error())
		}
	}
}

// The limits are where the package doc says.
func TestLimits(t *testing.T) {
	if _, err := esriwhere.Parse(inList(esriwhere.MaxInItems), fields); err != nil {
		t.Errorf("%d IN values: %v", esriwhere.MaxInItems, err)
	}
	if _, err := esriwhere.Parse(inList(esriwhere.MaxInItems+1), fields); err == nil || !strings.Contains(err.Error(), "at most 1000 values") {
		t.Errorf("%d IN values: %v", esriwhere.MaxInItems+1, err)
	}
	deep := func(n int) string { return strings.Repeat("(", n) + "OBJECTID = 1" + strings.Repeat(")", n) }
	if _, err := esriwhere.Parse(deep(esriwhere.MaxDepth), fields); err != nil {
		t.Errorf("depth %d: %v", esriwhere.MaxDepth, err)
	}
	if _, err := esriwhere.Parse(deep(esriwhere.MaxDepth+1), fields); err == nil || !strings.Contains(err.Error(), "deeper than 64") {
		t.Errorf("depth %d: %v", esriwhere.MaxDepth+1, err)
	}
	if _, err := esriwhere.Parse(strings.Repeat("NOT ", esriwhere.MaxDepth+1)+"OBJECTID = 1", fields); err == nil {
		t.Errorf("NOT ×%d parsed", esriwhere.MaxDepth+1)
	}
	long := "NAME = '" + strings.Repeat("a", esriwhere.MaxLength-10) + "'"
	if _, err := esriwhere.Parse(long, fields); err != nil {
		t.Errorf("a %d-byte clause: %v", len(long), err)
	}
	if _, err := esriwhere.Parse(long+" AND OBJECTID > 1000", fields); err == nil || !strings.Contains(err.Error(), "longer than 65536 bytes") {
		t.Errorf("a %d-byte clause: %v", len(long)+20, err)
	}
	many := strings.Repeat("OBJECTID = 1 OR ", 3000) + "OBJECTID = 2"
	if _, err := esriwhere.Parse(many, fields); err == nil || !strings.Contains(err.Error(), "more than 10000 tokens") {
		t.Errorf("%d tokens: %v", 3000*4+3, err)
	}
}
