package rest

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/paging"
	"github.com/geopub/geopub/internal/textrules"
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

// maxLinkQuery bounds the request parameters the Link header's URLs carry,
// encoded: room for the longest q (textrules.MaxQuery characters of four
// bytes each, percent-encoded) and the usual filters. A parameter that
// does not fit in what is left is not carried (only unknown, ignored
// parameters can be that long), so the header never grows with the
// request: with at most four page relations and the sort relations left
// out once the carried query is long, it stays under 12 KB.
const maxLinkQuery = 12*textrules.MaxQuery + 160

// longLinkQuery is the carried query length above which the Link header
// leaves out the sort relations.
const longLinkQuery = 512

// linkQuery is the part of the request's query the Link URLs carry: every
// parameter but page and sort, in name order, while they fit in
// maxLinkQuery.
func linkQuery(r *http.Request) url.Values {
	all := r.URL.Query()
	names := make([]string, 0, len(all))
	for k := range all {
		if k != "page" && k != "sort" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	out := url.Values{}
	used := 0
	for _, k := range names {
		n := len(url.Values{k: all[k]}.Encode()) + 1
		if used+n > maxLinkQuery {
			continue
		}
		used += n
		out[k] = all[k]
	}
	if v, ok := all["sort"]; ok && len(url.Values{"sort": v}.Encode()) < 200 {
		out["sort"] = v
	}
	return out
}

func (a *API) linkHeader(r *http.Request, p pageResult, sorts []sortRel) string {
	l := a.links(r)
	self := l.origin + r.URL.Path
	if !strings.HasSuffix(self, "/") {
		self += "/"
	}
	carried := linkQuery(r)
	with := func(set map[string]string) string {
		q := url.Values{}
		for k, v := range carried {
			q[k] = v
		}
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
	if len(carried.Encode()) <= longLinkQuery {
		for _, s := range sorts {
			add(with(map[string]string{"sort": s.value, "page": ""}), "sort-"+s.rel)
		}
	}
	return strings.Join(parts, ", ")
}

// pageSlice is the requested page of a list a handler holds whole (a
// dataset's versions, a user's tokens, a group's members): the spec's
// page and page_size (default 100, at most 200; above is a 400) applied
// in memory, with what writePage needs to write the list headers. The
// page is never nil, so an empty page is [] in JSON.
func pageSlice[T any](r *http.Request, items []T) ([]T, pageResult, error) {
	return pageSliceUpTo(r, items, paging.MaxSize)
}

// pageSliceUpTo is pageSlice with another page_size cap (the spec's
// paging.MaxSizeLarge for licences).
func pageSliceUpTo[T any](r *http.Request, items []T, maxSize int) ([]T, pageResult, error) {
	number, size, err := queryOf(r).paging()
	if err != nil {
		return nil, pageResult{}, err
	}
	p, err := paging.New(number, size, maxSize)
	if err != nil {
		return nil, pageResult{}, err
	}
	start := min(p.Offset(), len(items))
	end := min(start+p.Size, len(items))
	out := items[start:end:end]
	if out == nil {
		out = []T{}
	}
	return out, pageResult{page: p.Number, size: p.Size, total: len(items), count: len(out)}, nil
}

// writeList answers GET with the requested page of a list rendered whole
// (lists of a few dozen entries at most: versions, tokens, members,
// services, grants), with the list headers; a write that answers with
// its list (PUT of permissions) gets the whole list.
func writeList[T any](a *API, w http.ResponseWriter, r *http.Request, items []T) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if items == nil {
			items = []T{}
		}
		writeJSON(w, http.StatusOK, items)
		return nil
	}
	page, pr, err := pageSlice(r, items)
	if err != nil {
		return err
	}
	a.writePage(w, r, pr, nil, page)
	return nil
}
