package oauthserver

import (
	"errors"
	"fmt"
)

// The error codes of RFC 6749 §4.1.2.1 and §5.2 and RFC 7009 §2.2.1.
const (
	ErrInvalidRequest          = "invalid_request"
	ErrInvalidClient           = "invalid_client"
	ErrInvalidGrant            = "invalid_grant"
	ErrUnauthorizedClient      = "unauthorized_client"
	ErrUnsupportedGrantType    = "unsupported_grant_type"
	ErrUnsupportedResponseType = "unsupported_response_type"
	ErrInvalidScope            = "invalid_scope"
	ErrAccessDenied            = "access_denied"
	ErrServerError             = "server_error"
)

// Error is an OAuth error answer: its code and a description for the
// developer (error_description).
type Error struct {
	Code        string
	Description string
	cause       error
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

func (e *Error) Unwrap() error { return e.cause }

func oauthErr(code, format string, args ...any) *Error {
	return &Error{Code: code, Description: fmt.Sprintf(format, args...)}
}

// serverErr hides a store failure behind server_error.
func serverErr(err error) *Error {
	return &Error{Code: ErrServerError, Description: "The server could not complete the request.", cause: err}
}

// AsError returns err as an OAuth error; any other error is server_error.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return serverErr(err)
}
