package graph

import (
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/paging"
)

// boundConnection applies the list caps to a Relay connection's first and
// last: the default page size when neither is given, and an error above
// the cap, so no connection is unbounded.
func boundConnection(first, last *int) (*int, *int, error) {
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
