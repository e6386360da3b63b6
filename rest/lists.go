package rest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// pageResult is what a list handler knows about the page it serves.
type pageResult struct {
	page, size, total, count int
}

// sortRel is one Link sort relation: rel="sort-<name>" → ?sort=<value>.
type sortRel struct{ rel, value string }

// writePage writes a list response with the paging headers:
// X-Paginate-By, X-Resource-Range (start-end/total, end exclusive) and an
// RFC 5988 Link header with page-first, page-previous, page-next,
// page-last and the list's sort relations.
func (a *API) writePage(w http.ResponseWriter, r *http.Request, p pageResult, sorts []sortRel, body any) {
	start := (p.page - 1) * p.size
	if start > p.total {
		start = p.total
	}
	end := start + p.count
	h := w.Header()
	h.Set("X-Paginate-By", strconv.Itoa(p.size))
	h.Set("X-Resource-Range", fmt.Sprintf("%d-%d/%d", start, end, p.total))
	if link := a.linkHeader(r, p, sorts); link != "" {
		h.Set("Link", link)
	}
	writeJSON(w, http.StatusOK, body)
}

func (a *API) linkHeader(r *http.Request, p pageResult, sorts []sortRel) string {
	l := a.links(r)
	self := l.origin + r.URL.Path
	if !strings.HasSuffix(self, "/") {
		self += "/"
	}
	with := func(set map[string]string) string {
		q := r.URL.Query()
		for k, v := range set {
			if v == "" {
				q.Del(k)
			} else {
				q.Set(k, v)
			}
		}
		if enc := q.Encode(); enc != "" {
			return self + "?" + enc
		}
		return self
	}
	last := 1
	if p.total > 0 {
		last = (p.total + p.size - 1) / p.size
	}
	var parts []string
	add := func(u, rel string) { parts = append(parts, fmt.Sprintf("<%s>; rel=%q", u, rel)) }
	add(with(map[string]string{"page": "1"}), "page-first")
	if p.page > 1 {
		add(with(map[string]string{"page": strconv.Itoa(min(p.page-1, last))}), "page-previous")
	}
	if p.page < last {
		add(with(map[string]string{"page": strconv.Itoa(p.page + 1)}), "page-next")
	}
	add(with(map[string]string{"page": strconv.Itoa(last)}), "page-last")
	for _, s := range sorts {
		add(with(map[string]string{"sort": s.value, "page": ""}), "sort-"+s.rel)
	}
	return strings.Join(parts, ", ")
}
