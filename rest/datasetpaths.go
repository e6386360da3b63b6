package rest

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/auth"
)

// datasetBase is a dataset collection whose members take sub-resources
// shared by several dataset types (permissions, services): the dataset
// type it holds, the scopes of its reads and writes, and how its URLs name
// a member. Catalog items are named by their public id (c12), the others
// by their number.
type datasetBase struct {
	path        string
	typ         graph.DatasetType
	read, write string
}

// datasetBases are the dataset collections with permission lists; all but
// documents and sources also have services. Sources are not datasets but
// take the same permission levels.
var datasetBases = []datasetBase{
	{"/layers", graph.DatasetTypeLayer, auth.ScopeLayersRead, auth.ScopeLayersWrite},
	{"/tables", graph.DatasetTypeTable, auth.ScopeLayersRead, auth.ScopeLayersWrite},
	{"/documents", graph.DatasetTypeDocument, auth.ScopeDocumentsRead, auth.ScopeDocumentsWrite},
	{"/sets", graph.DatasetTypeSet, auth.ScopeSetsRead, auth.ScopeSetsWrite},
	{"/items", graph.DatasetTypeCatalogItem, auth.ScopeCatalog, auth.ScopeItemsWrite},
	{"/sources", graph.DatasetTypeSource, auth.ScopeSourcesRead, auth.ScopeSourcesWrite},
}

// baseOf returns the collection of dataset type t.
func baseOf(t graph.DatasetType) datasetBase {
	for _, b := range datasetBases {
		if b.typ == t {
			return b
		}
	}
	panic("rest: no collection holds " + string(t))
}

// member is the route pattern of one dataset of the collection.
func (b datasetBase) member() string {
	if b.typ == graph.DatasetTypeCatalogItem {
		return itemPath
	}
	return b.path + "/{id:[0-9]+}"
}

// id reads the dataset id of a request routed through member.
func (b datasetBase) id(r *http.Request) (int, error) {
	if b.typ == graph.DatasetTypeCatalogItem {
		return graph.ParseItemID(chi.URLParam(r, "cid"))
	}
	return pathID(r, "id")
}

// ref is the path of dataset id relative to the API root, without a
// trailing slash: layers/12, items/c12.
func (b datasetBase) ref(id int) string {
	if b.typ == graph.DatasetTypeCatalogItem {
		return "items/" + graph.ItemPublicID(id)
	}
	return b.path[1:] + "/" + strconv.Itoa(id)
}
