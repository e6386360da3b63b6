package ogcrecords

import (
	"strconv"
	"strings"

	of "github.com/geopub/geopub/internal/ogcfeatures"
)

// HTMLPage is a page of the HTML form (html/template escapes every
// value).
type HTMLPage = of.HTMLPage

// ItemsPage is the HTML form of an items page: one row per record,
// linked to its own page; htmlNext continues in HTML.
func ItemsPage(c Collection, fc FeatureCollection, htmlNext string) HTMLPage {
	t := &of.HTMLTable{Head: []string{"Record", "Title", "Type", "Updated", "Description"}}
	for _, r := range fc.Features {
		self := ""
		for _, l := range r.Links {
			if l.Rel == "alternate" && l.Type == TypeHTML {
				self = l.Href
			}
		}
		t.Rows = append(t.Rows, of.HTMLRow{Href: self,
			Cells: []string{r.ID, r.Properties.Title, r.Properties.Kind, r.Properties.Updated, clipText(r.Properties.Description, 200)}})
	}
	links := fc.Links
	if htmlNext != "" {
		links = append(links[:len(links):len(links)], Link{Href: htmlNext, Rel: "next", Type: TypeHTML, Title: "Next page as HTML"})
	}
	return HTMLPage{Title: c.Title, Links: links, Table: t,
		Description: strconv.Itoa(fc.NumberReturned) + " records of " + strconv.Itoa(fc.NumberMatched)}
}

// RecordPage is the HTML form of a record: its properties, then every
// link (the distributions among them).
func RecordPage(r Record) HTMLPage {
	p := r.Properties
	t := &of.HTMLTable{Head: []string{"Property", "Value"}}
	row := func(name, value string) {
		if value != "" {
			t.Rows = append(t.Rows, of.HTMLRow{Cells: []string{name, value}})
		}
	}
	row("Identifier", r.ID)
	row("Type", p.Kind)
	row("Keywords", strings.Join(p.Keywords, ", "))
	var themes []string
	for _, th := range p.Themes {
		for _, c := range th.Concepts {
			themes = append(themes, c.Title)
		}
	}
	row("Themes", strings.Join(themes, ", "))
	for _, c := range p.Contacts {
		row(strings.Join(c.Roles, ", "), strings.TrimSpace(c.Name+" "+c.Organization))
	}
	row("Licence", p.License)
	row("Created", p.Created)
	row("Updated", p.Updated)
	var formats []string
	for _, f := range p.Formats {
		formats = append(formats, f.Name)
	}
	row("Formats", strings.Join(formats, ", "))
	row("Extent", string(r.Geometry))
	return HTMLPage{Title: p.Title, Description: p.Description, Links: r.Links, Table: t}
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
