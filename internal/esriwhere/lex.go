package esriwhere

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of a where clause. A clause past one of them is refused with an
// *Error before anything is evaluated.
const (
	// MaxLength is the longest clause read, in bytes.
	MaxLength = 64 << 10
	// MaxTokens bounds the words, values and operators of a clause, and
	// so the size of the expression every feature is tested against.
	MaxTokens = 10000
	// MaxDepth bounds nesting: parentheses, NOT and UPPER/LOWER, each a
	// level.
	MaxDepth = 64
	// MaxInItems bounds the values of one IN list.
	MaxInItems = 1000
)

// Error is a where clause Parse refuses: what was expected or why the
// clause cannot be served, at a position. Callers answer it as a 400.
type Error struct {
	// Pos is the 1-based character (not byte) position the message is
	// about; 0 when it is about the whole clause.
	Pos int
	Msg string
}

// Error implements error: "where clause, at character 12: ...".
func (e *Error) Error() string {
	if e.Pos > 0 {
		return fmt.Sprintf("where clause, at character %d: %s", e.Pos, e.Msg)
	}
	return "where clause: " + e.Msg
}

type tokKind int8

const (
	tEOF    tokKind = iota
	tIdent          // NAME, AND, UPPER, ...
	tQIdent         // "NAME"
	tString         // 'text' (or N'text')
	tNumber         // 12, 1.5, .5, 1e-3 (unsigned)
	tOp             // = <> != < <= > >= ( ) , + -
)

type token struct {
	kind tokKind
	text string // a string's or quoted name's value, unquoted
	pos  int    // byte offset
}

// lexer splits a clause into tokens; positions in its errors are
// characters.
type lexer struct {
	src  string
	toks []token
}

func (l *lexer) errAt(byteOff int, format string, args ...any) *Error {
	return &Error{Pos: charPos(l.src, byteOff), Msg: fmt.Sprintf(format, args...)}
}

// charPos is the 1-based character position of byte offset off in s.
func charPos(s string, off int) int {
	if off > len(s) {
		off = len(s)
	}
	return utf8.RuneCountInString(s[:off]) + 1
}

func lex(src string) ([]token, error) {
	l := &lexer{src: src}
	s := src
	i := 0
	for i < len(s) {
		if len(l.toks) >= MaxTokens {
			return nil, &Error{Msg: fmt.Sprintf("the clause has more than %d tokens", MaxTokens)}
		}
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '\'':
			v, next, err := l.str(i)
			if err != nil {
				return nil, err
			}
			l.toks = append(l.toks, token{tString, v, i})
			i = next
		case c == '"':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return nil, l.errAt(i, "the quoted field name starting here is not closed with \"")
				}
				if s[j] == '"' {
					if j+1 < len(s) && s[j+1] == '"' {
						b.WriteByte('"')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			if b.Len() == 0 {
				return nil, l.errAt(i, "empty quoted field name")
			}
			l.toks = append(l.toks, token{tQIdent, b.String(), i})
			i = j + 1
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			j := number(s, i)
			if j < 0 {
				return nil, l.errAt(i, "malformed number %s", clip(s[i:identEnd(s, i)]))
			}
			if j < len(s) {
				if r, _ := utf8.DecodeRuneInString(s[j:]); isIdentPart(r) || r == '.' {
					return nil, l.errAt(i, "malformed number %s", clip(s[i:identEnd(s, i)]))
				}
			}
			l.toks = append(l.toks, token{tNumber, s[i:j], i})
			i = j
		case c == '<' || c == '>' || c == '!':
			if i+1 < len(s) && (s[i+1] == '=' || c == '<' && s[i+1] == '>') {
				l.toks = append(l.toks, token{tOp, s[i : i+2], i})
				i += 2
				continue
			}
			if c == '!' {
				return nil, l.errAt(i, "unexpected \"!\": the comparison operators are = <> != < <= > >=")
			}
			l.toks = append(l.toks, token{tOp, s[i : i+1], i})
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-', c == '/' && i+1 < len(s) && s[i+1] == '*':
			return nil, l.errAt(i, "comments (%s) are refused in a where clause", s[i:i+2])
		case c == '=' || c == '(' || c == ')' || c == ',' || c == '+' || c == '-':
			if c == '=' && i+1 < len(s) && s[i+1] == '=' {
				return nil, l.errAt(i, "unexpected \"==\": equality is a single =")
			}
			l.toks = append(l.toks, token{tOp, s[i : i+1], i})
			i++
		case c == ';':
			return nil, l.errAt(i, "\";\" is refused: a where clause is one expression, not statements")
		case c == '*' || c == '/' || c == '%' || c == '|' || c == '^' || c == '&':
			return nil, l.errAt(i, "unexpected %q: arithmetic and string concatenation are not supported", string(c))
		case c == '[':
			return nil, l.errAt(i, "bracketed field names are not supported: write NAME or \"NAME\"")
		case c == '#':
			return nil, l.errAt(i, "#...# dates are not supported: write DATE 'YYYY-MM-DD' or TIMESTAMP 'YYYY-MM-DD hh:mm:ss'")
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !isIdentStart(r) {
				return nil, l.errAt(i, "unexpected character %q", r)
			}
			j := i + size
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if !isIdentPart(r) {
					break
				}
				j += size
			}
			// N'text', a national character string.
			if j == i+1 && (c == 'N' || c == 'n') && j < len(s) && s[j] == '\'' {
				v, next, err := l.str(j)
				if err != nil {
					return nil, err
				}
				l.toks = append(l.toks, token{tString, v, i})
				i = next
				continue
			}
			l.toks = append(l.toks, token{tIdent, s[i:j], i})
			i = j
		}
	}
	return append(l.toks, token{kind: tEOF, pos: len(s)}), nil
}

// str reads the string literal whose opening quote is at i (a doubled
// quote is a quote inside it), returning its value and the offset after it.
func (l *lexer) str(i int) (string, int, error) {
	s := l.src
	var b strings.Builder
	j := i + 1
	for {
		k := strings.IndexByte(s[j:], '\'')
		if k < 0 {
			return "", 0, l.errAt(i, "the string starting here is not closed with '")
		}
		b.WriteString(s[j : j+k])
		j += k
		if j+1 < len(s) && s[j+1] == '\'' {
			b.WriteByte('\'')
			j += 2
			continue
		}
		return b.String(), j + 1, nil
	}
}

// number returns the end of the unsigned number at i (digits, an
// optional fraction, an optional exponent), or -1 when it is malformed.
func number(s string, i int) int {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		d := j
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == d {
			return -1
		}
	}
	return j
}

// identEnd is where the run of name-like characters from i ends (for
// quoting a malformed number whole).
func identEnd(s string, i int) int {
	j := i
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !isIdentPart(r) && r != '.' && r != '+' && r != '-' {
			break
		}
		j += size
	}
	return j
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }

func isIdentPart(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// clip quotes s for a message, cut to 40 characters.
func clip(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		r := []rune(s)
		return fmt.Sprintf("%q…", string(r[:40]))
	}
	return fmt.Sprintf("%q", s)
}
