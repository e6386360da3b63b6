package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

func sqlOpen(u string) (*sql.DB, error) { return sql.Open("pgx", u) }

// door is one harvest door's first page and how to find the next.
type door struct {
	name  string
	first string
	// next finds the next page's URL in a response body; "" at the end.
	next func(body []byte) string
}

var (
	nextLink   = regexp.MustCompile(`"rel"\s*:\s*"next"[^}]*"href"\s*:\s*"([^"]+)"|"href"\s*:\s*"([^"]+)"[^}]*"rel"\s*:\s*"next"`)
	nextRecord = regexp.MustCompile(`nextRecord="(\d+)"`)
)

// doors are the harvest doors' pages of size records.
func doors(base string, size int) []door {
	csw := func(start string) string {
		return fmt.Sprintf("%s/services/csw/?service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&resultType=results&elementSetName=summary&maxRecords=%d&startPosition=%s", base, size, start)
	}
	return []door{
		{name: "OGC API Records items", first: fmt.Sprintf("%s/services/ogc/records/collections/catalogue/items?limit=%d", base, size),
			next: func(b []byte) string { return firstGroup(nextLink.FindSubmatch(b)) }},
		{name: "CSW 2.0.2 GetRecords (summary)", first: csw("1"), next: func(b []byte) string {
			m := nextRecord.FindSubmatch(b)
			if m == nil || string(m[1]) == "0" {
				return ""
			}
			return csw(string(m[1]))
		}},
		{name: "DCAT-AP 3 (JSON-LD)", first: fmt.Sprintf("%s/services/dcat/catalog?format=jsonld&page_size=%d", base, size),
			next: func(b []byte) string { return firstGroup(hydraNext.FindSubmatch(b)) }},
	}
}

var hydraNext = regexp.MustCompile(`"(?:hydra:)?next(?:Page)?"\s*:\s*(?:\{\s*"@id"\s*:\s*)?"([^"]+)"`)

// firstGroup is the first non-empty group of a match, read as the body
// of a JSON string (links escape & as \u0026).
func firstGroup(m [][]byte) string {
	for _, g := range m[min(1, len(m)):] {
		if len(g) > 0 {
			var s string
			if json.Unmarshal([]byte(`"`+string(g)+`"`), &s) != nil {
				return string(g)
			}
			return s
		}
	}
	return ""
}

// walkHTTP times pages of a door until pages pages or the end; records
// per page are taken as size (the last page may hold fewer).
func walkHTTP(d door, pages, size int) {
	var lat []time.Duration
	url, records := d.first, 0
	start := time.Now()
	for i := 0; i < pages && url != ""; i++ {
		t := time.Now()
		resp, err := http.Get(url)
		if err != nil {
			fmt.Printf("%-48s error: %v\n", d.name, err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			fmt.Printf("%-48s HTTP %d on %s\n", d.name, resp.StatusCode, url)
			return
		}
		lat = append(lat, time.Since(t))
		records += size
		url = d.next(body)
	}
	report(d.name, lat, records, time.Since(start))
}
