package rest

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// cursorPage is what a cursor list (one paged by ?after= or ?before=,
// not by page number) says of the page it serves.
type cursorPage struct {
	// carried are the request's parameters the Link URLs keep (page_size
	// and the list's filters), without the cursor.
	carried url.Values
	// param names the cursor parameter; next is its value for the next
	// page, "" when there is none.
	param, next string
	// per is the page size, count the items on this page and total
	// those after (or before) the cursor, this page included.
	per, count, total int
}

// setCursorHeaders writes a cursor list's headers: X-Paginate-By,
// X-Resource-Range (0-count/total) and Link with page-first (no cursor)
// and page-next.
func (l links) setCursorHeaders(w http.ResponseWriter, r *http.Request, p cursorPage) {
	self := l.origin + r.URL.Path
	if !strings.HasSuffix(self, "/") {
		self += "/"
	}
	with := func(cursor string) string {
		v := url.Values{}
		for k, vs := range p.carried {
			v[k] = vs
		}
		if cursor != "" {
			v.Set(p.param, cursor)
		}
		if enc := v.Encode(); enc != "" {
			return self + "?" + enc
		}
		return self
	}
	links := []string{fmt.Sprintf("<%s>; rel=%q", with(""), "page-first")}
	if p.next != "" {
		links = append(links, fmt.Sprintf("<%s>; rel=%q", with(p.next), "page-next"))
	}
	h := w.Header()
	h.Set("X-Paginate-By", strconv.Itoa(p.per))
	h.Set("X-Resource-Range", fmt.Sprintf("0-%d/%d", p.count, p.total))
	h.Set("Link", strings.Join(links, ", "))
}
