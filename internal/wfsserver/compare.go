package wfsserver

// CompareValues orders two attribute values as SORTBY does: false before
// true, numbers by value, strings by code point, values of different
// kinds by kind, null after every value. The data table sorts by it too,
// so that both services give one order.
func CompareValues(a, b any) int { return compareValues(a, b) }
