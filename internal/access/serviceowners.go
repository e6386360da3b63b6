package access

import (
	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/dataservices"
)

// LayerOwner describes a layer or table as a service owner.
func LayerOwner(l *ent.Layer) ServiceOwner {
	typ := dataservices.Layer
	if l.Type == layer.TypeTable {
		typ = dataservices.Table
	}
	return ServiceOwner{Kind: KindLayer, Type: typ, ID: l.ID, Group: l.GroupID, Published: l.PublishedVersionID != nil}
}

// SetOwner describes a set as a service owner.
func SetOwner(s *ent.Set) ServiceOwner {
	return ServiceOwner{Kind: KindSet, Type: dataservices.Set, ID: s.ID, Group: s.GroupID, Published: s.PublishedVersionID != nil}
}

// CatalogItemOwner describes a catalog item as a service owner.
func CatalogItemOwner(it *ent.CatalogItem) ServiceOwner {
	return ServiceOwner{Kind: KindCatalogItem, Type: dataservices.CatalogItem, ID: it.ID, Group: it.GroupID,
		Published: it.PublishedVersionID != nil}
}
