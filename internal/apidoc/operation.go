package apidoc

import "net/http"

// Operation documents one route: the method and chi pattern it is
// registered with, and what a client sends and gets back. Build it with Op
// and the chained setters.
type Operation struct {
	Method  string
	Pattern string

	Summary     string
	Description string
	Tag         string
	// Scope is the token scope the route needs, as its
	// Accepted-OAuth-Scopes header names it; "*" means any token.
	Scope string
	// Anonymous is set when a caller without credentials may call the
	// route (what it answers then depends on what is public).
	Anonymous bool

	Query   []Param
	Headers []Param
	Paged   bool
	Body    []Content
	// Responses are the success responses; the error responses every
	// operation shares are added by Build.
	Responses []Response
	// Errors are the operation's error statuses beyond 401, 403, 404 and
	// 500, which every operation documents.
	Errors []ErrorResponse
}

// Param is a query or header parameter.
type Param struct {
	Name        string
	Description string
	Schema      Schema
	Required    bool
}

// Content is a body in one media type: Value is a Schema or a Go value
// whose type gives the schema.
type Content struct {
	MediaType string
	Value     any
}

// Response is a success response; Body is nil for one without a body.
type Response struct {
	Status      int
	Description string
	Body        *Content
}

// ErrorResponse is an error status of an operation. Body, when set, is
// the body the specification states for it instead of Error.
type ErrorResponse struct {
	Status      int
	Description string
	Body        Schema
}

// Op starts the documentation of the route method pattern.
func Op(method, pattern, summary string) *Operation {
	return &Operation{Method: method, Pattern: pattern, Summary: summary}
}

// Describe sets the description (CommonMark).
func (o *Operation) Describe(text string) *Operation { o.Description = text; return o }

// Tagged sets the group the reference page lists the operation under.
func (o *Operation) Tagged(tag string) *Operation { o.Tag = tag; return o }

// Scoped sets the token scope.
func (o *Operation) Scoped(scope string) *Operation { o.Scope = scope; return o }

// Public marks the route as callable without credentials.
func (o *Operation) Public() *Operation { o.Anonymous = true; return o }

// Private marks the route as needing credentials.
func (o *Operation) Private() *Operation { o.Anonymous = false; return o }

// WithQuery adds query parameters.
func (o *Operation) WithQuery(p ...Param) *Operation { o.Query = append(o.Query, p...); return o }

// WithHeader adds request header parameters.
func (o *Operation) WithHeader(p ...Param) *Operation { o.Headers = append(o.Headers, p...); return o }

// Paging marks a list: the page and page_size parameters, and the
// X-Paginate-By, X-Resource-Range and Link response headers.
func (o *Operation) Paging() *Operation { o.Paged = true; return o }

// Accepts adds a request body of the media type; v is a Schema or a Go
// value whose type gives the schema.
func (o *Operation) Accepts(mediaType string, v any) *Operation {
	o.Body = append(o.Body, Content{mediaType, v})
	return o
}

// AcceptsJSON adds an application/json request body.
func (o *Operation) AcceptsJSON(v any) *Operation { return o.Accepts("application/json", v) }

// Returns adds a success response with a body of the media type.
func (o *Operation) Returns(status int, description, mediaType string, v any) *Operation {
	o.Responses = append(o.Responses, Response{status, description, &Content{mediaType, v}})
	return o
}

// ReturnsJSON adds a success response with a JSON body.
func (o *Operation) ReturnsJSON(status int, description string, v any) *Operation {
	return o.Returns(status, description, "application/json", v)
}

// NoContent adds a 204 response.
func (o *Operation) NoContent(description string) *Operation {
	o.Responses = append(o.Responses, Response{http.StatusNoContent, description, nil})
	return o
}

// Fails adds an error status whose body is the Error component.
func (o *Operation) Fails(status int, description string) *Operation {
	o.Errors = append(o.Errors, ErrorResponse{status, description, nil})
	return o
}

// FailsWith adds an error status whose body the specification states.
func (o *Operation) FailsWith(status int, description string, body Schema) *Operation {
	o.Errors = append(o.Errors, ErrorResponse{status, description, body})
	return o
}
