package cswserver

import (
	"bytes"

	"github.com/geopub/geopub/internal/ows"
)

// OWS exception codes.
const (
	CodeMissingParameter      = ows.CodeMissingParameter
	CodeInvalidParameter      = ows.CodeInvalidParameter
	CodeOperationNotSupported = ows.CodeOperationNotSupported
	CodeNoApplicableCode      = ows.CodeNoApplicableCode
	CodeVersionNegotiation    = ows.CodeVersionNegotiation
	CodeNotFound              = ows.CodeNotFound
)

// Exception is a request the service refuses (internal/ows).
type Exception = ows.Exception

func missing(param string) *Exception { return ows.Missing(param) }

func invalid(param, format string, args ...any) *Exception {
	return ows.Invalid(param, format, args...)
}

// ExceptionType is the media type of exception reports and answers.
const ExceptionType = "application/xml; charset=utf-8"

// ExceptionReport is e as a document of CSW version (3.0: OWS 2.0; 2.0.2:
// OWS 1.0).
func ExceptionReport(version string, e *Exception) []byte {
	var b bytes.Buffer
	if version == V3 {
		_ = ows.WriteReport(&b, ows.NS20, "2.0.0", e)
	} else {
		_ = ows.WriteReport(&b, ows.NS10, "1.2.0", e)
	}
	return b.Bytes()
}

// clip shortens what a caller sent for a message.
func clip(s string) string { return ows.Clip(s) }

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
