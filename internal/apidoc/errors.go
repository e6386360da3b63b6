package apidoc

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/geopub/geopub/internal/apperr"
)

// errorResponseName names the shared response of each error status.
var errorResponseName = map[int]string{
	http.StatusBadRequest:            "BadRequest",
	http.StatusUnauthorized:          "Unauthorized",
	http.StatusForbidden:             "Forbidden",
	http.StatusNotFound:              "NotFound",
	http.StatusMethodNotAllowed:      "MethodNotAllowed",
	http.StatusConflict:              "Conflict",
	http.StatusRequestEntityTooLarge: "PayloadTooLarge",
	http.StatusTooManyRequests:       "TooManyRequests",
	http.StatusInternalServerError:   "InternalServerError",
}

// SpecErrorBody is the body the specification states for the document
// version cases (405 deleting a version that is not a draft, 409 deleting
// one already deleted): {"error": message}.
var SpecErrorBody = Ref("ErrorMessage")

// ErrorListBody is the body existing clients read when an export cannot
// be cancelled (409): {"errors": ["Can't cancel"]}.
var ErrorListBody = Ref("ErrorList")

// errorSchemas are the error shapes: Error, the one shape of every error
// response; FieldErrors, the body of validation errors that name fields;
// ErrorMessage, the body the specification states for document versions.
func errorSchemas() map[string]Schema {
	var codes []any
	var table strings.Builder
	table.WriteString("| code | status |\n|---|---|\n")
	for _, c := range apperr.Codes() {
		codes = append(codes, string(c))
		fmt.Fprintf(&table, "| `%s` | %d |\n", c, c.HTTPStatus())
	}
	return map[string]Schema{
		"Error": {
			"type": "object",
			"description": "The body of every error response, unless the operation documents another. " +
				"`detail` is written for people; `code` is stable and the same as the `extensions.code` " +
				"GraphQL gives for the same failure. The code decides the status:\n\n" + table.String() +
				"\nAn internal error's detail is always \"Internal server error.\"; its cause is only logged.",
			"required": []string{"detail", "code"},
			"properties": map[string]any{
				"detail": Schema{"type": "string", "description": "What went wrong, for people."},
				"code":   Schema{"type": "string", "enum": codes, "description": "The class of failure."},
			},
		},
		"FieldErrors": {
			"type": "object",
			"description": "The body of a 400 whose input failed validation field by field: each field " +
				"named maps to its messages, for example {\"name\": [\"This field is required.\"]}. " +
				"Kept as existing clients read it; other 400s carry Error.",
			"additionalProperties": ArrayOf(String),
		},
		"ErrorList": {
			"type":        "object",
			"description": "The body existing clients read when an export cannot be cancelled (409): {\"errors\": [\"Can't cancel\"]}.",
			"required":    []string{"errors"},
			"properties":  map[string]any{"errors": ArrayOf(String)},
		},
		"ErrorMessage": {
			"type": "object",
			"description": "The body the specification states for deleting a document version: " +
				"405 when the version is not a draft, 409 when it is already deleted.",
			"required":   []string{"error"},
			"properties": map[string]any{"error": String},
		},
	}
}

// errorResponses are the shared error responses, each with an Error body
// (a 400 may carry FieldErrors instead).
func errorResponses() map[string]any {
	out := map[string]any{}
	for status, name := range errorResponseName {
		var schema Schema = Ref("Error")
		if status == http.StatusBadRequest {
			schema = Schema{"oneOf": []any{Ref("Error"), Ref("FieldErrors")}}
		}
		resp := map[string]any{
			"description": errorDescriptions[status],
			"content":     map[string]any{"application/json": map[string]any{"schema": schema}},
		}
		if status == http.StatusTooManyRequests {
			resp["headers"] = map[string]any{"Retry-After": map[string]any{
				"description": "Seconds to wait before trying again.",
				"schema":      Integer,
			}}
		}
		out[name] = resp
	}
	return out
}

var errorDescriptions = map[int]string{
	http.StatusBadRequest:            "The request is malformed: a recognised query parameter with an invalid value (page_size above its cap included), or a body that does not parse or validate.",
	http.StatusUnauthorized:          "No credentials where they are needed, or a token lacking the operation's scope (the detail names the scope).",
	http.StatusForbidden:             "The caller may not do this (or a session's unsafe request lacks its X-CSRF-Token).",
	http.StatusNotFound:              "The resource does not exist or the caller may not see it.",
	http.StatusMethodNotAllowed:      "The resource's state does not allow this method.",
	http.StatusConflict:              "The request conflicts with the resource's state.",
	http.StatusRequestEntityTooLarge: "The request body is over this operation's limit (the detail names it).",
	http.StatusTooManyRequests:       "Too many attempts; retry after the Retry-After seconds.",
	http.StatusInternalServerError:   "The server failed; the detail is \"Internal server error.\".",
}

// sharedParameters are the paging parameters and the Expand header.
func sharedParameters() map[string]any {
	return map[string]any{
		"page": map[string]any{
			"name": "page", "in": "query", "description": "The page, from 1.",
			"schema": Schema{"type": "integer", "minimum": 1, "default": 1},
		},
		"page_size": map[string]any{
			"name": "page_size", "in": "query",
			"description": "Items per page; above the list's cap (200 on most lists) is a 400.",
			"schema":      Schema{"type": "integer", "minimum": 1, "default": 100},
		},
	}
}

// sharedHeaders are the response headers of lists and of every operation.
func sharedHeaders() map[string]any {
	h := func(desc string) map[string]any { return map[string]any{"description": desc, "schema": String} }
	return map[string]any{
		"X-Paginate-By":         h("Items per page."),
		"X-Resource-Range":      h("The page's items as start-end/total, end exclusive."),
		"Link":                  h("RFC 5988 links: page-first, page-previous, page-next, page-last and the list's sort relations (sort-name, ...)."),
		"Accepted-OAuth-Scopes": h("The token scope the operation needs; * when any token will do."),
	}
}

func securitySchemes() map[string]any {
	return map[string]any{
		"token": map[string]any{
			"type": "apiKey", "in": "header", "name": "Authorization",
			"description": "An API token: `Authorization: key <token>` or `Authorization: Bearer <token>`. " +
				"A token carries scopes; each operation lists the one it needs, and a token without it gets 401.",
		},
		"session": map[string]any{
			"type": "apiKey", "in": "cookie", "name": "geopub_session",
			"description": "The session cookie POST /session/ sets. Unsafe requests must also send " +
				"X-CSRF-Token equal to the geopub_csrf cookie.",
		},
	}
}
