// Package search is the catalogue's search engine: free text, filters,
// facets, sorting and keyset paging over every dataset (layers, tables,
// sets, documents, catalog items and sources), each indexed as a Doc.
//
// The rules it implements (spec "Conventions for list endpoints", issue 13):
//
//   - Q is free text over title, description, tags, categories, geotag
//     names, publisher (group and user) names, field names and the member
//     titles of sets. Any term matches (terms are OR-ed); a document that
//     matches more terms ranks higher; the title weighs most, then tags,
//     categories and geotags, then description and publisher, then field
//     names and member titles. Terms are stemmed (English), and the last
//     term also matches as a prefix (type-ahead). Q is split into plain
//     words: quotes, `*`, `^`, `-`, `:` and parentheses separate words,
//     and AND, OR, NOT and NEAR are words like any other.
//   - Filters: repeated values of one filter are OR-ed, different filters
//     are AND-ed. A category matches itself and its descendants
//     ("parent" matches "parent/child"). A license type written "-x"
//     excludes x.
//   - With Q and no sort, results are ordered by relevance; otherwise by
//     the sort (popularity by default), always with the doc's index id as
//     the tie-breaker, so the order is total and keyset paging (Cursor) is
//     exact: no duplicates and no gaps across pages, and a deep page costs
//     what the first one does.
//   - Facets count the whole filtered result, regardless of paging.
//   - Permissions are applied at query time, by the rule of
//     internal/access (Viewer.GrantHolders, Viewer.OwnerLevels) over the
//     grants of dataset_permissions as the view holds them: a permission
//     change needs no reindex, and a doc the caller may not see is absent
//     from the results, the total and every facet count. Published docs
//     need view; a latest doc whose version is not published (a draft)
//     needs edit. "public" is everyone holding at least view.
//
// The Index interface is the only seam between callers and the engine.
// The truth is in the database: search_docs and its child tables, written
// by Put and Delete in the caller's transaction, so the index changes
// with the write it reflects. Searches are evaluated in memory, over each
// process's view of those tables and of the grants (memview.go), which a
// trigger-fed change log keeps current before every search (memview.go,
// memload.go). The view holds each doc compactly (dictionary ids, one
// slice of multi-valued ids) and three indexes over the docs' slots:
//
//   - the text index, an inverted index ranked by BM25 over weighted
//     fields (memtext.go);
//   - one compressed (roaring) bitmap per filter value: state, type,
//     kind, status, licence, geometry, source type, each tag, category
//     (filed under its ancestors too), geotag and band, each group and
//     publishing user, the flags, each raster resolution, and the docs
//     whose grants give everyone, or one grant holder, view and edit
//     (membitmaps.go). A query's filters and permission rule are unions
//     and intersections of these (memmatch.go), its text matches a
//     bitmap of the postings the filters kept, its facets the
//     cardinalities of its intersection with each value's bitmap
//     (memfacetbits.go; a small result is counted doc by doc,
//     memfacets.go);
//   - for each sort but relevance, every slot in the sort's order
//     (memorder.go): a page of a large result walks the order from the
//     cursor's place and keeps what the result's bitmap holds; a small
//     result, or relevance, is ranked by a bounded heap (memquery.go).
//
// A change is applied doc by doc: the doc leaves its postings, bitmaps
// and places in the orders and joins the new ones (a grant change
// refiles its dataset's docs), so a reindex is seen by the next search
// at a cost independent of the catalogue's size but for the orders'
// memmove.
//
// Adding an external engine (OpenSearch) later: implement Index with Put
// and Delete as they are (the change log's triggers already record every
// write, which a forwarder can ship to the engine), and Search
// translating Query into the engine's query DSL with the permission rule
// expressed as a terms filter on the doc's (perm kind, perm id, group)
// against the viewer's grants; keyset paging maps to search_after on
// (sort key, id). Callers (REST, GraphQL) do not change.
package search

import (
	"fmt"
	"time"
)

// Type is what a doc is, as the catalogue lists it.
type Type string

// The doc types.
const (
	TypeLayer    Type = "layer"
	TypeTable    Type = "table"
	TypeSet      Type = "set"
	TypeDocument Type = "document"
	TypeItem     Type = "item"
	TypeSource   Type = "source"
)

// State says which version of a dataset a doc describes.
type State string

// The doc states: the published version (listed by /data/) and the latest
// one, whatever its status (listed by /data/latest/).
const (
	Published State = "published"
	Latest    State = "latest"
)

// Ref names one doc: a dataset and which of its versions.
type Ref struct {
	Type  Type
	ID    int
	State State
}

// String formats r as "type:id:state".
func (r Ref) String() string { return fmt.Sprintf("%s:%d:%s", r.Type, r.ID, r.State) }

// Valid reports whether r names a known type and state.
func (r Ref) Valid() bool {
	switch r.Type {
	case TypeLayer, TypeTable, TypeSet, TypeDocument, TypeItem, TypeSource:
	default:
		return false
	}
	return r.ID > 0 && (r.State == Published || r.State == Latest)
}

// KeyName is a keyed value with a display name: a category ("parent/child"
// key) or a geotag.
type KeyName struct {
	Key  string
	Name string
}

// Doc is what the index holds about one dataset version.
type Doc struct {
	Ref Ref
	// Kind refines Type: vector, raster, grid, attribute-grid, pointcloud,
	// table, set, document, item, source.
	Kind        string
	Title       string
	Description string
	// VersionStatus is the status of the version described (published,
	// draft, importing, ...). Published docs always have "published".
	VersionStatus string
	Tags          []string
	// Categories are hierarchical keys ("parent/child"); the index also
	// files the doc under each ancestor.
	Categories []KeyName
	Geotags    []KeyName
	// Publisher: the owning group (GroupID 0 when a user owns the dataset)
	// and the publishing user.
	GroupID   int
	GroupName string
	UserID    int
	UserName  string
	// FieldNames are the attribute names of layers and tables.
	FieldNames []string
	// MemberTitles are the titles of a set's members.
	MemberTitles []string
	// SourceType is a source's type (upload, url, wfs, ...); "" for
	// other docs.
	SourceType     string
	LicenseType    string
	LicenseVersion string
	// GeometryType is point, linestring or polygon for vector layers.
	GeometryType     string
	HasZ             bool
	HasPK            bool
	RasterResolution *float64
	RasterBands      []string
	IsImagery        *bool
	CreatedAt        time.Time
	UpdatedAt        time.Time
	FirstPublishedAt *time.Time
	// Popularity is views plus downloads.
	Popularity int64
	// PermKind and PermID name the dataset as dataset_permissions does
	// (layers and tables share the kind "layer"); the owning group is
	// GroupID. Visibility is computed from them at query time.
	PermKind string
	PermID   int
}
