package rest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
)

// ticketedItem is how ticketed_object.type names catalog items.
const ticketedItem = "catalog item"

// ticketedPaths are the web paths of each kind of ticketed object.
var ticketedPaths = map[string]string{
	"layer": "layers", "table": "tables", "document": "documents", "set": "sets", ticketedItem: "items",
}

// ticketedID is how REST names a ticketed object of kind typ: catalog
// items by their public id (c12), as their own URLs do; the others by
// number.
func ticketedID(typ string, id int) any {
	if typ == ticketedItem {
		return graph.ItemPublicID(id)
	}
	return id
}

// parseTicketedID reads a ticketed object's id as clients send it: a
// number, or for catalog items their public id (c12) too. field names the
// parameter in the 400 for anything else.
func parseTicketedID(typ, ref, field string) (int, error) {
	ref = strings.TrimSpace(ref)
	if typ == ticketedItem && strings.HasPrefix(ref, "c") {
		id, err := graph.ParseItemID(ref)
		if err != nil {
			return 0, apperr.Field(field, fmt.Sprintf("%q is not a catalog item id such as c12.", ref))
		}
		return id, nil
	}
	n, err := strconv.Atoi(ref)
	if err != nil {
		return 0, apperr.Field(field, fmt.Sprintf("A valid integer is required, not %q.", ref))
	}
	return n, nil
}
