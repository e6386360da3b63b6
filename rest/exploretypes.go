package rest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/search"
)

// Explore sections' item_type (api-shapes §10.1): the desktop plugin
// asks item_type=layer.* and opens every item as layers/{id}/, so a
// panel holds only what item_type names. A value is <type>.<kind> or
// <type>.*: layer.* (or layer) is layers and tables, layer.vector vector layers,
// layer.table tables; set.*, document.* and item.* name the other
// datasets. Items are labelled the same way (layer.vector, set.set).
// Without item_type, panels hold every dataset type; sources, which
// are not datasets, never appear.

// exploreKinds maps each kind a panel may list to the doc type holding
// it, under the item_type prefix that names it.
var exploreKinds = map[string]struct {
	prefix string
	typ    search.Type
}{
	"vector": {"layer", search.TypeLayer}, "raster": {"layer", search.TypeLayer}, "grid": {"layer", search.TypeLayer},
	"attribute-grid": {"layer", search.TypeLayer}, "pointcloud": {"layer", search.TypeLayer},
	"table": {"layer", search.TypeTable}, "set": {"set", search.TypeSet},
	"document": {"document", search.TypeDocument}, "item": {"item", search.TypeItem},
}

// itemTypes is a parsed item_type: the doc types and the kinds it keeps.
type itemTypes struct {
	types []search.Type
	kinds []string
}

// parseItemTypes reads the repeated item_type parameter; a value naming
// no type or kind is a 400 naming the parameter.
func parseItemTypes(q query) (itemTypes, error) {
	var it itemTypes
	vals := q.all("item_type")
	if len(vals) == 0 {
		it.types = []search.Type{search.TypeLayer, search.TypeTable, search.TypeSet, search.TypeDocument, search.TypeItem}
		for k := range exploreKinds {
			it.kinds = append(it.kinds, k)
		}
		slices.Sort(it.kinds)
		return it, nil
	}
	for _, v := range vals {
		prefix, kind, dotted := strings.Cut(v, ".")
		if !dotted {
			kind = "*" // a bare type: all its kinds
		}
		matched := false
		for k, owner := range exploreKinds {
			if owner.prefix == prefix && (kind == "*" || kind == k) {
				matched = true
				it.kinds = appendOnce(it.kinds, k)
				if !slices.Contains(it.types, owner.typ) {
					it.types = append(it.types, owner.typ)
				}
			}
		}
		if !matched {
			return it, apperr.Field("item_type", fmt.Sprintf("%q is not an item type: give layer.*, layer.<kind> (vector, raster, grid, attribute-grid, pointcloud, table), set.*, document.* or item.*.", clipValue(v)))
		}
	}
	slices.Sort(it.kinds)
	return it, nil
}

// panel narrows a panel's kinds (nil: any) to those item_type keeps;
// none left means the panel is not shown.
func (it itemTypes) panel(kinds []string) []string {
	if kinds == nil {
		return it.kinds
	}
	var out []string
	for _, k := range kinds {
		if slices.Contains(it.kinds, k) {
			out = append(out, k)
		}
	}
	return out
}

// exploreItemKind labels an item as item_type names it: layer.vector,
// layer.table, set.set, ...
func exploreItemKind(h search.Hit) string {
	kind := strings.ToLower(h.Kind)
	if kind == "" {
		kind = string(h.Ref.Type)
	}
	if owner, ok := exploreKinds[kind]; ok {
		return owner.prefix + "." + kind
	}
	return string(h.Ref.Type) + "." + kind
}

// clipValue shortens a value quoted back in an error.
func clipValue(v string) string {
	if r := []rune(v); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return v
}
