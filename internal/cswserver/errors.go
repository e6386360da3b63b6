package cswserver

import (
	"bytes"
	"fmt"
	"net/http"
)

// OWS exception codes.
const (
	CodeMissingParameter      = "MissingParameterValue"
	CodeInvalidParameter      = "InvalidParameterValue"
	CodeOperationNotSupported = "OperationNotSupported"
	CodeNoApplicableCode      = "NoApplicableCode"
	CodeVersionNegotiation    = "VersionNegotiationFailed"
	CodeNotFound              = "NotFound"
)

// Exception is a request the service refuses, answered as an
// ows:ExceptionReport with Status.
type Exception struct {
	Status  int
	Code    string
	Locator string
	Text    string
}

func (e *Exception) Error() string { return e.Code + ": " + e.Text }

func missing(param string) *Exception {
	return &Exception{Status: http.StatusBadRequest, Code: CodeMissingParameter, Locator: param,
		Text: "the " + param + " parameter is required"}
}

func invalid(param, format string, args ...any) *Exception {
	return &Exception{Status: http.StatusBadRequest, Code: CodeInvalidParameter, Locator: param,
		Text: fmt.Sprintf(format, args...)}
}

// ExceptionType is the media type of exception reports and answers.
const ExceptionType = "application/xml; charset=utf-8"

// ExceptionReport is e as a document of CSW version (3.0: OWS 2.0; 2.0.2:
// OWS 1.0).
func ExceptionReport(version string, e *Exception) []byte {
	ns, v := "http://www.opengis.net/ows", "1.2.0"
	if version == V3 {
		ns, v = "http://www.opengis.net/ows/2.0", "2.0.0"
	}
	x := &xw{}
	x.decl()
	x.open("ows:ExceptionReport", "xmlns:ows", ns, "version", v, "xml:lang", "en")
	attrs := []string{"exceptionCode", e.Code}
	if e.Locator != "" {
		attrs = append(attrs, "locator", e.Locator)
	}
	x.open("ows:Exception", attrs...)
	x.elem("ows:ExceptionText", e.Text)
	x.close("ows:Exception")
	x.close("ows:ExceptionReport")
	return x.b.Bytes()
}

// clip shortens what a caller sent for a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// xw writes XML into a buffer (answers are one page of records).
type xw struct{ b bytes.Buffer }

func (x *xw) decl() { x.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n") }

func (x *xw) text(s string) { _ = xmlEscape(&x.b, s) }

func (x *xw) start(name string, empty bool, attrs []string) {
	x.b.WriteString("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		x.b.WriteString(" " + attrs[i] + `="`)
		x.text(attrs[i+1])
		x.b.WriteString(`"`)
	}
	if empty {
		x.b.WriteString("/>")
	} else {
		x.b.WriteString(">")
	}
}

func (x *xw) open(name string, attrs ...string)  { x.start(name, false, attrs) }
func (x *xw) empty(name string, attrs ...string) { x.start(name, true, attrs) }
func (x *xw) close(name string)                  { x.b.WriteString("</" + name + ">") }

func (x *xw) elem(name, text string, attrs ...string) {
	x.start(name, false, attrs)
	x.text(text)
	x.close(name)
}
