// Package ows holds what the OGC web services built on OWS Common share:
// the exception codes, the refusal every operation answers with (an
// ows:ExceptionReport sent with an HTTP status), its XML form in each OWS
// version, and the shortening of what a caller sent for a message. The
// WFS (internal/wfsserver) and CSW (internal/cswserver) rules use it.
package ows

import (
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Exception codes of OWS Common and of the services' own tables.
const (
	CodeMissingParameter      = "MissingParameterValue"
	CodeInvalidParameter      = "InvalidParameterValue"
	CodeOperationNotSupported = "OperationNotSupported"
	CodeVersionNegotiation    = "VersionNegotiationFailed"
	CodeNotFound              = "NotFound"
	CodeNoApplicableCode      = "NoApplicableCode"
	// CodeOperationProcessingFailed (WFS 2.0 Table 3) answers a request
	// the service stopped or could not start: busy, or out of time.
	CodeOperationProcessingFailed = "OperationProcessingFailed"
)

// Exception is a request the service refuses: an ExceptionReport with
// Code, Locator (the parameter at fault) and Text, sent with Status.
type Exception struct {
	Status  int
	Code    string
	Locator string
	Text    string
}

func (e *Exception) Error() string { return e.Code + ": " + e.Text }

// Missing is the refusal of a request without a required parameter.
func Missing(param string) *Exception {
	return &Exception{Status: http.StatusBadRequest, Code: CodeMissingParameter, Locator: param,
		Text: "the " + param + " parameter is required"}
}

// Invalid is the refusal of a parameter's value, the message formatted.
func Invalid(param, format string, args ...any) *Exception {
	return &Exception{Status: http.StatusBadRequest, Code: CodeInvalidParameter, Locator: param,
		Text: fmt.Sprintf(format, args...)}
}

// ExceptionType is the media type of exception reports.
const ExceptionType = "application/xml; charset=utf-8"

// The namespaces of OWS Common's versions.
const (
	NS10 = "http://www.opengis.net/ows"
	NS11 = "http://www.opengis.net/ows/1.1"
	NS20 = "http://www.opengis.net/ows/2.0"
)

// WriteReport writes e as an ows:ExceptionReport in namespace ns (the
// OWS Common version the service's version builds on), its version
// attribute version.
func WriteReport(w io.Writer, ns, version string, e *Exception) error {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<ows:ExceptionReport xmlns:ows="` + escape(ns) + `" version="` + escape(version) + `" xml:lang="en">`)
	b.WriteString(`<ows:Exception exceptionCode="` + escape(e.Code) + `"`)
	if e.Locator != "" {
		b.WriteString(` locator="` + escape(e.Locator) + `"`)
	}
	b.WriteString(`><ows:ExceptionText>` + escape(e.Text) + `</ows:ExceptionText></ows:Exception></ows:ExceptionReport>`)
	_, err := io.WriteString(w, b.String())
	return err
}

func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// Clip shortens what a caller sent for a message.
func Clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
