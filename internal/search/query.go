package search

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/access"
)

// ErrInvalid marks a query the caller got wrong (an unknown sort, a
// cursor that is not one of ours or belongs to another sort, a negative
// limit): adapters answer 400 with its message.
var ErrInvalid = errors.New("invalid search query")

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// Sort is a result order.
type Sort string

// The sorts. Following the desktop plugin's menu (api-shapes §4.2:
// "created_at" is Recently Added, "-created_at" is Oldest), the date sorts
// put the most recent first and their "-" forms the oldest first; name
// sorts A-Z and "-name" Z-A; popularity puts the most viewed and
// downloaded first. Relevance is only meaningful with free text.
const (
	SortRelevance  Sort = "relevance"
	SortPopularity Sort = "popularity"
	SortName       Sort = "name"
	SortNameDesc   Sort = "-name"
	SortCreated    Sort = "created_at"
	SortCreatedOld Sort = "-created_at"
	SortUpdated    Sort = "updated_at"
	SortUpdatedOld Sort = "-updated_at"
)

// ParseSort checks a sort parameter; "" means the default.
func ParseSort(s string) (Sort, error) {
	switch x := Sort(s); x {
	case "", SortRelevance, SortPopularity, SortName, SortNameDesc, SortCreated, SortCreatedOld, SortUpdated, SortUpdatedOld:
		return x, nil
	}
	return "", invalid("unknown sort %q", s)
}

// Query is one search. The zero value lists the published docs an
// anonymous caller may see, most popular first.
type Query struct {
	// Viewer is the caller; nil is anonymous.
	Viewer *access.Viewer
	// State picks published docs (the default) or latest ones.
	State State
	// Q is the free text.
	Q string

	// Types restricts the doc types (a list endpoint's own kind).
	Types []Type
	// Kinds: a value matches the doc's kind or its type ("layer" matches
	// every layer kind). GeometryTypes name vector layers; given with
	// Kinds, a doc matching either matches (the plugin sends
	// kind=raster&data.geometry_type=point for "vectors and rasters").
	Kinds         []string
	GeometryTypes []string
	Tags          []string
	// Categories match themselves and their descendants.
	Categories []string
	Geotags    []string
	GroupIDs   []int
	// ExcludeGroupIDs leaves out the docs these groups own (docs users
	// own stay): the groups that keep their data out of public feeds.
	ExcludeGroupIDs []int
	// UserIDs are publishing users.
	UserIDs []int
	// LicenseTypes: "x" includes x, "-x" excludes it.
	LicenseTypes    []string
	LicenseVersions []string
	RasterBands     []string
	// VersionStatuses filters latest docs by their version's status.
	VersionStatuses []string
	// SourceTypes keeps sources of these types (/sources/'s type).
	SourceTypes []string
	// Owner, when set, keeps the docs of one user's own data: published
	// by the user or owned by one of the groups (/users/me/data/).
	Owner *Owner

	Public    *bool
	IsStarred *bool
	HasZ      *bool
	HasPK     *bool
	IsImagery *bool

	RasterResolutionGT *float64
	RasterResolutionLT *float64
	CreatedAfter       *time.Time
	CreatedBefore      *time.Time
	UpdatedAfter       *time.Time
	UpdatedBefore      *time.Time

	// Sort: "" is relevance with Q, popularity without.
	Sort Sort
	// Limit is the page size (default 100, at most 1000).
	Limit int
	// Cursor continues after the last hit of a previous page
	// (Result.NextCursor). Offset is the fallback for page/page_size
	// paging and is ignored with a cursor; deep offsets cost more.
	Cursor string
	Offset int

	// Facets asks for facet counts; FacetLimit caps the entries of each
	// list facet (default 50), the counts still cover the whole result.
	Facets     bool
	FacetLimit int
}

// Owner names a user's own data: what the user publishes and what the
// user's groups own.
type Owner struct {
	UserID   int
	GroupIDs []int
}

// Hit is one result.
type Hit struct {
	Ref   Ref
	Kind  string
	Title string
	// Score is the relevance (higher is better; 0 without free text).
	Score float64
	// UpdatedAt is when the doc's version last changed (a sitemap's
	// lastmod).
	UpdatedAt time.Time
	// Cursor continues after this hit (a Relay edge's cursor).
	Cursor string
}

// Result is one page of hits.
type Result struct {
	Hits []Hit
	// TotalCount counts the whole filtered result.
	TotalCount int
	// NextCursor continues after the last hit; "" on the last page.
	NextCursor string
	// Facets is set when the query asked for them.
	Facets *Facets
}

// FacetEntry is one value of a list facet: Key is what to filter by.
type FacetEntry struct {
	Key   string
	Name  string
	Total int
}

// TimeRange is the span of a date facet; nil when nothing matched.
type TimeRange struct{ Min, Max time.Time }

// FloatRange is the span of a numeric facet.
type FloatRange struct{ Min, Max float64 }

// Facets are counts over the whole filtered result, most frequent first
// (ties by key).
type Facets struct {
	Tag, Group, Geotag, Category, License, RasterResolution, RasterBand, Kind []FacetEntry
	CreatedAt, UpdatedAt                                                      *TimeRange
	RasterResolutionRange                                                     *FloatRange
}

const (
	defaultLimit      = 100
	maxLimit          = 1000
	defaultFacetLimit = 50
	maxTerms          = 32
	maxTermRunes      = 64
)

// normalized returns q with defaults filled in, or an ErrInvalid.
func (q Query) normalized() (Query, []string, error) {
	if q.Viewer == nil {
		q.Viewer = &access.Viewer{}
	}
	switch q.State {
	case "":
		q.State = Published
	case Published, Latest:
	default:
		return q, nil, invalid("unknown state %q", q.State)
	}
	s, err := ParseSort(string(q.Sort))
	if err != nil {
		return q, nil, err
	}
	terms := Terms(q.Q)
	switch {
	case s == "" && len(terms) > 0:
		s = SortRelevance
	case s == "" || (s == SortRelevance && len(terms) == 0):
		s = SortPopularity
	}
	q.Sort = s
	switch {
	case q.Limit < 0:
		return q, nil, invalid("page size must not be negative")
	case q.Limit == 0:
		q.Limit = defaultLimit
	case q.Limit > maxLimit:
		q.Limit = maxLimit
	}
	if q.Offset < 0 {
		return q, nil, invalid("offset must not be negative")
	}
	if q.FacetLimit <= 0 {
		q.FacetLimit = defaultFacetLimit
	}
	return q, terms, nil
}

// cursor is the decoded form of Result.NextCursor: the sort it belongs
// to, the last hit's sort key and its index id.
type cursor struct {
	Sort Sort        `json:"s"`
	Key  json.Number `json:"k,omitempty"`
	Str  string      `json:"t,omitempty"`
	ID   int64       `json:"i"`
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string, sort Sort) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) > 4096 {
		return c, invalid("malformed cursor")
	}
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&c); err != nil {
		return c, invalid("malformed cursor")
	}
	if c.Sort != sort {
		return c, invalid("the cursor belongs to sort %q, not %q", c.Sort, sort)
	}
	if _, err := c.value(sort); err != nil {
		return c, err
	}
	return c, nil
}

// value returns the cursor's sort key as the query argument for sort.
func (c cursor) value(s Sort) (any, error) {
	switch s {
	case SortName, SortNameDesc:
		return c.Str, nil
	case SortRelevance:
		f, err := c.Key.Float64()
		if err != nil {
			return nil, invalid("malformed cursor")
		}
		return f, nil
	}
	i, err := c.Key.Int64()
	if err != nil {
		return nil, invalid("malformed cursor")
	}
	return i, nil
}

// micros converts a time to the index's integer form.
func micros(t time.Time) int64 { return t.UnixMicro() }
