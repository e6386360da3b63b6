package graph

import (
	"context"

	"github.com/geopub/geopub/internal/apperr"
)

// A datasetKind is one versioned dataset kind (layers and tables, sets,
// documents, catalog items) as the resolvers of the version fields the
// four share see it: D is the dataset's entity, V its version's. The rules
// are written once, in the methods below; each kind gives only what
// differs, in its own file (layers.go, sets.go, documents.go,
// catalogitems.go).
type datasetKind[D, V any] struct {
	// name names a dataset in errors ("Layer 12").
	name func(d *D) string
	// ids gives a dataset's id and its published version's id (nil when
	// none is published).
	ids func(d *D) (id int, published *int)
	// versionID is a version's id.
	versionID func(v *V) int
	// current returns a dataset's draft and published versions, whoever
	// asks (batched across the datasets of a request).
	current func(ctx context.Context, id int) (currentOf[*V], error)
	// mayEdit reports whether the caller may edit a dataset, and so see
	// its drafts.
	mayEdit func(ctx context.Context, d *D) (bool, error)
	// get reads a version by id.
	get func(ctx context.Context, id int) (*V, error)
	// list returns a dataset's versions, newest first: the published and
	// superseded ones, and with drafts when drafts is true.
	list func(ctx context.Context, id int, drafts bool) ([]*V, error)
}

// published is d's published version, nil when none is.
func (k datasetKind[D, V]) published(ctx context.Context, d *D) (*V, error) {
	id, pub := k.ids(d)
	if pub == nil {
		return nil, nil
	}
	cv, err := k.current(ctx, id)
	if err != nil || (cv.published != nil && k.versionID(cv.published) == *pub) {
		return cv.published, err
	}
	// Published since the batch read the versions.
	return k.get(ctx, *pub)
}

// draft is d's draft for those who may edit d, nil for everyone else and
// when there is none.
func (k datasetKind[D, V]) draft(ctx context.Context, d *D) (*V, error) {
	id, _ := k.ids(d)
	cv, err := k.current(ctx, id)
	if err != nil || cv.draft == nil {
		return nil, err
	}
	if ok, err := k.mayEdit(ctx, d); err != nil || !ok {
		return nil, err
	}
	return cv.draft, nil
}

// latest is the draft the caller may see, else the published version; a
// dataset with neither is not found.
func (k datasetKind[D, V]) latest(ctx context.Context, d *D) (*V, error) {
	if v, err := k.draft(ctx, d); v != nil || err != nil {
		return v, err
	}
	v, err := k.published(ctx, d)
	if v == nil && err == nil {
		err = apperr.New(apperr.NotFound, "%s has no version.", k.name(d))
	}
	return v, err
}

// versions are d's versions the caller may see, newest first: drafts only
// for those who may edit d.
func (k datasetKind[D, V]) versions(ctx context.Context, d *D) ([]*V, error) {
	ok, err := k.mayEdit(ctx, d)
	if err != nil {
		return nil, err
	}
	id, _ := k.ids(d)
	return k.list(ctx, id, ok)
}
