package apidoc

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"sort"
	"strings"
)

//go:embed page.html
var pageHTML string

var pageTemplate = template.Must(template.New("page").Parse(pageHTML))

// pageView is what the reference page shows: the document's operations by
// tag and its schemas.
type pageView struct {
	Title, Version, Description string
	Servers                     []string
	Tags                        []tagView
	Schemas                     []schemaView
	Operations                  int
}

type tagView struct {
	Name, Description string
	Operations        []opView
}

type opView struct {
	ID, Method, Path, Summary, Description string
	Security                               []string
	Params                                 []paramView
	Body                                   []contentView
	Responses                              []responseView
}

type paramView struct{ Name, In, Schema, Description string }

type contentView struct {
	MediaType, Schema string
	Refs              []string
}

type responseView struct {
	Status, Description string
	Content             []contentView
	Ref                 string
}

type schemaView struct{ Name, JSON string }

// renderHTML renders the reference page from the built document.
func (d *Document) renderHTML() ([]byte, error) {
	info := d.doc["info"].(map[string]any)
	v := pageView{Title: info["title"].(string), Version: info["version"].(string), Description: info["description"].(string)}
	for _, s := range d.doc["servers"].([]any) {
		v.Servers = append(v.Servers, s.(map[string]any)["url"].(string))
	}
	byTag := map[string][]opView{}
	paths := d.doc["paths"].(map[string]map[string]any)
	for _, path := range sortedKeys(paths) {
		for _, method := range []string{"get", "post", "put", "patch", "delete"} {
			op, ok := paths[path][method].(map[string]any)
			if !ok {
				continue
			}
			ov := opView{ID: op["operationId"].(string), Method: strings.ToUpper(method), Path: path, Summary: op["summary"].(string)}
			if desc, ok := op["description"].(string); ok {
				ov.Description = desc
			}
			ov.Security = securityView(op["security"].([]any))
			ov.Params = paramsView(op["parameters"])
			if rb, ok := op["requestBody"].(map[string]any); ok {
				ov.Body = contentsView(rb["content"])
			}
			ov.Responses = responsesView(op["responses"].(map[string]any))
			tag := op["tags"].([]string)[0]
			byTag[tag] = append(byTag[tag], ov)
			v.Operations++
		}
	}
	for _, t := range d.doc["tags"].([]any) {
		tm := t.(map[string]any)
		name := tm["name"].(string)
		desc, _ := tm["description"].(string)
		v.Tags = append(v.Tags, tagView{name, desc, byTag[name]})
	}
	schemas := d.doc["components"].(map[string]any)["schemas"].(map[string]Schema)
	for _, name := range sortedKeys(schemas) {
		v.Schemas = append(v.Schemas, schemaView{name, indent(schemas[name])})
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func securityView(sec []any) []string {
	var out []string
	for _, s := range sec {
		m := s.(map[string]any)
		if len(m) == 0 {
			out = append(out, "no credentials")
		}
		for name, scopes := range m {
			if sc := scopes.([]string); len(sc) > 0 {
				out = append(out, name+" with scope "+strings.Join(sc, ", "))
			} else {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

func paramsView(params any) []paramView {
	list, _ := params.([]any)
	var out []paramView
	for _, p := range list {
		m := p.(map[string]any)
		if ref, ok := m["$ref"].(string); ok {
			out = append(out, paramView{Name: strings.TrimPrefix(ref, "#/components/parameters/"), In: "query", Schema: "integer", Description: "paging"})
			continue
		}
		desc, _ := m["description"].(string)
		if req, _ := m["required"].(bool); req && m["in"] != "path" {
			desc = strings.TrimSpace("Required. " + desc)
		}
		out = append(out, paramView{m["name"].(string), m["in"].(string), compact(m["schema"]), desc})
	}
	return out
}

func contentsView(content any) []contentView {
	m, _ := content.(map[string]any)
	var out []contentView
	for _, mt := range sortedKeys(m) {
		s := m[mt].(map[string]any)["schema"]
		out = append(out, contentView{mt, indent(s), refsIn(s)})
	}
	return out
}

func responsesView(rs map[string]any) []responseView {
	var out []responseView
	for _, status := range sortedKeys(rs) {
		r := rs[status].(map[string]any)
		if ref, ok := r["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/responses/")
			out = append(out, responseView{Status: status, Description: errorDescriptionOf(name), Ref: "Error"})
			continue
		}
		out = append(out, responseView{Status: status, Description: r["description"].(string), Content: contentsView(r["content"])})
	}
	return out
}

func errorDescriptionOf(responseName string) string {
	for status, n := range errorResponseName {
		if n == responseName {
			return errorDescriptions[status]
		}
	}
	return ""
}

// refsIn lists the component schemas s refers to.
func refsIn(s any) []string {
	seen := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case Schema:
			walk(map[string]any(v))
		case map[string]any:
			for k, x := range v {
				if ref, ok := x.(string); ok && k == "$ref" {
					seen[strings.TrimPrefix(ref, "#/components/schemas/")] = true
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(s)
	return sortedKeys(seen)
}

func indent(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
