// Package esriwhere parses the where clauses GeoServices REST clients
// send to a FeatureServer's query (ArcGIS Pro, arcgis-rest-js, Esri
// Leaflet, GDAL's ESRIJSON driver, QGIS): the SQL-92 subset of ArcGIS's
// standardized queries, read into the CQL2 expression tree of
// internal/cql2 and never concatenated into SQL. The FeatureServer door
// passes the tree as ogcfeatures.Filter.Expr; cql2.Match evaluates it.
//
// # Grammar
//
// Words are matched in any case; field names match the layer's fields
// ignoring case (the exact spelling wins when two differ only by case)
// and come back in the layer's spelling.
//
//	clause    = [ or ]                        (empty: every feature)
//	or        = and { OR and }
//	and       = not { AND not }
//	not       = NOT not | "(" or ")" | predicate
//	predicate = value op value                 op: = <> != < <= > >=
//	          | value [NOT] BETWEEN value AND value
//	          | value [NOT] IN "(" value { "," value } ")"
//	          | value [NOT] LIKE value [ESCAPE 'c']
//	          | value IS [NOT] NULL
//	value     = field | "field name" | ['+'|'-'] number | 'text' | N'text'
//	          | DATE 'YYYY-MM-DD' | TIMESTAMP 'YYYY-MM-DD hh:mm:ss[.fff]'
//	          | CURRENT_DATE | CURRENT_TIMESTAMP | TRUE | FALSE | NULL
//	          | UPPER "(" value ")" | LOWER "(" value ")"
//
// Numbers are decimal, with an optional fraction and exponent (12, -3.5,
// .5, 1e-3). A quote inside a string is doubled:
//
//	NAME = 'O''Brien'
//
// DATE and TIMESTAMP (also lowercase) take either form, a "T" between day
// and time, or an RFC 3339 zone; a time without a zone is UTC, and DATE
// 'YYYY-MM-DD' is midnight UTC of that day, compared as an instant as SQL
// does (a date-time field = DATE '2020-01-01' holds only at midnight).
//
// # Types
//
// Fields have a FieldType: String, Integer, Float, Date, Boolean or
// ObjectID (a number). Comparisons, BETWEEN and IN need one kind on every
// side; literals are brought to a field's kind as SQL's implicit casts
// do: '5' to a number field, 5 to a text field (as written), '2020-01-01'
// to a date field, 0 and 1 to a boolean one; anything else is refused.
// Booleans take = and <> only. LIKE takes a text value and a 'pattern'
// (% any run, _ one character; without ESCAPE no character escapes,
// with ESCAPE 'c' the character c makes the next %, _ or c literal).
// Two fields may be compared with each other (OBJECTID < OTHER); two
// date fields then compare their stored text, which orders as time only
// when both are written alike (dates, or RFC 3339 in UTC).
// Predicates of literals alone are worked out at once: "1=1" (alone, or
// every part true) gives nil, "1=0" cql2.Literal{Value: false}, and AND
// and OR drop or are decided by constant parts.
//
// UPPER and LOWER of a text field become CQL2's CASEI (Unicode case
// folding) and may be compared with =, <>, LIKE and IN against a string
// (or the same function of another field): UPPER(NAME) LIKE 'A%' is
// CASEI(NAME) LIKE CASEI('A%'). A string that the function could never
// give (UPPER(NAME) = 'abc') matches no feature, as in SQL. Ordering
// comparisons and BETWEEN of UPPER or LOWER are refused, since CASEI
// folds to lower case and would order some punctuation differently.
// Of a string literal they change the literal.
//
// Nulls follow SQL's three-valued logic: a comparison with a null field
// is unknown and keeps no feature, NOT of unknown is unknown. NULL is
// written only in IS [NOT] NULL.
//
// # The feature id
//
// cql2 evaluates a feature's properties only; the feature id (ogcfeatures'
// fid) is not among them. A field of type ObjectID comes back as
// cql2.Property{Name: its name} like any other: the door must give each
// feature that property (the fid as a float64) before matching, or
// rewrite the predicates on it. FieldsOf builds the fields map from a
// version's fields and the name of the ObjectID field.
//
// # Refused
//
// Every refusal is an *Error naming a character position and what was
// expected, for a 400: unknown fields; ";" (stacked statements); "--"
// and "/* */" comments; reserved words (SELECT, UNION, EXISTS, INSERT,
// DROP, CASE, INTERVAL, ...); functions other than UPPER and LOWER
// (CHAR_LENGTH, SUBSTRING, CAST, EXTRACT, ... cannot be written in cql2
// and are named in the message); arithmetic and ||; [bracketed] names
// and #dates#; unterminated strings and quoted names; tokens after the
// expression; NUL characters and invalid UTF-8. Limits: MaxLength (64
// KiB), MaxTokens (10,000), MaxDepth (64 levels of parentheses, NOT and
// UPPER/LOWER) and MaxInItems (1,000 values in one IN list).
package esriwhere
