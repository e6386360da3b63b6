package geoservices

import "testing"

func TestParseServiceName(t *testing.T) {
	for s, want := range map[string]bool{
		"layer_12": true, "set_3": true, "layer_0": false, "layer_012": false, "layer_-1": false,
		"layer_": false, "table_1": false, "layer12": false, "layer_1x": false, "set_99999999999999999999": false,
	} {
		n, ok := ParseServiceName(s)
		if ok != want {
			t.Errorf("%q: ok=%v, want %v", s, ok, want)
		}
		if ok && n.String() != s {
			t.Errorf("%q round trip gave %q", s, n.String())
		}
	}
}

func TestErrorDocument(t *testing.T) {
	e := &Error{Code: CodeInvalidToken, Message: "Invalid token."}
	if got := string(e.JSON()); got != `{"error":{"code":498,"message":"Invalid token.","details":[]}}` {
		t.Fatal(got)
	}
	if e.Status() != 401 {
		t.Fatal(e.Status())
	}
}
