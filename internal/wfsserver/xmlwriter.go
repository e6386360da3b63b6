package wfsserver

import (
	"bufio"
	"encoding/xml"
	"io"
	"strings"
	"unicode/utf8"
)

// xw writes XML as it goes, through a buffer: documents are never built
// whole in memory. The first write error sticks and is returned by flush.
type xw struct {
	b   *bufio.Writer
	err error
}

func newXW(w io.Writer) *xw { return &xw{b: bufio.NewWriterSize(w, 32<<10)} }

func (x *xw) raw(s string) {
	if x.err == nil {
		_, x.err = x.b.WriteString(s)
	}
}

// text writes escaped character data.
func (x *xw) text(s string) {
	if x.err == nil {
		x.err = xml.EscapeText(x.b, []byte(s))
	}
}

// start writes <name a="v" ...> (or <name .../> when empty is set).
func (x *xw) start(name string, empty bool, attrs []string) {
	x.raw("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		x.raw(" " + attrs[i] + `="`)
		x.text(attrs[i+1])
		x.raw(`"`)
	}
	if empty {
		x.raw("/>")
	} else {
		x.raw(">")
	}
}

func (x *xw) open(name string, attrs ...string)  { x.start(name, false, attrs) }
func (x *xw) empty(name string, attrs ...string) { x.start(name, true, attrs) }
func (x *xw) close(name string)                  { x.raw("</" + name + ">") }

// elem writes <name attrs>text</name>.
func (x *xw) elem(name, text string, attrs ...string) {
	x.start(name, false, attrs)
	x.text(text)
	x.close(name)
}

func (x *xw) flush() error {
	if x.err == nil {
		x.err = x.b.Flush()
	}
	return x.err
}

// ncName turns a field name into an XML element name: characters an
// NCName may not hold become _, and a name that may not start one gets a
// leading _.
func ncName(s string) string {
	var b strings.Builder
	for i, r := range s {
		ok := r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r > 0x7f && r != 0xfffd
		if i > 0 {
			ok = ok || r == '-' || r == '.' || r >= '0' && r <= '9'
		} else if !ok {
			b.WriteByte('_')
			ok = r == '-' || r == '.' || r >= '0' && r <= '9'
		}
		if ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

func decodeRune(s string) (rune, int) { return utf8.DecodeRuneInString(s) }
