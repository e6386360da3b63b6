package geoservices

import "encoding/json"

// Error codes Esri clients act on besides the HTTP statuses: 498 asks
// for a new token, 499 for one at all.
const (
	CodeInvalidToken  = 498
	CodeTokenRequired = 499
)

// Error is the GeoServices error document:
//
//	{"error": {"code": 400, "message": "...", "details": ["..."]}}
//
// Geopub sends it with the HTTP status of Code (498 and 499 travel as 401
// and 403), so clients that read only one of the two both see it.
type Error struct {
	Code    int      `json:"code"`
	Message string   `json:"message"`
	Details []string `json:"details"`
}

// Error implements error.
func (e *Error) Error() string { return e.Message }

// Status is the HTTP status the error travels with.
func (e *Error) Status() int {
	switch e.Code {
	case CodeInvalidToken:
		return 401
	case CodeTokenRequired:
		return 403
	}
	if e.Code < 400 || e.Code > 599 {
		return 500
	}
	return e.Code
}

// JSON is the error document.
func (e *Error) JSON() []byte {
	d := e.Details
	if d == nil {
		d = []string{}
	}
	b, _ := json.Marshal(map[string]Error{"error": {Code: e.Code, Message: e.Message, Details: d}})
	return b
}

// BadRequest is a 400 with message and details.
func BadRequest(message string, details ...string) *Error {
	return &Error{Code: 400, Message: message, Details: details}
}

// NotFound is a 404: the service or layer does not exist or the caller
// may not use it (the two are not told apart).
func NotFound(message string) *Error { return &Error{Code: 404, Message: message} }
