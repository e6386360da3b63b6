package sitemap

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"time"
)

// xmlns is the sitemap protocol's namespace.
const xmlns = "http://www.sitemaps.org/schemas/sitemap/0.9"

type urlSet struct {
	XMLName xml.Name `xml:"urlset"`
	Xmlns   string   `xml:"xmlns,attr"`
	URLs    []urlXML `xml:"url"`
}

type urlXML struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod,omitempty"`
}

type sitemapIndex struct {
	XMLName  xml.Name `xml:"sitemapindex"`
	Xmlns    string   `xml:"xmlns,attr"`
	Sitemaps []urlXML `xml:"sitemap"`
}

// URLSet is the XML of a sitemap file listing pages under origin (the
// site's scheme://host, no trailing slash). Lastmod is a W3C datetime
// in UTC, to the second.
func URLSet(origin string, pages []Page) []byte {
	set := urlSet{Xmlns: xmlns, URLs: make([]urlXML, 0, len(pages))}
	for _, p := range pages {
		u := urlXML{Loc: origin + "/" + p.Path}
		if !p.LastMod.IsZero() {
			u.LastMod = p.LastMod.UTC().Format(time.RFC3339)
		}
		set.URLs = append(set.URLs, u)
	}
	return encode(set)
}

// FilePath is the path of sitemap file n below the site root.
func FilePath(n int) string { return "sitemap-" + strconv.Itoa(n) + ".xml" }

// Index is the XML of a sitemap index naming files 1..files under origin.
func Index(origin string, files int) []byte {
	idx := sitemapIndex{Xmlns: xmlns, Sitemaps: make([]urlXML, 0, files)}
	for n := 1; n <= files; n++ {
		idx.Sitemaps = append(idx.Sitemaps, urlXML{Loc: origin + "/" + FilePath(n)})
	}
	return encode(idx)
}

// encode writes v with the XML declaration; the types above always
// encode.
func encode(v any) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", " ")
	if err := enc.Encode(v); err != nil {
		panic("sitemap: encoding: " + err.Error())
	}
	b.WriteByte('\n')
	return b.Bytes()
}
