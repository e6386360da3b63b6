package wfsserver

import (
	"io"
	"net/http"

	"github.com/geopub/geopub/internal/ows"
)

// Exception codes of OWS Common 1.1 and WFS 2.0.
const (
	CodeMissingParameter          = ows.CodeMissingParameter
	CodeInvalidParameter          = ows.CodeInvalidParameter
	CodeOperationNotSupported     = ows.CodeOperationNotSupported
	CodeNotFound                  = ows.CodeNotFound
	CodeNoApplicableCode          = ows.CodeNoApplicableCode
	CodeOperationProcessingFailed = ows.CodeOperationProcessingFailed
)

// Exception is a request the service refuses (internal/ows).
type Exception = ows.Exception

func missing(param string) *Exception { return ows.Missing(param) }

func invalid(param, format string, args ...any) *Exception {
	return ows.Invalid(param, format, args...)
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
	if isV2(version) {
		return ows.WriteReport(w, ows.NS11, "2.0.0", e)
	}
	return ows.WriteReport(w, ows.NS10, "1.1.0", e)
}

// clip shortens what a caller sent for a message.
func clip(s string) string { return ows.Clip(s) }
