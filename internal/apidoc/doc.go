// Package apidoc builds Geopub's API reference: an OpenAPI 3.1 document of
// the REST API, whose schemas use the JSON Schema 2020-12 dialect, and a
// server-rendered HTML page of the same document.
//
// The document is not written by hand. Its paths are the routes the REST
// router registers (chi patterns, regular expressions included); each
// route's summary, parameters, bodies, responses and token scope are an
// Operation the rest package declares beside its handlers; request and
// response schemas are reflected from the Go types the handlers encode and
// decode. Diff compares the operations with the router's routes, so a
// test fails for a route without documentation and for documentation of a
// route that does not exist.
//
// Every error response refers to one component, Error ({"detail", "code"},
// the codes of package apperr), except where the specification states
// another body: the {"error": message} of the document-version cases and
// the field map of validation errors, both documented as such.
package apidoc
