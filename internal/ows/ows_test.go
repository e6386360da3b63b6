package ows

import (
	"encoding/xml"
	"strings"
	"testing"
)

// A report is well-formed XML whatever the caller sent, names the
// parameter at fault only when there is one, and carries the text as
// sent.
func TestWriteReport(t *testing.T) {
	for _, e := range []*Exception{Invalid("filter", "bad <%s> & \"%s\"", "x", "y"), {Code: CodeNoApplicableCode, Text: "Internal error."}} {
		var b strings.Builder
		if err := WriteReport(&b, NS20, "2.0.0", e); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			XMLName   xml.Name
			Version   string `xml:"version,attr"`
			Exception struct {
				Code    string `xml:"exceptionCode,attr"`
				Locator string `xml:"locator,attr"`
				Text    string `xml:"ExceptionText"`
			} `xml:"Exception"`
		}
		if err := xml.Unmarshal([]byte(b.String()), &doc); err != nil {
			t.Fatalf("%v in %s", err, b.String())
		}
		x := doc.Exception
		if doc.XMLName.Space != NS20 || doc.Version != "2.0.0" || x.Code != e.Code || x.Locator != e.Locator || x.Text != e.Text {
			t.Errorf("read back %+v from %s", doc, b.String())
		}
		if e.Locator == "" && strings.Contains(b.String(), "locator=") {
			t.Errorf("an empty locator is written: %s", b.String())
		}
	}
	if got := Clip(strings.Repeat("é", 70)); len([]rune(got)) != 61 {
		t.Errorf("Clip kept %d runes", len([]rune(got)))
	}
}
