package apidoc

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Info is what the document says about the API as a whole.
type Info struct {
	Title       string
	Version     string
	Description string
	// Servers are the base URLs of the API, relative to the host.
	Servers []string
	// Tags describe the operations' tags, by name.
	Tags map[string]string
}

// Document is a built OpenAPI document.
type Document struct {
	// JSON is the document, indented.
	JSON []byte
	doc  map[string]any
	ops  []*Operation
}

// Build returns the OpenAPI 3.1 document of the operations. It fails when
// two operations share a method and path or a pattern does not parse.
func Build(info Info, ops []*Operation) (*Document, error) {
	rf := newReflector()
	paths := map[string]map[string]any{}
	seen := map[string]bool{}
	tags := map[string]bool{}
	for _, o := range ops {
		path, params, err := openAPIPath(o.Pattern)
		if err != nil {
			return nil, err
		}
		method := strings.ToLower(o.Method)
		id := operationID(o.Method, path)
		if seen[id] {
			return nil, fmt.Errorf("apidoc: two operations are %s %s", o.Method, path)
		}
		seen[id] = true
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][method] = operationObject(rf, o, id, params)
		tags[o.Tag] = true
	}
	var tagList []any
	for _, t := range sortedKeys(tags) {
		tag := map[string]any{"name": t}
		if d := info.Tags[t]; d != "" {
			tag["description"] = d
		}
		tagList = append(tagList, tag)
	}
	var servers []any
	for _, s := range info.Servers {
		servers = append(servers, map[string]any{"url": s})
	}
	schemas := errorSchemas()
	for name, s := range rf.components {
		if _, ok := schemas[name]; ok {
			return nil, fmt.Errorf("apidoc: component %s is both a Go type and an error shape", name)
		}
		schemas[name] = s
	}
	doc := map[string]any{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
		"info": map[string]any{
			"title":       info.Title,
			"version":     info.Version,
			"description": info.Description,
		},
		"servers": servers,
		"tags":    tagList,
		"paths":   paths,
		"components": map[string]any{
			"schemas":         schemas,
			"responses":       errorResponses(),
			"parameters":      sharedParameters(),
			"headers":         sharedHeaders(),
			"securitySchemes": securitySchemes(),
		},
	}
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return &Document{JSON: raw, doc: doc, ops: ops}, nil
}

// operationObject is the OpenAPI operation of o.
func operationObject(rf *reflector, o *Operation, id string, path []pathParam) map[string]any {
	var params []any
	for _, p := range path {
		s := Schema{"type": "string"}
		if p.regexp != "" {
			s["pattern"] = "^(?:" + p.regexp + ")$"
		}
		params = append(params, map[string]any{"name": p.name, "in": "path", "required": true, "schema": s})
	}
	if o.Paged {
		params = append(params, paramRef("page"), paramRef("page_size"))
	}
	for _, p := range o.Query {
		params = append(params, paramObject(rf, p, "query"))
	}
	for _, p := range o.Headers {
		params = append(params, paramObject(rf, p, "header"))
	}
	op := map[string]any{
		"operationId": id,
		"summary":     o.Summary,
		"tags":        []string{o.Tag},
		"security":    security(o),
		"responses":   responses(rf, o),
	}
	if o.Description != "" {
		op["description"] = o.Description
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if len(o.Body) > 0 {
		content := map[string]any{}
		for _, c := range o.Body {
			content[c.MediaType] = map[string]any{"schema": rf.requestSchemaOf(c.Value)}
		}
		op["requestBody"] = map[string]any{"required": true, "content": content}
	}
	return op
}

func paramObject(rf *reflector, p Param, in string) map[string]any {
	s := p.Schema
	if s == nil {
		s = String
	}
	m := map[string]any{"name": p.Name, "in": in, "schema": s}
	if p.Description != "" {
		m["description"] = p.Description
	}
	if p.Required {
		m["required"] = true
	}
	return m
}

func paramRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/parameters/" + name}
}

func headerRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/headers/" + name}
}

// security lists the ways to call o: a token with its scope, a session
// cookie, and no credentials when o is public.
func security(o *Operation) []any {
	scopes := []string{}
	if o.Scope != "" && o.Scope != "*" {
		scopes = append(scopes, o.Scope)
	}
	sec := []any{map[string]any{"token": scopes}, map[string]any{"session": []string{}}}
	if o.Anonymous {
		sec = append(sec, map[string]any{})
	}
	return sec
}

// responses are o's success responses and its error responses.
func responses(rf *reflector, o *Operation) map[string]any {
	out := map[string]any{}
	for _, r := range o.Responses {
		headers := map[string]any{"Accepted-OAuth-Scopes": headerRef("Accepted-OAuth-Scopes")}
		if o.Paged && r.Status == http.StatusOK {
			for _, h := range []string{"X-Paginate-By", "X-Resource-Range", "Link"} {
				headers[h] = headerRef(h)
			}
		}
		key := strconv.Itoa(r.Status)
		if prev, ok := out[key].(map[string]any); ok && r.Body != nil {
			// Another media type of the same answer (format negotiation).
			if content, ok := prev["content"].(map[string]any); ok {
				content[r.Body.MediaType] = map[string]any{"schema": rf.schemaOf(r.Body.Value)}
				continue
			}
		}
		resp := map[string]any{"description": r.Description, "headers": headers}
		if r.Body != nil {
			resp["content"] = map[string]any{r.Body.MediaType: map[string]any{"schema": rf.schemaOf(r.Body.Value)}}
		}
		out[key] = resp
	}
	common := []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusInternalServerError}
	if o.Paged || len(o.Query) > 0 || len(o.Body) > 0 {
		common = append(common, http.StatusBadRequest)
	}
	if len(o.Body) > 0 {
		common = append(common, http.StatusRequestEntityTooLarge)
	}
	for _, s := range common {
		out[strconv.Itoa(s)] = map[string]any{"$ref": "#/components/responses/" + errorResponseName[s]}
	}
	for _, e := range o.Errors {
		body := e.Body
		if body == nil {
			body = Ref("Error")
		}
		out[strconv.Itoa(e.Status)] = map[string]any{
			"description": e.Description,
			"content":     map[string]any{"application/json": map[string]any{"schema": body}},
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
