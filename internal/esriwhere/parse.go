package esriwhere

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/cql2"
)

// FieldType is the type of a layer's field as a where clause sees it.
type FieldType int

// The field types. Integer, Float and ObjectID are numbers (float64 in
// cql2); Date holds dates and date-times (Esri's esriFieldTypeDate).
const (
	String FieldType = iota
	Integer
	Float
	Date
	Boolean
	// ObjectID is the feature id (Esri's esriFieldTypeOID), a number.
	ObjectID
)

func (t FieldType) String() string {
	switch t {
	case Integer:
		return "integer"
	case Float:
		return "double"
	case Date:
		return "date"
	case Boolean:
		return "boolean"
	case ObjectID:
		return "object id"
	}
	return "string"
}

// TypeOf is the FieldType of a stored field type (layer field types:
// "integer", "double", "boolean", "date", "datetime", "time", "string";
// a time of day compares as its text, anything else is a string).
func TypeOf(fieldType string) FieldType {
	switch fieldType {
	case "integer":
		return Integer
	case "double":
		return Float
	case "boolean":
		return Boolean
	case "date", "datetime":
		return Date
	}
	return String
}

// FieldsOf is the fields map Parse takes for a version's fields
// (geometry fields left out), with objectID, when not "", added as the
// ObjectID field: the FeatureServer door passes its OBJECTID (the feature
// id) here and must then give each feature that property (see the
// package doc). objectID stands for the feature id even when the layer
// has a field of that name.
func FieldsOf(fs []schematype.Field, objectID string) map[string]FieldType {
	out := make(map[string]FieldType, len(fs)+1)
	for _, f := range fs {
		if f.Type != "geometry" {
			out[f.Name] = TypeOf(f.Type)
		}
	}
	if objectID != "" {
		out[objectID] = ObjectID
	}
	return out
}

// kind is what a value holds, for the type rules.
type kind int8

const (
	kString kind = iota
	kNumber
	kDate
	kBool
	kNull
)

func (k kind) String() string {
	return [...]string{"text", "number", "date", "boolean", "NULL"}[k]
}

func kindOf(t FieldType) kind {
	switch t {
	case Integer, Float, ObjectID:
		return kNumber
	case Date:
		return kDate
	case Boolean:
		return kBool
	}
	return kString
}

// operand is a value of a predicate: a field (maybe under UPPER or
// LOWER) or a literal.
type operand struct {
	kind  kind
	field string // the field's own name; "" for a literal
	ftype FieldType
	fn    string // "upper" or "lower" over a field
	val   any    // a literal's value: string, float64, bool, time.Time, nil
	raw   string // a number literal as written
	pos   int    // byte offset
}

func (o operand) isField() bool { return o.field != "" }

// expr is the operand as cql2 sees it.
func (o operand) expr() cql2.Expr {
	if o.isField() {
		var e cql2.Expr = cql2.Property{Name: o.field}
		if o.fn != "" {
			e = cql2.CaseI{Arg: e}
		}
		return e
	}
	return cql2.Literal{Value: o.val}
}

// describe names the operand in a message.
func (o operand) describe() string {
	if o.isField() {
		s := fmt.Sprintf("the %s field %q", o.ftype, o.field)
		if o.fn != "" {
			s = strings.ToUpper(o.fn) + " of " + s
		}
		return s
	}
	return "a " + o.kind.String() + " value"
}

// Parse reads a where clause against the layer's fields (name → type);
// names are matched case-insensitively (Esri field names are) and
// returned with the layer's own spelling. A clause that is always true
// ("1=1", "", only spaces) gives nil; one that is always false ("1=0")
// gives cql2.Literal{Value: false}. Every refusal is an *Error.
func Parse(where string, fields map[string]FieldType) (cql2.Expr, error) {
	if len(where) > MaxLength {
		return nil, &Error{Msg: fmt.Sprintf("the clause is longer than %d bytes", MaxLength)}
	}
	if !utf8.ValidString(where) {
		return nil, &Error{Msg: "the clause is not valid UTF-8"}
	}
	if i := strings.IndexByte(where, 0); i >= 0 {
		return nil, &Error{Pos: charPos(where, i), Msg: "a NUL character is refused"}
	}
	toks, err := lex(where)
	if err != nil {
		return nil, err
	}
	p := &parser{src: where, toks: toks, fields: fields, now: time.Now().UTC()}
	if p.peek().kind == tEOF {
		return nil, nil
	}
	e, err := p.orExpr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t.pos, "unexpected %s after the end of the expression (an operator such as AND or OR was expected)", p.show(t))
	}
	if l, ok := e.(cql2.Literal); ok && l.Value == true {
		return nil, nil
	}
	return e, nil
}

type parser struct {
	src    string
	toks   []token
	i      int
	depth  int
	fields map[string]FieldType
	lower  map[string][]string // lower-cased name → the fields' names
	now    time.Time
}

func (p *parser) errAt(byteOff int, format string, args ...any) *Error {
	return &Error{Pos: charPos(p.src, byteOff), Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// show names a token in a message.
func (p *parser) show(t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the clause"
	case tString:
		return "the string " + clip(t.text)
	case tQIdent:
		return "the name " + clip(t.text)
	}
	return clip(t.text)
}

// keyword reports whether the next token is the bare word kw (any case),
// consuming it when it is.
func (p *parser) keyword(kw string) bool {
	t := p.peek()
	if t.kind == tIdent && strings.EqualFold(t.text, kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) isOp(o string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == o
}

func (p *parser) op(o string) bool {
	if p.isOp(o) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(o, what string) error {
	if !p.op(o) {
		t := p.peek()
		return p.errAt(t.pos, "expected %q %s, found %s", o, what, p.show(t))
	}
	return nil
}

func (p *parser) enter(pos int) error {
	p.depth++
	if p.depth > MaxDepth {
		return p.errAt(pos, "the clause nests deeper than %d levels", MaxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// orExpr := andExpr {OR andExpr}
func (p *parser) orExpr() (cql2.Expr, error) {
	var args []cql2.Expr
	for {
		e, err := p.andExpr()
		if err != nil {
			return nil, err
		}
		args = append(args, e)
		if !p.keyword("OR") {
			return logical("or", args), nil
		}
	}
}

// andExpr := notExpr {AND notExpr}
func (p *parser) andExpr() (cql2.Expr, error) {
	var args []cql2.Expr
	for {
		e, err := p.notExpr()
		if err != nil {
			return nil, err
		}
		args = append(args, e)
		if !p.keyword("AND") {
			return logical("and", args), nil
		}
	}
}

// logical joins args with op, folding constant arguments: true under
// AND and false under OR drop out, false under AND and true under OR
// decide (exact in SQL's three-valued logic).
func logical(op string, args []cql2.Expr) cql2.Expr {
	decides := op == "or" // the value that decides
	var kept []cql2.Expr
	for _, a := range args {
		if l, ok := a.(cql2.Literal); ok {
			if b, ok := l.Value.(bool); ok {
				if b == decides {
					return l
				}
				continue
			}
		}
		if in, ok := a.(cql2.Logical); ok && in.Op == op {
			kept = append(kept, in.Args...)
			continue
		}
		kept = append(kept, a)
	}
	switch len(kept) {
	case 0:
		return cql2.Literal{Value: !decides}
	case 1:
		return kept[0]
	}
	return cql2.Logical{Op: op, Args: kept}
}

// notExpr := NOT notExpr | '(' orExpr ')' | predicate
func (p *parser) notExpr() (cql2.Expr, error) {
	t := p.peek()
	if p.keyword("NOT") {
		if err := p.enter(t.pos); err != nil {
			return nil, err
		}
		defer p.leave()
		e, err := p.notExpr()
		if err != nil {
			return nil, err
		}
		return negate(e, true), nil
	}
	if p.op("(") {
		if err := p.enter(t.pos); err != nil {
			return nil, err
		}
		defer p.leave()
		e, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")", "to close the \"(\" at character "+strconv.Itoa(charPos(p.src, t.pos))); err != nil {
			return nil, err
		}
		return e, nil
	}
	return p.predicate()
}

func negate(e cql2.Expr, not bool) cql2.Expr {
	if !not {
		return e
	}
	if l, ok := e.(cql2.Literal); ok {
		if b, ok := l.Value.(bool); ok {
			return cql2.Literal{Value: !b}
		}
	}
	return cql2.Not{Arg: e}
}

var compareOps = map[string]string{"=": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

// predicate := value (compOp value | [NOT] BETWEEN value AND value |
// [NOT] IN '(' value {',' value} ')' | [NOT] LIKE value [ESCAPE string] |
// IS [NOT] NULL)
func (p *parser) predicate() (cql2.Expr, error) {
	left, err := p.value()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if op, ok := compareOps[t.text]; ok && t.kind == tOp {
		p.i++
		right, err := p.value()
		if err != nil {
			return nil, err
		}
		return p.compare(op, t.pos, left, right)
	}
	if p.keyword("IS") {
		not := p.keyword("NOT")
		if !p.keyword("NULL") {
			n := p.peek()
			return nil, p.errAt(n.pos, "expected NULL after IS%s, found %s", map[bool]string{true: " NOT"}[not], p.show(n))
		}
		return negate(fold(cql2.IsNull{Arg: left.expr()}), not), nil
	}
	not := p.keyword("NOT")
	switch kw := p.peek(); {
	case p.keyword("LIKE"):
		e, err := p.like(kw.pos, left)
		return negate(e, not), err
	case p.keyword("BETWEEN"):
		e, err := p.between(kw.pos, left)
		return negate(e, not), err
	case p.keyword("IN"):
		e, err := p.in(kw.pos, left)
		return negate(e, not), err
	}
	n := p.peek()
	if not {
		return nil, p.errAt(n.pos, "expected LIKE, BETWEEN or IN after NOT, found %s", p.show(n))
	}
	if left.kind == kNull {
		return nil, p.errAt(left.pos, "NULL is tested with IS NULL or IS NOT NULL")
	}
	return nil, p.errAt(n.pos, "expected a comparison (= <> != < <= > >=, LIKE, BETWEEN, IN or IS NULL) after %s, found %s", left.describe(), p.show(n))
}

// fold evaluates a predicate of literals only, which the type rules
// make true or false.
func fold(e cql2.Expr) cql2.Expr {
	if len(cql2.Properties(e)) > 0 {
		return e
	}
	return cql2.Literal{Value: cql2.Match(e, &cql2.Feature{})}
}

var reserved = map[string]string{
	"SELECT": "subqueries are", "FROM": "subqueries are", "WHERE": "subqueries are", "UNION": "subqueries are",
	"EXISTS": "subqueries are", "ANY": "subqueries are", "ALL": "subqueries are", "SOME": "subqueries are",
	"INSERT": "statements are", "UPDATE": "statements are", "DELETE": "statements are", "DROP": "statements are",
	"CREATE": "statements are", "ALTER": "statements are", "EXEC": "statements are", "EXECUTE": "statements are",
	"TRUNCATE": "statements are", "GRANT": "statements are", "CASE": "CASE expressions are",
	"INTERVAL": "intervals are",
}

// keywords may not stand for a field unquoted.
var keywords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "IN": true, "LIKE": true, "ESCAPE": true, "BETWEEN": true,
	"IS": true, "NULL": true,
}

// functions clients may send that cql2 cannot express, for a clear
// refusal.
var unsupportedFunctions = map[string]bool{
	"CHAR_LENGTH": true, "CHARACTER_LENGTH": true, "LEN": true, "LENGTH": true, "CONCAT": true,
	"POSITION": true, "SUBSTRING": true, "SUBSTR": true, "TRIM": true, "LTRIM": true, "RTRIM": true,
	"ABS": true, "CEILING": true, "CEIL": true, "FLOOR": true, "ROUND": true, "TRUNCATE": true, "MOD": true,
	"POWER": true, "SQRT": true, "LOG": true, "LOG10": true, "EXP": true, "SIGN": true, "CAST": true,
	"CONVERT": true, "EXTRACT": true, "COALESCE": true, "NULLIF": true, "CURRENT_USER": true,
	"COUNT": true, "SUM": true, "AVG": true, "MIN": true, "MAX": true,
}

// value := ['+'|'-'] number | string | DATE string | TIMESTAMP string |
// TRUE | FALSE | NULL | CURRENT_DATE | CURRENT_TIMESTAMP | field |
// UPPER '(' value ')' | LOWER '(' value ')'
func (p *parser) value() (operand, error) {
	t := p.next()
	switch t.kind {
	case tString:
		return operand{kind: kString, val: t.text, pos: t.pos}, nil
	case tNumber:
		return p.numberValue(t, "")
	case tQIdent:
		return p.field(t)
	case tOp:
		if t.text == "-" || t.text == "+" {
			n := p.next()
			if n.kind != tNumber {
				return operand{}, p.errAt(t.pos, "%q must come before a number: arithmetic is not supported", t.text)
			}
			return p.numberValue(n, t.text)
		}
		if t.text == "(" {
			return operand{}, p.errAt(t.pos, "expected a value, found \"(\" (a parenthesised value is not supported; parentheses group conditions)")
		}
	case tEOF:
		return operand{}, p.errAt(t.pos, "the clause ends where a value (a field, a number, a 'string' or a DATE) is expected")
	case tIdent:
		up := strings.ToUpper(t.text)
		call := p.isOp("(")
		switch {
		case (up == "DATE" || up == "TIMESTAMP") && p.peek().kind == tString:
			s := p.next()
			v, err := timeLiteral(s.text)
			if err != nil {
				return operand{}, p.errAt(s.pos, "%s %s: %v", up, clip(s.text), err)
			}
			return operand{kind: kDate, val: v, pos: t.pos}, nil
		case (up == "DATE" || up == "TIMESTAMP") && call:
			return operand{}, p.errAt(t.pos, "write %s 'YYYY-MM-DD%s' (a quoted literal after the word)", up, map[bool]string{true: " hh:mm:ss"}[up == "TIMESTAMP"])
		case up == "CURRENT_DATE" && !call:
			return operand{kind: kDate, val: p.now.Truncate(24 * time.Hour), pos: t.pos}, nil
		case up == "CURRENT_TIMESTAMP" && !call:
			return operand{kind: kDate, val: p.now, pos: t.pos}, nil
		case up == "TRUE" || up == "FALSE":
			return operand{kind: kBool, val: up == "TRUE", pos: t.pos}, nil
		case up == "NULL":
			return operand{kind: kNull, pos: t.pos}, nil
		case (up == "UPPER" || up == "LOWER") && call:
			return p.caseFunction(t, strings.ToLower(up))
		case reserved[up] != "":
			return operand{}, p.errAt(t.pos, "%s is a reserved word: %s not supported in a where clause", up, reserved[up])
		case keywords[up]:
			return operand{}, p.errAt(t.pos, "expected a value, found the word %s", up)
		case call && unsupportedFunctions[up]:
			return operand{}, p.errAt(t.pos, "the function %s is not supported (UPPER and LOWER are)", up)
		case call:
			return operand{}, p.errAt(t.pos, "unknown function %s (UPPER and LOWER are supported)", clip(t.text))
		}
		return p.field(t)
	}
	return operand{}, p.errAt(t.pos, "expected a value, found %s", p.show(t))
}

func (p *parser) numberValue(t token, sign string) (operand, error) {
	raw := sign + t.text
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return operand{}, p.errAt(t.pos, "the number %s is out of range", clip(raw))
	}
	if sign == "+" {
		raw = t.text
	}
	return operand{kind: kNumber, val: f, raw: raw, pos: t.pos}, nil
}

// field resolves a field name: the exact name, else the one field whose
// name matches ignoring case.
func (p *parser) field(t token) (operand, error) {
	name := t.text
	if ft, ok := p.fields[name]; ok {
		return operand{kind: kindOf(ft), field: name, ftype: ft, pos: t.pos}, nil
	}
	if p.lower == nil {
		p.lower = map[string][]string{}
		for n := range p.fields {
			k := strings.ToLower(n)
			p.lower[k] = append(p.lower[k], n)
		}
	}
	switch ns := p.lower[strings.ToLower(name)]; len(ns) {
	case 0:
		return operand{}, p.errAt(t.pos, "unknown field %s", clip(name))
	case 1:
		ft := p.fields[ns[0]]
		return operand{kind: kindOf(ft), field: ns[0], ftype: ft, pos: t.pos}, nil
	default:
		return operand{}, p.errAt(t.pos, "the field name %s matches several fields that differ only by case: quote the exact name", clip(name))
	}
}

// caseFunction reads the rest of UPPER(...) or LOWER(...): of a text
// field it marks the field, of a string literal it is the changed
// literal.
func (p *parser) caseFunction(t token, fn string) (operand, error) {
	if err := p.enter(t.pos); err != nil {
		return operand{}, err
	}
	defer p.leave()
	p.i++ // (
	arg, err := p.value()
	if err != nil {
		return operand{}, err
	}
	if err := p.expect(")", "to close "+strings.ToUpper(fn)+"(, which takes one value,"); err != nil {
		return operand{}, err
	}
	switch {
	case arg.kind == kNull:
		return arg, nil
	case arg.kind != kString:
		return operand{}, p.errAt(t.pos, "%s takes text, not %s", strings.ToUpper(fn), arg.describe())
	case arg.isField():
		arg.fn = fn // the outer function decides
		arg.pos = t.pos
		return arg, nil
	}
	arg.val = applyCase(fn, arg.val.(string))
	return arg, nil
}

func applyCase(fn, s string) string {
	if fn == "upper" {
		return strings.ToUpper(s)
	}
	return strings.ToLower(s)
}

// coerce brings a literal to kind k, as SQL's implicit casts do: a
// numeric string to a number, a number to its text as written, a date
// string to a date, 0 and 1 to booleans.
func (p *parser) coerce(lit operand, k kind, against operand) (operand, error) {
	if lit.kind == k {
		return lit, nil
	}
	fail := func(hint string) (operand, error) {
		return operand{}, p.errAt(lit.pos, "cannot compare %s with %s%s", against.describe(), lit.describe(), hint)
	}
	switch {
	case lit.kind == kNull:
		return operand{}, p.errAt(lit.pos, "NULL is tested with IS NULL or IS NOT NULL, not compared")
	case k == kNumber && lit.kind == kString:
		f, err := strconv.ParseFloat(strings.TrimSpace(lit.val.(string)), 64)
		if err != nil {
			return fail(": the string is not a number")
		}
		return operand{kind: kNumber, val: f, raw: lit.val.(string), pos: lit.pos}, nil
	case k == kString && lit.kind == kNumber:
		return operand{kind: kString, val: lit.raw, pos: lit.pos}, nil
	case k == kDate && lit.kind == kString:
		v, err := timeLiteral(lit.val.(string))
		if err != nil {
			return fail(": " + err.Error())
		}
		return operand{kind: kDate, val: v, pos: lit.pos}, nil
	case k == kDate:
		return fail(": write DATE 'YYYY-MM-DD' or TIMESTAMP 'YYYY-MM-DD hh:mm:ss'")
	case k == kBool && lit.kind == kNumber && (lit.val == 0.0 || lit.val == 1.0):
		return operand{kind: kBool, val: lit.val == 1.0, pos: lit.pos}, nil
	}
	return fail("")
}

// unify checks that operands can be compared and brings literals to the
// fields' kind (of the first field among them).
func (p *parser) unify(ops []operand) error {
	var f *operand
	for i := range ops {
		if ops[i].isField() {
			f = &ops[i]
			break
		}
	}
	if f == nil {
		// Literals only: the first one's kind.
		for i := range ops[1:] {
			if ops[i+1].kind == kNull || ops[0].kind == kNull {
				return p.errAt(ops[i+1].pos, "NULL is tested with IS NULL or IS NOT NULL, not compared")
			}
			if ops[i+1].kind != ops[0].kind {
				return p.errAt(ops[i+1].pos, "cannot compare %s with %s", ops[0].describe(), ops[i+1].describe())
			}
		}
		return nil
	}
	for i := range ops {
		o := &ops[i]
		if o.isField() {
			if o.kind != f.kind {
				return p.errAt(o.pos, "cannot compare %s with %s", f.describe(), o.describe())
			}
			continue
		}
		c, err := p.coerce(*o, f.kind, *f)
		if err != nil {
			return err
		}
		*o = c
	}
	return nil
}

// compare builds left op right.
func (p *parser) compare(op string, pos int, left, right operand) (cql2.Expr, error) {
	ops := []operand{left, right}
	if err := p.unify(ops); err != nil {
		return nil, err
	}
	left, right = ops[0], ops[1]
	if left.kind == kBool && op != "=" && op != "<>" {
		return nil, p.errAt(pos, "booleans are compared with = or <>, not %s", op)
	}
	if left.fn != "" || right.fn != "" {
		return p.caseCompare(op, pos, left, right)
	}
	return fold(cql2.Compare{Op: op, Left: left.expr(), Right: right.expr()}), nil
}

// caseCompare builds a comparison where UPPER or LOWER is over a field:
// = and <> with a literal or with the same function of another field.
// UPPER(f) = 'ABC' is CASEI(f) = CASEI('ABC'); UPPER(f) = 'abc', which
// no value meets, is CASEI(f) <> CASEI(f) (false, or unknown when f is
// null).
func (p *parser) caseCompare(op string, pos int, left, right operand) (cql2.Expr, error) {
	if op != "=" && op != "<>" {
		return nil, p.errAt(pos, "UPPER and LOWER of a field are compared with = or <> (or LIKE, IN), not %s", op)
	}
	f, other := left, right
	if f.fn == "" {
		f, other = right, left
	}
	switch {
	case other.isField() && other.fn != f.fn:
		return nil, p.errAt(other.pos, "compare %s with the same function of a field, or with a string, not with %s", f.describe(), other.describe())
	case other.isField():
		return cql2.Compare{Op: op, Left: left.expr(), Right: right.expr()}, nil
	}
	s := other.val.(string)
	if applyCase(f.fn, s) != s {
		return never(f, op == "<>"), nil
	}
	lit := cql2.CaseI{Arg: cql2.Literal{Value: s}}
	if f == left {
		return cql2.Compare{Op: op, Left: f.expr(), Right: lit}, nil
	}
	return cql2.Compare{Op: op, Left: lit, Right: f.expr()}, nil
}

// never is the predicate of a case function no literal can meet: false
// for every value of the field (true when negated) and unknown when it
// is null.
func never(f operand, negated bool) cql2.Expr {
	op := "<>"
	if negated {
		op = "="
	}
	return cql2.Compare{Op: op, Left: f.expr(), Right: f.expr()}
}

// between reads the rest of BETWEEN low AND high.
func (p *parser) between(pos int, arg operand) (cql2.Expr, error) {
	lo, err := p.value()
	if err != nil {
		return nil, err
	}
	if !p.keyword("AND") {
		n := p.peek()
		return nil, p.errAt(n.pos, "expected AND in BETWEEN, found %s", p.show(n))
	}
	hi, err := p.value()
	if err != nil {
		return nil, err
	}
	ops := []operand{arg, lo, hi}
	for _, o := range ops {
		if o.fn != "" {
			return nil, p.errAt(o.pos, "UPPER and LOWER of a field are compared with = or <> (or LIKE, IN), not BETWEEN")
		}
	}
	if err := p.unify(ops); err != nil {
		return nil, err
	}
	if ops[0].kind == kBool {
		return nil, p.errAt(pos, "BETWEEN takes numbers, text or dates, not booleans")
	}
	return fold(cql2.Between{Arg: ops[0].expr(), Low: ops[1].expr(), High: ops[2].expr()}), nil
}

// in reads the rest of IN (v, ...): a list of values.
func (p *parser) in(pos int, arg operand) (cql2.Expr, error) {
	if err := p.expect("(", "after IN"); err != nil {
		return nil, err
	}
	ops := []operand{arg}
	for {
		if len(ops) > MaxInItems {
			return nil, p.errAt(pos, "an IN list holds at most %d values", MaxInItems)
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if v.isField() {
			return nil, p.errAt(v.pos, "an IN list holds values, not fields")
		}
		ops = append(ops, v)
		if p.op(")") {
			break
		}
		if err := p.expect(",", "or \")\" in the IN list"); err != nil {
			return nil, err
		}
	}
	if arg.kind == kNull {
		return nil, p.errAt(arg.pos, "NULL is tested with IS NULL or IS NOT NULL")
	}
	if err := p.unify(ops); err != nil {
		return nil, err
	}
	arg = ops[0]
	var list []cql2.Expr
	for _, o := range ops[1:] {
		if arg.fn != "" {
			s := o.val.(string)
			if applyCase(arg.fn, s) != s {
				continue // no value of UPPER(f) is lower case
			}
			list = append(list, cql2.CaseI{Arg: cql2.Literal{Value: s}})
			continue
		}
		list = append(list, o.expr())
	}
	if len(list) == 0 {
		return never(arg, false), nil
	}
	return fold(cql2.In{Arg: arg.expr(), List: list}), nil
}

// like reads the rest of LIKE 'pattern' [ESCAPE 'c'].
func (p *parser) like(pos int, arg operand) (cql2.Expr, error) {
	pat, err := p.value()
	if err != nil {
		return nil, err
	}
	if arg.kind != kString {
		return nil, p.errAt(arg.pos, "LIKE takes text, not %s", arg.describe())
	}
	if pat.isField() || pat.kind != kString {
		return nil, p.errAt(pat.pos, "the pattern of LIKE is a 'string', not %s", pat.describe())
	}
	var esc rune = -1
	if p.keyword("ESCAPE") {
		e := p.next()
		if e.kind != tString || utf8.RuneCountInString(e.text) != 1 {
			return nil, p.errAt(e.pos, "ESCAPE takes one character in quotes, found %s", p.show(e))
		}
		esc, _ = utf8.DecodeRuneInString(e.text)
	}
	pattern, literal, err := likePattern(pat.val.(string), esc)
	if err != nil {
		return nil, p.errAt(pat.pos, "%v", err)
	}
	var pe cql2.Expr = cql2.Literal{Value: pattern}
	if arg.fn != "" {
		if applyCase(arg.fn, literal) != literal {
			return never(arg, false), nil
		}
		pe = cql2.CaseI{Arg: pe}
	}
	return fold(cql2.Like{Arg: arg.expr(), Pattern: pe}), nil
}

// likePattern turns a SQL LIKE pattern with escape character esc (-1 for
// none) into cql2's, where \ escapes; literal is the pattern's literal
// characters (for the case rule).
func likePattern(pat string, esc rune) (string, string, error) {
	var b, lit strings.Builder
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == esc:
			if i+1 >= len(rs) {
				return "", "", fmt.Errorf("the pattern ends with its escape character %q", esc)
			}
			i++
			n := rs[i]
			switch {
			case n == '%' || n == '_':
				b.WriteRune('\\')
				b.WriteRune(n)
			case n == esc:
				if n == '\\' {
					b.WriteRune('\\')
				}
				b.WriteRune(n)
			default:
				return "", "", fmt.Errorf("the escape character %q must come before %%, _ or itself, not %q", esc, n)
			}
			lit.WriteRune(n)
		case c == '%' || c == '_':
			b.WriteRune(c)
		case c == '\\':
			b.WriteString(`\\`)
			lit.WriteRune(c)
		default:
			b.WriteRune(c)
			lit.WriteRune(c)
		}
	}
	return b.String(), lit.String(), nil
}

// timeLayouts are the date and time forms DATE and TIMESTAMP take
// (ArcGIS's standardized queries write DATE 'YYYY-MM-DD' and TIMESTAMP
// 'YYYY-MM-DD hh:mm:ss'); a time without a zone is UTC.
var timeLayouts = []string{
	"2006-01-02",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05.999999999",
	time.RFC3339Nano,
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
}

func timeLiteral(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date: write 'YYYY-MM-DD' or 'YYYY-MM-DD hh:mm:ss'")
}
