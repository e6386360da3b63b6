package cql2

import (
	"fmt"
	"strings"
)

// token kinds of the text encoding.
const (
	tEOF = iota
	tIdent
	tQuoted // "identifier"
	tString
	tNumber
	tOp // = <> < <= > >= ( ) ,
)

type token struct {
	kind int
	text string
	pos  int
}

// Error is a filter the parser refuses; its message says where and why.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) *Error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// lex splits CQL2 text into tokens.
func lex(s string) ([]token, error) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return nil, errorf("unterminated string starting at %d", i+1)
				}
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			out = append(out, token{tString, b.String(), i})
			i = j + 1
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, errorf("unterminated quoted name starting at %d", i+1)
			}
			out = append(out, token{tQuoted, s[i+1 : i+1+j], i})
			i += j + 2
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
				(s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E')) {
				j++
			}
			out = append(out, token{tNumber, s[i:j], i})
			i = j
		case isIdentStart(c):
			j := i
			for j < len(s) && (isIdentStart(s[j]) || s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == ':') {
				j++
			}
			out = append(out, token{tIdent, s[i:j], i})
			i = j
		case c == '<' || c == '>':
			if i+1 < len(s) && (s[i+1] == '=' || c == '<' && s[i+1] == '>') {
				out = append(out, token{tOp, s[i : i+2], i})
				i += 2
				continue
			}
			out = append(out, token{tOp, s[i : i+1], i})
			i++
		case strings.IndexByte("=(),-+", c) >= 0:
			out = append(out, token{tOp, s[i : i+1], i})
			i++
		default:
			return nil, errorf("unexpected character %q at %d", c, i+1)
		}
	}
	return append(out, token{kind: tEOF, pos: len(s)}), nil
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}
