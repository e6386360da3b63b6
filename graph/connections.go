package graph

import (
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/paging"
	"github.com/geopub/geopub/internal/textrules"
)

// boundConnection applies the list caps to a Relay connection's first and
// last: the default page size when neither is given, and an error above
// the cap, so no connection is unbounded. It also checks the text of the
// connection's where filter by textrules.Filter.
func boundConnection(first, last *int, where any) (*int, *int, error) {
	if err := textrules.Filter("where", where); err != nil {
		return nil, nil, err
	}
	for name, v := range map[string]*int{"first": first, "last": last} {
		if v != nil && *v > paging.MaxSize {
			return nil, nil, apperr.Field(name, "At most 200 items per page.")
		}
	}
	if first == nil && last == nil {
		n := paging.DefaultSize
		first = &n
	}
	return first, last, nil
}
