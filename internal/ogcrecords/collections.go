package ogcrecords

import (
	"strconv"
	"strings"

	"github.com/geopub/geopub/internal/catalogrecords"
)

// CatalogueID is the collection of every record the caller may see.
const CatalogueID = "catalogue"

// groupPrefix starts the id of a group's collection ("group-3").
const groupPrefix = "group-"

// Collection is one catalogue view.
type Collection struct {
	ID          string
	Title       string
	Description string
	// GroupID is the publishing group of a group's collection, 0 for the
	// whole catalogue; GroupName is its name.
	GroupID   int
	GroupName string
}

// Catalogue is the collection of the whole catalogue.
func Catalogue() Collection {
	return Collection{ID: CatalogueID, Title: "Catalogue",
		Description: "Every published dataset you may see: layers, tables, sets, documents and catalog items."}
}

// GroupCollection is the collection of what group id (named name)
// publishes.
func GroupCollection(id int, name string) Collection {
	return Collection{ID: groupPrefix + strconv.Itoa(id), Title: name, GroupID: id, GroupName: name,
		Description: "The published datasets of " + name + "."}
}

// ParseCollectionID reads a collection id: the catalogue (group 0) or a
// group's; ok is false for anything else.
func ParseCollectionID(s string) (group int, ok bool) {
	if s == CatalogueID {
		return 0, true
	}
	num, found := strings.CutPrefix(s, groupPrefix)
	if !found {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || strconv.Itoa(n) != num {
		return 0, false
	}
	return n, true
}

// Restrict narrows q to c: for a group, the records it owns.
func (c Collection) Restrict(q *catalogrecords.Query) {
	if c.GroupID != 0 {
		q.GroupIDs = []int{c.GroupID}
	}
}
