package esriwhere_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/cql2"
	"github.com/geopub/geopub/internal/esriwhere"
)

// fields is a layer as the FeatureServer door describes it.
var fields = map[string]esriwhere.FieldType{
	"OBJECTID": esriwhere.ObjectID,
	"NAME":     esriwhere.String,
	"Owner":    esriwhere.String,
	"pop":      esriwhere.Integer,
	"area_km2": esriwhere.Float,
	"founded":  esriwhere.Date,
	"open":     esriwhere.Boolean,
	"date":     esriwhere.Date,
	"Zone Id":  esriwhere.String,
}

// show prints a tree compactly for the tables below.
func show(e cql2.Expr) string {
	switch e := e.(type) {
	case nil:
		return "nil"
	case cql2.Logical:
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			parts[i] = show(a)
		}
		return "(" + strings.Join(parts, " "+strings.ToUpper(e.Op)+" ") + ")"
	case cql2.Not:
		return "NOT " + show(e.Arg)
	case cql2.Compare:
		return show(e.Left) + " " + e.Op + " " + show(e.Right)
	case cql2.Like:
		return show(e.Arg) + " LIKE " + show(e.Pattern)
	case cql2.Between:
		return show(e.Arg) + " BETWEEN " + show(e.Low) + " AND " + show(e.High)
	case cql2.In:
		parts := make([]string, len(e.List))
		for i, a := range e.List {
			parts[i] = show(a)
		}
		return show(e.Arg) + " IN (" + strings.Join(parts, ",") + ")"
	case cql2.IsNull:
		return show(e.Arg) + " IS NULL"
	case cql2.CaseI:
		return "CASEI(" + show(e.Arg) + ")"
	case cql2.Property:
		return e.Name
	case cql2.Literal:
		switch v := e.Value.(type) {
		case string:
			return fmt.Sprintf("%q", v)
		case time.Time:
			return "T" + v.Format(time.RFC3339Nano)
		case nil:
			return "NULL"
		}
		return fmt.Sprint(e.Value)
	}
	return fmt.Sprintf("?%T", e)
}

// What clients send, and the tree it becomes.
func TestParse(t *testing.T) {
	for _, tc := range []struct{ where, want string }{
		{"", "nil"},
		{"   ", "nil"},
		{"1=1", "nil"},
		{"1 = 1 AND 2=2", "nil"},
		{"(1=1)", "nil"},
		{"1=0", "false"},
		{"1=1 AND OBJECTID > 5", "OBJECTID > 5"},
		{"1=0 OR OBJECTID > 5", "OBJECTID > 5"},
		{"1=0 AND OBJECTID > 5", "false"},
		{"1=1 OR OBJECTID > 5", "nil"},
		{"NOT 1=0", "nil"},
		{"'a' = 'a'", "nil"},
		{"'a' LIKE 'b%'", "false"},
		{"3 BETWEEN 1 AND 5", "nil"},
		{"2 IN (1, 3)", "false"},
		{"NULL IS NULL", "nil"},
		{"'x' IS NULL", "false"},
		{"OBJECTID > 5", "OBJECTID > 5"},
		{"objectid>=5", "OBJECTID >= 5"},
		{"OBJECTID IN (1,2,3)", "OBJECTID IN (1,2,3)"},
		{"OBJECTID NOT IN (1, 2)", "NOT OBJECTID IN (1,2)"},
		{"NAME = 'O''Brien'", `NAME = "O'Brien"`},
		{"name = N'Ōtaki'", `NAME = "Ōtaki"`},
		{"NAME <> 'a'", `NAME <> "a"`},
		{"NAME != 'a'", `NAME <> "a"`},
		{"NAME LIKE 'A%'", `NAME LIKE "A%"`},
		{"NAME NOT LIKE 'A_b'", `NOT NAME LIKE "A_b"`},
		{`NAME LIKE 'a\b%'`, `NAME LIKE "a\\\\b%"`},
		{`NAME LIKE '100!%%' ESCAPE '!'`, `NAME LIKE "100\\%%"`},
		{`NAME LIKE 'a!_!!' ESCAPE '!'`, `NAME LIKE "a\\_!"`},
		{`NAME LIKE 'a\%' ESCAPE '\'`, `NAME LIKE "a\\%"`},
		{`NAME LIKE 'a\\' ESCAPE '\'`, `NAME LIKE "a\\\\"`},
		{"UPPER(NAME) LIKE 'A%'", `CASEI(NAME) LIKE CASEI("A%")`},
		{"upper(NAME) LIKE '%WELL%'", `CASEI(NAME) LIKE CASEI("%WELL%")`},
		{"LOWER(NAME) LIKE '%well%'", `CASEI(NAME) LIKE CASEI("%well%")`},
		{"UPPER(NAME) = UPPER('wellington')", `CASEI(NAME) = CASEI("WELLINGTON")`},
		{"'WELLINGTON' = UPPER(NAME)", `CASEI("WELLINGTON") = CASEI(NAME)`},
		{"UPPER(NAME) = UPPER(Owner)", `CASEI(NAME) = CASEI(Owner)`},
		{"UPPER(NAME) = 'wellington'", `CASEI(NAME) <> CASEI(NAME)`},
		{"UPPER(NAME) <> 'wellington'", `CASEI(NAME) = CASEI(NAME)`},
		{"UPPER(NAME) LIKE 'a%'", `CASEI(NAME) <> CASEI(NAME)`},
		{"UPPER(NAME) IN ('A', 'b', 'C')", `CASEI(NAME) IN (CASEI("A"),CASEI("C"))`},
		{"UPPER(NAME) IN ('a')", `CASEI(NAME) <> CASEI(NAME)`},
		{"UPPER(LOWER(NAME)) = 'A'", `CASEI(NAME) = CASEI("A")`},
		{"UPPER(NAME) IS NULL", `CASEI(NAME) IS NULL`},
		{"NOT NAME = 'a'", `NOT NAME = "a"`},
		{"NOT (NAME = 'a' OR pop < 3)", `NOT (NAME = "a" OR pop < 3)`},
		{"NAME = 'a' AND (pop < 3 OR pop > 10)", `(NAME = "a" AND (pop < 3 OR pop > 10))`},
		{"NAME = 'a' OR pop < 3 AND pop > 1", `(NAME = "a" OR (pop < 3 AND pop > 1))`},
		{"(pop = 1 AND pop = 2) AND pop = 3", `(pop = 1 AND pop = 2 AND pop = 3)`},
		{"pop BETWEEN 10 AND 20", "pop BETWEEN 10 AND 20"},
		{"pop NOT BETWEEN -1.5 AND 2e3", "NOT pop BETWEEN -1.5 AND 2000"},
		{"pop BETWEEN 1 AND 2 AND NAME = 'x'", `(pop BETWEEN 1 AND 2 AND NAME = "x")`},
		{"NAME IS NULL", "NAME IS NULL"},
		{"NAME IS NOT NULL", "NOT NAME IS NULL"},
		{"area_km2 > -0.5", "area_km2 > -0.5"},
		{"area_km2 < .25", "area_km2 < 0.25"},
		{"area_km2 < +1E-3", "area_km2 < 0.001"},
		{"5 < pop", "5 < pop"},
		{"pop = '7'", "pop = 7"},
		{"NAME = 42", `NAME = "42"`},
		{"NAME = 007", `NAME = "007"`},
		{"NAME IN (1, '2')", `NAME IN ("1","2")`},
		{"pop < area_km2", "pop < area_km2"},
		{"OBJECTID = pop", "OBJECTID = pop"},
		{"open = TRUE", "open = true"},
		{"open = 0", "open = false"},
		{"open <> 1", "open <> true"},
		{`"Zone Id" = 'Z1'`, `Zone Id = "Z1"`},
		{`"zone id" = 'Z1'`, `Zone Id = "Z1"`},
		{"founded > DATE '2020-01-01'", "founded > T2020-01-01T00:00:00Z"},
		{"founded > date '2020-01-01'", "founded > T2020-01-01T00:00:00Z"},
		{"founded >= TIMESTAMP '2020-01-01 12:30:00'", "founded >= T2020-01-01T12:30:00Z"},
		{"founded >= timestamp '2020-01-01 12:30:00.250'", "founded >= T2020-01-01T12:30:00.25Z"},
		{"founded < '2020-02-01'", "founded < T2020-02-01T00:00:00Z"},
		{"founded < '2020-02-01T10:00:00+02:00'", "founded < T2020-02-01T08:00:00Z"},
		{"founded BETWEEN DATE '2020-01-01' AND '2020-12-31 23:59:59'", "founded BETWEEN T2020-01-01T00:00:00Z AND T2020-12-31T23:59:59Z"},
		{"date = DATE '2021-03-04'", "date = T2021-03-04T00:00:00Z"},
		{"DATE IS NULL", "date IS NULL"},
		{"  OBJECTID\t>\n5  ", "OBJECTID > 5"},
	} {
		e, err := esriwhere.Parse(tc.where, fields)
		if err != nil {
			t.Errorf("%s: %v", tc.where, err)
			continue
		}
		if got := show(e); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.where, got, tc.want)
		}
	}
}

// The exact spelling of a field wins over one differing by case; two
// that differ only by case need quoting.
func TestFieldNames(t *testing.T) {
	fs := map[string]esriwhere.FieldType{"name": esriwhere.String, "NAME": esriwhere.String}
	e, err := esriwhere.Parse("NAME = 'a' AND name = 'b'", fs)
	if err != nil || show(e) != `(NAME = "a" AND name = "b")` {
		t.Fatalf("exact names: %s, %v", show(e), err)
	}
	_, err = esriwhere.Parse("Name = 'a'", fs)
	if err == nil || !strings.Contains(err.Error(), "differ only by case") {
		t.Fatalf("ambiguous name: %v", err)
	}
	e, err = esriwhere.Parse("CURRENT_DATE > founded AND founded < CURRENT_TIMESTAMP", fields)
	if err != nil {
		t.Fatal(err)
	}
	if got := show(e); !strings.HasPrefix(got, "(T"+time.Now().UTC().Format("2006-01-02")) {
		t.Errorf("CURRENT_DATE: %s", got)
	}
}

func TestFieldsOf(t *testing.T) {
	got := esriwhere.FieldsOf([]schematype.Field{{Name: "geom", Type: "geometry"}, {Name: "name", Type: "string"},
		{Name: "n", Type: "integer"}, {Name: "OBJECTID", Type: "string"}}, "OBJECTID")
	want := map[string]esriwhere.FieldType{"name": esriwhere.String, "n": esriwhere.Integer, "OBJECTID": esriwhere.ObjectID}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("FieldsOf: %v, want %v", got, want)
	}
}

func TestTypeOf(t *testing.T) {
	for in, want := range map[string]esriwhere.FieldType{
		"integer": esriwhere.Integer, "double": esriwhere.Float, "boolean": esriwhere.Boolean,
		"date": esriwhere.Date, "datetime": esriwhere.Date, "time": esriwhere.String, "string": esriwhere.String,
	} {
		if got := esriwhere.TypeOf(in); got != want {
			t.Errorf("TypeOf(%q) = %v, want %v", in, got, want)
		}
	}
}

// Refusals name the position and what was expected.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		where string
		pos   int
		msg   string
	}{
		{"FOO = 1", 1, `unknown field "FOO"`},
		{"OBJECTID > 5 AND Missing IS NULL", 18, `unknown field "Missing"`},
		{"OBJECTID >", 11, "the clause ends where a value"},
		{"OBJECTID", 9, "expected a comparison"},
		{"OBJECTID 5", 10, "expected a comparison"},
		{"OBJECTID = 5 6", 14, "after the end of the expression"},
		{"(OBJECTID = 5", 14, `expected ")" to close the "(" at character 1`},
		{"OBJECTID = 5)", 13, "after the end of the expression"},
		{"NAME = 'abc", 8, "not closed"},
		{`"NAME = 1`, 1, "not closed"},
		{`"" = 1`, 1, "empty quoted"},
		{"OBJECTID = 5; DROP TABLE features", 13, `";" is refused`},
		{"OBJECTID = 5 -- x", 14, "comments"},
		{"OBJECTID = 5 /* x */", 14, "comments"},
		{"OBJECTID = 5 * 2", 14, "arithmetic"},
		{"NAME || 'a' = 'b'", 6, "concatenation"},
		{"OBJECTID = -pop", 12, "arithmetic is not supported"},
		{"[NAME] = 'a'", 1, "bracketed"},
		{"founded = #2020-01-01#", 11, "#...# dates"},
		{"OBJECTID IN (SELECT 1)", 14, "SELECT is a reserved word: subqueries"},
		{"EXISTS (1)", 1, "subqueries"},
		{"CHAR_LENGTH(NAME) > 3", 1, "CHAR_LENGTH is not supported"},
		{"SUBSTRING(NAME, 1, 2) = 'ab'", 1, "SUBSTRING is not supported"},
		{"CAST(pop AS VARCHAR(10)) LIKE '1%'", 1, "CAST is not supported"},
		{"FROB(NAME) = 1", 1, `unknown function "FROB"`},
		{"UPPER(NAME, 1) = 'A'", 11, `expected ")" to close UPPER(`},
		{"UPPER(pop) = 'A'", 1, "UPPER takes text, not the integer field"},
		{"UPPER(NAME) > 'A'", 13, "compared with = or <>"},
		{"UPPER(NAME) BETWEEN 'A' AND 'B'", 1, "not BETWEEN"},
		{"UPPER(NAME) = Owner", 15, "same function"},
		{"UPPER(NAME) = LOWER(Owner)", 15, "same function"},
		{"pop = 'abc'", 7, "the string is not a number"},
		{"pop = TRUE", 7, "cannot compare"},
		{"founded = 5", 11, "write DATE"},
		{"founded = 'yesterday'", 11, "not a date"},
		{"founded = DATE '2020-13-01'", 16, "not a date"},
		{"founded = DATE('2020-01-01')", 11, "write DATE 'YYYY-MM-DD'"},
		{"open = 2", 8, "cannot compare"},
		{"open > TRUE", 6, "booleans are compared with = or <>"},
		{"open BETWEEN 0 AND 1", 6, "BETWEEN takes"},
		{"NAME = pop", 8, "cannot compare"},
		{"1 = '1'", 5, "cannot compare"},
		{"NAME = NULL", 8, "IS NULL"},
		{"NAME <> NULL", 9, "IS NULL"},
		{"NAME IS 5", 9, "expected NULL after IS"},
		{"NAME IS NOT 5", 13, "expected NULL after IS NOT"},
		{"NAME NOT = 'a'", 10, "expected LIKE, BETWEEN or IN after NOT"},
		{"pop LIKE '1%'", 1, "LIKE takes text"},
		{"NAME LIKE Owner", 11, "pattern of LIKE"},
		{"NAME LIKE 'a' ESCAPE 'ab'", 22, "ESCAPE takes one character"},
		{"NAME LIKE 'a!' ESCAPE '!'", 11, "ends with its escape character"},
		{"NAME LIKE 'a!b' ESCAPE '!'", 11, "must come before"},
		{"pop BETWEEN 1 5", 15, "expected AND in BETWEEN"},
		{"pop IN 1", 8, `expected "(" after IN`},
		{"pop IN (1 2)", 11, `expected "," or ")"`},
		{"pop IN ()", 9, "expected a value"},
		{"pop IN (pop)", 9, "holds values, not fields"},
		{"pop = 1e999", 7, "out of range"},
		{"pop = 1e", 7, "malformed number"},
		{"pop = 12abc", 7, "malformed number"},
		{"pop = 1.2.3", 7, "malformed number"},
		{"pop == 1", 5, "=="},
		{"pop ! 1", 5, `unexpected "!"`},
		{"pop = (1)", 7, "parenthesised value"},
		{"AND = 1", 1, "found the word AND"},
		{"NAME = 'a' AND", 15, "the clause ends"},
		{"NAME = 'a' OR OR", 15, "found the word OR"},
		{"NOT", 4, "the clause ends"},
		{"()", 2, "expected a value"},
		{"é = 'a' AND x ＝ 1", 15, "unexpected character"},
		{"pop\u00a0= 1", 4, "unexpected character"},
		{"NAME = 'a\x00'", 10, "NUL"},
		{"NAME = '\xff'", 0, "not valid UTF-8"},
	} {
		_, err := esriwhere.Parse(tc.where, fields)
		var we *esriwhere.Error
		if !errors.As(err, &we) {
			t.Errorf("%q: %v (%T), want an *Error", tc.where, err, err)
			continue
		}
		if we.Pos != tc.pos || !strings.Contains(we.Msg, tc.msg) {
			t.Errorf("%q: %v (position %d), want position %d and %q", tc.where, err, we.Pos, tc.pos, tc.msg)
		}
	}
}
