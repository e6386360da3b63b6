package access

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/auth"
)

// UseSource is the level on a source that making a dataset (a layer, a
// table, a document) from its datasources needs.
const UseSource = Download

// SourcesHeld narrows a source query to the sources p holds at least min
// on (KindSource levels); none for anonymous callers.
func SourcesHeld(ctx context.Context, c *ent.Client, p auth.Principal, min Level) (predicate.Source, error) {
	if !p.Authenticated() {
		return source.IDLT(0), nil
	}
	v, err := NewViewer(ctx, c, p)
	if err != nil {
		return nil, err
	}
	return predicate.Source(v.Filter(KindSource, min)), nil
}
