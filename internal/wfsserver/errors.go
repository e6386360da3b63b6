package wfsserver

import (
	"fmt"
	"io"
	"net/http"
)

// Exception codes of OWS Common 1.1 and WFS 2.0.
const (
	CodeMissingParameter      = "MissingParameterValue"
	CodeInvalidParameter      = "InvalidParameterValue"
	CodeOperationNotSupported = "OperationNotSupported"
	CodeNotFound              = "NotFound"
	CodeNoApplicableCode      = "NoApplicableCode"
	// CodeOperationProcessingFailed (WFS 2.0 Table 3) answers a request
	// the service stopped or could not start: busy, or out of time.
	CodeOperationProcessingFailed = "OperationProcessingFailed"
)

// Exception is a request the service refuses: an OWS ExceptionReport
// with Code, Locator (the parameter at fault) and Text, sent with Status.
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

// notFound answers a type name there is none of, or that the caller may
// not read: callers cannot tell which (as in OGC API Features, 404).
func notFound(param, name string) *Exception {
	return &Exception{Status: http.StatusNotFound, Code: CodeNotFound, Locator: param,
		Text: "there is no feature type " + clip(name) + " you may read"}
}

// ExceptionType is the media type of exception reports.
const ExceptionType = "application/xml"

// WriteException writes e as an ExceptionReport of WFS version (2.x: OWS
// 1.1 with version 2.0.0; 1.x: OWS 1.0 with version 1.1.0).
func WriteException(w io.Writer, version string, e *Exception) error {
	ns, v := "http://www.opengis.net/ows/1.1", "2.0.0"
	if !isV2(version) {
		ns, v = "http://www.opengis.net/ows", "1.1.0"
	}
	x := newXW(w)
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.open("ows:ExceptionReport", "xmlns:ows", ns, "version", v, "xml:lang", "en")
	attrs := []string{"exceptionCode", e.Code}
	if e.Locator != "" {
		attrs = append(attrs, "locator", e.Locator)
	}
	x.open("ows:Exception", attrs...)
	x.elem("ows:ExceptionText", e.Text)
	x.close("ows:Exception")
	x.close("ows:ExceptionReport")
	return x.flush()
}

// clip shortens what a caller sent for a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
