package graph

import (
	"context"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// A datasetKind is one versioned dataset kind (layers and tables, sets,
// documents, catalog items) as the lifecycle the four share sees it:
// loading a dataset for a read or a write, its published, draft and
// latest versions, its version list, loading one version. D is the
// dataset's entity, V its version's. The rules are written once, in the
// methods below (and listed, visibleTo and editableBy); each kind gives
// only what differs, in its own file (layers.go, sets.go, documents.go,
// catalogitems.go).
type datasetKind[D, V any] struct {
	// kind is the kind's name in dataset permissions.
	kind access.Kind
	// readScope and writeScope are the token scopes reading and writing a
	// dataset of the kind take.
	readScope, writeScope string
	// query reads dataset id narrowed by visible (Ent's not-found error
	// when it does not pass).
	query func(ctx context.Context, id int, visible func(*entsql.Selector)) (*D, error)
	// title names the kind at the start of an error ("Layer"); name names
	// a dataset there ("Layer 12"), noun within a sentence ("table 12").
	title      string
	name, noun func(d *D) string
	// ids gives a dataset's id and its published version's id (nil when
	// none is published).
	ids func(d *D) (id int, published *int)
	// versionID is a version's id.
	versionID func(v *V) int
	// current returns a dataset's draft and published versions, whoever
	// asks (batched across the datasets of a request).
	current func(ctx context.Context, id int) (currentOf[*V], error)
	// mayEdit reports whether the caller may edit a dataset, and so see
	// its drafts; canEdit answers the same before a write (for some kinds
	// without the request's cache).
	mayEdit, canEdit func(ctx context.Context, d *D) (bool, error)
	// get reads a version by id.
	get func(ctx context.Context, id int) (*V, error)
	// list returns a dataset's versions, newest first: the published and
	// superseded ones, and with drafts when drafts is true.
	list func(ctx context.Context, id int, drafts bool) ([]*V, error)
	// version reads version versionID of dataset id (Ent's not-found
	// error when the dataset has no such version).
	version func(ctx context.Context, id, versionID int) (*V, error)
	// released reports whether a version is published or superseded,
	// which every reader of the dataset may see.
	released func(v *V) bool
}

// load returns dataset id if the caller may read it, else not found; with
// write, if they may edit it, else (to those who see it) permission denied.
func (k datasetKind[D, V]) load(ctx context.Context, c *ent.Client, id int, write bool) (*D, error) {
	if write {
		if _, err := access.RequireUser(ctx, k.writeScope); err != nil {
			return nil, err
		}
	} else if err := access.RequireScope(ctx, k.readScope); err != nil {
		return nil, err
	}
	visible, err := visibleTo[func(*entsql.Selector)](ctx, c, auth.FromContext(ctx), k.kind)
	if err != nil {
		return nil, err
	}
	d, err := k.query(ctx, id, visible)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "%s %d not found.", k.title, id)
	}
	if err != nil || !write {
		return d, err
	}
	if ok, err := k.canEdit(ctx, d); err != nil {
		return nil, err
	} else if !ok {
		return nil, apperr.New(apperr.PermissionDenied, "You need edit permission on %s.", k.noun(d))
	}
	return d, nil
}

// seen returns dataset id to a door that has just read or written it, or
// one of its versions, through a resolver: as load reads it, but with the
// kind's read or write scope alike (a client allowed only to write still
// gets back what it wrote) and without the edit check, which a write made.
func (k datasetKind[D, V]) seen(ctx context.Context, c *ent.Client, id int) (*D, error) {
	p := auth.FromContext(ctx)
	if !p.HasScope(k.readScope) && !p.HasScope(k.writeScope) {
		return nil, apperr.MissingScope(k.readScope)
	}
	visible, err := visibleTo[func(*entsql.Selector)](ctx, c, p, k.kind)
	if err != nil {
		return nil, err
	}
	d, err := k.query(ctx, id, visible)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "%s %d not found.", k.title, id)
	}
	return d, err
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

// draftBase is the version a new draft of d starts from, its published
// one: CONFLICT when d has a draft already (it has one at a time) or has
// never been published.
func (k datasetKind[D, V]) draftBase(ctx context.Context, d *D) (*V, error) {
	if err := k.noDraft(ctx, d); err != nil {
		return nil, err
	}
	pub, err := k.published(ctx, d)
	if err == nil && pub == nil {
		err = apperr.New(apperr.Conflict, "%s has no published version to start a draft from.", k.name(d))
	}
	return pub, err
}

// noDraft refuses, as a conflict, a new draft of d while it has one.
func (k datasetKind[D, V]) noDraft(ctx context.Context, d *D) error {
	v, err := k.draft(ctx, d)
	if err == nil && v != nil {
		err = apperr.New(apperr.Conflict, "%s already has a draft (version %d).", k.name(d), k.versionID(v))
	}
	return err
}

// restoreBase is version versionID of d (loaded for a write) to start a
// draft from, restoring it: a released version (published or
// superseded), while d has no draft.
func (k datasetKind[D, V]) restoreBase(ctx context.Context, d *D, versionID int) (*V, error) {
	// The version first: one of another dataset is not found, whatever
	// the state of this one.
	v, err := k.loadVersion(ctx, d, versionID, true)
	if err != nil {
		return nil, err
	}
	if err := k.noDraft(ctx, d); err != nil {
		return nil, err
	}
	if !k.released(v) {
		return nil, apperr.New(apperr.Conflict, "Version %d was never published: only published and superseded versions are restored.", versionID)
	}
	return v, nil
}

// restore starts the caller's draft of d (loaded for a write) as version
// versionID is (see restoreBase): write is the kind's service writing it,
// as for newDraft.
func (k datasetKind[D, V]) restore(ctx context.Context, d *D, versionID int, write func(ctx context.Context, d *D, from *V, userID int) (int, error)) (*V, error) {
	from, err := k.restoreBase(ctx, d, versionID)
	if err != nil {
		return nil, err
	}
	return k.draftFrom(ctx, d, from, write)
}

// newDraft starts the caller's draft of d (loaded for a write) from the
// version draftBase gives: write is the kind's service writing it. It
// returns the draft as written.
func (k datasetKind[D, V]) newDraft(ctx context.Context, d *D, write func(ctx context.Context, d *D, from *V, userID int) (int, error)) (*V, error) {
	from, err := k.draftBase(ctx, d)
	if err != nil {
		return nil, err
	}
	return k.draftFrom(ctx, d, from, write)
}

// draftFrom writes the caller's draft of d starting as from, through the
// kind's service write, and reads it back.
func (k datasetKind[D, V]) draftFrom(ctx context.Context, d *D, from *V, write func(ctx context.Context, d *D, from *V, userID int) (int, error)) (*V, error) {
	return k.written(ctx)(write(ctx, d, from, auth.FromContext(ctx).User.ID))
}

// written reads back the version a write of the kind's service made,
// given the version id and error the service returned: once its
// transaction has ended, through the resolver's client.
func (k datasetKind[D, V]) written(ctx context.Context) func(versionID int, err error) (*V, error) {
	return func(versionID int, err error) (*V, error) {
		if err != nil {
			return nil, err
		}
		return k.get(ctx, versionID)
	}
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

// loadVersion returns version versionID of d: any of its versions for a
// write (the caller's right to edit d is checked with d), published and
// superseded ones to readers, drafts and deleted drafts to readers who may
// edit d. Others are not found.
func (k datasetKind[D, V]) loadVersion(ctx context.Context, d *D, versionID int, write bool) (*V, error) {
	id, _ := k.ids(d)
	v, err := k.version(ctx, id, versionID)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Version %d not found.", versionID)
	}
	if err != nil {
		return nil, err
	}
	if !write && !k.released(v) {
		if ok, err := k.mayEdit(ctx, d); err != nil {
			return nil, err
		} else if !ok {
			return nil, apperr.New(apperr.NotFound, "Version %d not found.", versionID)
		}
	}
	return v, nil
}

// versionsOf is versions of dataset id, loaded for a read.
func (k datasetKind[D, V]) versionsOf(ctx context.Context, c *ent.Client, id int) ([]*V, error) {
	d, err := k.load(ctx, c, id, false)
	if err != nil {
		return nil, err
	}
	return k.versions(ctx, d)
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

// visibleTo narrows a query of one dataset kind's datasets (P is the kind's
// Ent predicate type) to those p may read (access.Viewer.Visible). Every
// read of a dataset goes through it.
func visibleTo[P ~func(*entsql.Selector)](ctx context.Context, c *ent.Client, p auth.Principal, kind access.Kind) (P, error) {
	v, err := access.NewViewer(ctx, c, p)
	if err != nil {
		return nil, err
	}
	return P(v.Visible(kind)), nil
}

// editableBy narrows a query of one dataset kind's datasets to those p may
// edit (see and change drafts): by a dataset permission of edit or admin,
// as a data editor of the owning group, or as a site administrator. Every
// write of a dataset goes through it.
func editableBy[P ~func(*entsql.Selector)](ctx context.Context, c *ent.Client, p auth.Principal, kind access.Kind) (P, error) {
	v, err := access.NewViewer(ctx, c, p)
	if err != nil {
		return nil, err
	}
	return P(v.Filter(kind, access.Edit)), nil
}

// listed narrows a list of one dataset kind: with drafts, to the datasets
// the caller may edit that have a draft (hasDraft); otherwise to those
// they may read; and when q has terms, to those whose name holds one of
// them (named).
func listed[P ~func(*entsql.Selector)](ctx context.Context, c *ent.Client, kind access.Kind, drafts bool, hasDraft P, q *string, named func(string) P) ([]P, error) {
	p := auth.FromContext(ctx)
	var preds []P
	if drafts {
		edit, err := editableBy[P](ctx, c, p, kind)
		if err != nil {
			return nil, err
		}
		preds = append(preds, edit, hasDraft)
	} else {
		vis, err := visibleTo[P](ctx, c, p, kind)
		if err != nil {
			return nil, err
		}
		preds = append(preds, vis)
	}
	terms, err := searchTerms(q)
	if err != nil {
		return nil, err
	}
	if len(terms) > 0 {
		any := make([]P, 0, len(terms))
		for _, t := range terms {
			any = append(any, named(t))
		}
		preds = append(preds, P(entsql.OrPredicates(any...)))
	}
	return preds, nil
}

// diffVersions are the two versions of d a diff compares (the kart-diff
// rules, as LayerDiffPlan applies them to layers): to, else the published
// version (NOT_FOUND when none is); from, else the latest released
// version older than to (for a draft, the published one), nil when there
// is none. A dataset has one draft at a time, so its versions' ids follow
// their publication. Named versions load as loadVersion reads them:
// drafts only for editors, another dataset's version not found.
func (k datasetKind[D, V]) diffVersions(ctx context.Context, d *D, from, to *int) (older, newer *V, err error) {
	if to != nil {
		newer, err = k.loadVersion(ctx, d, *to, false)
	} else if newer, err = k.published(ctx, d); err == nil && newer == nil {
		err = apperr.New(apperr.NotFound, "%s has no published version: name the version to diff (to).", k.name(d))
	}
	if err != nil {
		return nil, nil, err
	}
	if from != nil {
		older, err = k.loadVersion(ctx, d, *from, false)
		return older, newer, err
	}
	id, _ := k.ids(d)
	released, err := k.list(ctx, id, false)
	if err != nil {
		return nil, nil, err
	}
	for _, v := range released {
		if k.versionID(v) < k.versionID(newer) {
			return v, newer, nil
		}
	}
	return nil, newer, nil
}
