package rest

import (
	"net/http"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apidoc"
)

// deprecationOps documents marking each kind of dataset deprecated and
// clearing the mark.
func deprecationOps(ops *[]*apidoc.Operation) {
	for _, b := range datasetBases {
		if b.typ == graph.DatasetTypeSource {
			continue
		}
		d := docs{ops: ops, tag: "Deprecation", read: b.read, write: b.write}
		p := b.member() + "/deprecate"
		d.op(http.MethodPost, p, "Deprecate the "+noun(b)).Private().
			Describe("Marks it as no longer to be used, with a reason (required, at most 1000 characters) and optionally the "+
				"dataset replacing it ({type: layer, table, set, document or item, id}), which the caller must see and which "+
				"is not itself. Its data stays readable; its JSON shows the notice as deprecated. Marking it again replaces "+
				"the reason and replacement and keeps when it was first marked. The first marking of a published dataset is "+
				"a dataset.deprecated event of the change feed. Needs edit permission on it.").
			AcceptsJSON(deprecateBody{}).ReturnsJSON(200, "The "+noun(b)+", deprecated.", datasetDocJSON(b.typ))
		d.op(http.MethodDelete, p, "Undeprecate the "+noun(b)).Private().
			Describe("Clears its deprecation notice; done also when it is not deprecated. Needs edit permission on it.").
			NoContent("Not deprecated.")
	}
}

// datasetDocJSON is the JSON of a dataset of type t, for the reference.
func datasetDocJSON(t graph.DatasetType) any {
	switch t {
	case graph.DatasetTypeSet:
		return setJSON{}
	case graph.DatasetTypeDocument:
		return documentDetail{}
	case graph.DatasetTypeCatalogItem:
		return itemJSON{}
	}
	return layerJSON{}
}
