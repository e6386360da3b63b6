package sitemap

import (
	"context"
	"errors"
	"time"

	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/search"
)

// MaxURLs is the sitemap protocol's limit of URLs in one file.
const MaxURLs = 50000

// ErrNoFile is a sitemap file number past the last file (or below 1).
var ErrNoFile = errors.New("no such sitemap file")

// Page is one URL of a sitemap: a path below the site root ("" is the
// front page, "layers/12/") and when it last changed (zero: unknown).
type Page struct {
	Path    string
	LastMod time.Time
}

// Front is the front page's path.
const Front = ""

// staticPages are the pages listed before the datasets, in file 1.
var staticPages = []Page{{Path: Front}}

// datasetTypes are the doc types whose pages are public: not sources.
var datasetTypes = []search.Type{search.TypeLayer, search.TypeTable, search.TypeSet, search.TypeDocument, search.TypeItem}

// batch is the page size of the search walk (search's maximum).
const batch = 1000

// Sitemap lists the public pages through a search index.
type Sitemap struct {
	ix      search.Index
	perFile int
}

// New returns the sitemap over ix with at most perFile URLs a file
// (MaxURLs when perFile is not positive or above it).
func New(ix search.Index, perFile int) *Sitemap {
	if perFile <= 0 || perFile > MaxURLs {
		perFile = MaxURLs
	}
	return &Sitemap{ix: ix, perFile: perFile}
}

// PerFile is the number of URLs a file holds at most.
func (s *Sitemap) PerFile() int { return s.perFile }

// query is the anonymous walk over the published public datasets,
// oldest first.
func query(cursor string, limit int) search.Query {
	return search.Query{State: search.Published, Types: datasetTypes, Sort: search.SortCreatedOld,
		Limit: limit, Cursor: cursor}
}

// Files is the number of sitemap files the pages need (at least 1).
func (s *Sitemap) Files(ctx context.Context) (int, error) {
	res, err := s.ix.Search(ctx, query("", 1))
	if err != nil {
		return 0, err
	}
	total := len(staticPages) + res.TotalCount
	return (total + s.perFile - 1) / s.perFile, nil
}

// File returns the pages of file n (1-based): the static pages then the
// datasets in their stable order, cut into files of PerFile pages.
// ErrNoFile when file n would be empty (a number past the last file), but
// file 1 always holds the front page.
func (s *Sitemap) File(ctx context.Context, n int) ([]Page, error) {
	if n < 1 {
		return nil, ErrNoFile
	}
	first := (n - 1) * s.perFile // index of the file's first page overall
	var out []Page
	for i := first; i < len(staticPages) && len(out) < s.perFile; i++ {
		out = append(out, staticPages[i])
	}
	skip := max(first-len(staticPages), 0) // datasets before the file's first
	want := s.perFile - len(out)
	cursor := ""
	for want > 0 {
		limit := batch
		if skip > 0 {
			limit = min(batch, skip)
		} else {
			limit = min(batch, want)
		}
		res, err := s.ix.Search(ctx, query(cursor, limit))
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			if skip > 0 {
				skip--
				continue
			}
			out = append(out, Page{Path: changefeed.DatasetPath(string(h.Ref.Type), h.Ref.ID) + "/", LastMod: h.UpdatedAt})
			want--
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if len(out) == 0 {
		return nil, ErrNoFile
	}
	return out, nil
}
