package ogcfeatures

import (
	"encoding/json"
	"html/template"
	"io"
	"strings"
)

// HTMLPage is the HTML view of a resource: a title, a description, its
// links and an optional table. Every value is escaped by html/template.
type HTMLPage struct {
	Title       string
	Description string
	Links       []Link
	Table       *HTMLTable
	// Pre is preformatted text (a JSON document) shown after the links.
	Pre string
}

// HTMLTable is a table of rows, each optionally linked.
type HTMLTable struct {
	Head []string
	Rows []HTMLRow
}

// HTMLRow is one row: Href links its first cell.
type HTMLRow struct {
	Href  string
	Cells []string
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:sans-serif;margin:1.5em;max-width:70em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}</style>
</head><body>
<h1>{{.Title}}</h1>
{{with .Description}}<p>{{.}}</p>{{end}}
{{with .Links}}<ul>{{range .}}<li><a href="{{.Href}}" rel="{{.Rel}}">{{if .Title}}{{.Title}}{{else}}{{.Rel}}{{end}}</a>{{with .Type}} ({{.}}){{end}}</li>{{end}}</ul>{{end}}
{{with .Pre}}<pre>{{.}}</pre>{{end}}
{{with .Table}}<table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{$href := .Href}}{{range $i, $c := .Cells}}<td>{{if and (eq $i 0) $href}}<a href="{{$href}}">{{$c}}</a>{{else}}{{$c}}{{end}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}
</body></html>
`))

// WriteHTML renders p. Its JSON links, which leave the format unsaid
// for clients that append to them, ask for it with f=json: a browser
// following one would otherwise be answered in HTML.
func WriteHTML(w io.Writer, p HTMLPage) error {
	links := make([]Link, len(p.Links))
	for i, l := range p.Links {
		if (l.Type == TypeJSON || l.Type == TypeGeoJSON) && !strings.Contains(l.Href, "?f=") && !strings.Contains(l.Href, "&f=") {
			if strings.Contains(l.Href, "?") {
				l.Href += "&f=json"
			} else {
				l.Href += "?f=json"
			}
		}
		links[i] = l
	}
	p.Links = links
	return page.Execute(w, p)
}

// CellText is a JSON value as a table shows it: strings without quotes,
// null empty, others as JSON.
func CellText(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	var s string
	if v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// PropertyCells splits a Properties object into names and cell texts, in
// order.
func PropertyCells(props json.RawMessage) (names, cells []string) {
	dec := json.NewDecoder(bytesReader(props))
	if _, err := dec.Token(); err != nil {
		return nil, nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return names, cells
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return names, cells
		}
		names = append(names, k)
		cells = append(cells, CellText(v))
	}
	return names, cells
}
