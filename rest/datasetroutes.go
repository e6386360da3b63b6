package rest

import (
	"context"
	"net/http"
)

// datasetRoutes is one versioned dataset kind's routes: the dataset (read
// and delete it) and its versions (list them, create a draft, read one by
// id or as "draft" or "published", delete a draft), written once over the resolvers; each
// kind gives what differs. K is the
// dataset's key in the path (an id, or a catalog item's public id), D and
// V its entity and version types, J a version's JSON in the list.
type datasetRoutes[K comparable, D, V, J any] struct {
	// key reads the dataset's key from the path.
	key func(r *http.Request) (K, error)
	// noun names a dataset in errors ("Layer 12").
	noun func(k K) string
	// load returns the dataset as the caller may see it.
	load func(ctx context.Context, k K) (*D, error)
	// draft and published are its current versions (nil when none).
	draft, published func(ctx context.Context, d *D) (*V, error)
	// byID returns one of its versions by id.
	byID func(ctx context.Context, k K, vid int) (*V, error)
	// list returns its versions the caller may see, newest first.
	list func(ctx context.Context, k K) ([]*V, error)
	// listed is a version's JSON in the list.
	listed func(r *http.Request, d *D, v *V) (J, error)
	// create makes a draft from the published version; restore one from
	// an earlier version.
	create  func(ctx context.Context, k K) (*V, error)
	restore func(ctx context.Context, k K, vid int) (*V, error)
	// write answers with the dataset as of a version, with the Location
	// header pointing at the version when location is set.
	write func(w http.ResponseWriter, r *http.Request, v *V, status int, location bool) error
	// show renders the dataset as its caller sees it (GET on the dataset);
	// viewed, when set, counts that view.
	show   func(r *http.Request, k K) (any, error)
	viewed func(k K)
	// remove deletes the dataset, every version with it; removeVersion
	// deletes one of its drafts.
	remove        func(ctx context.Context, k K) (bool, error)
	removeVersion func(ctx context.Context, k K, vid int) (bool, error)
	// refusal, when set, shapes the errors of the version writes (the
	// specification gives documents' their own body).
	refusal func(error) error
}

// deleteVersion answers DELETE …/versions/{vid}: 204 when the draft is
// gone.
func (k datasetRoutes[K, D, V, J]) deleteVersion(w http.ResponseWriter, r *http.Request) error {
	key, vid, err := k.versionKey(r)
	if err != nil {
		return err
	}
	if _, err := k.removeVersion(r.Context(), key, vid); err != nil {
		if k.refusal != nil {
			err = k.refusal(err)
		}
		return err
	}
	noContent(w)
	return nil
}

// writeAsOf answers with js, a dataset as of one of its versions; with
// location, the Location header points at that version (at).
func writeAsOf(w http.ResponseWriter, js any, at string, status int, location bool) {
	if location {
		w.Header().Set("Location", at)
	}
	writeJSON(w, status, js)
}

// getDataset answers GET on the dataset.
func (k datasetRoutes[K, D, V, J]) getDataset(w http.ResponseWriter, r *http.Request) error {
	key, err := k.key(r)
	if err != nil {
		return err
	}
	js, err := k.show(r, key)
	if err != nil {
		return err
	}
	if k.viewed != nil {
		k.viewed(key)
	}
	writeJSON(w, http.StatusOK, js)
	return nil
}

// deleteDataset answers DELETE on the dataset: 204 when it is gone.
func (k datasetRoutes[K, D, V, J]) deleteDataset(w http.ResponseWriter, r *http.Request) error {
	key, err := k.key(r)
	if err != nil {
		return err
	}
	if _, err := k.remove(r.Context(), key); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// listVersions answers GET …/versions.
func (k datasetRoutes[K, D, V, J]) listVersions(a *API) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		key, err := k.key(r)
		if err != nil {
			return err
		}
		vs, err := k.list(r.Context(), key)
		if err != nil {
			return err
		}
		d, err := k.load(r.Context(), key)
		if err != nil {
			return err
		}
		out := make([]J, 0, len(vs))
		for _, v := range vs {
			js, err := k.listed(r, d, v)
			if err != nil {
				return err
			}
			out = append(out, js)
		}
		return writeList(a, w, r, out)
	}
}

// getVersion answers GET …/versions/{vid}, where vid is an id, "draft"
// or "published".
func (k datasetRoutes[K, D, V, J]) getVersion(w http.ResponseWriter, r *http.Request) error {
	key, err := k.key(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	v, err := pickVersion(r, k.noun(key),
		func(draft bool) (*V, error) {
			d, err := k.load(ctx, key)
			switch {
			case err != nil:
				return nil, err
			case draft:
				return k.draft(ctx, d)
			}
			return k.published(ctx, d)
		},
		func(vid int) (*V, error) { return k.byID(ctx, key, vid) })
	if err != nil {
		return err
	}
	return k.write(w, r, v, http.StatusOK, false)
}

// createDraft answers POST …/versions.
func (k datasetRoutes[K, D, V, J]) createDraft(w http.ResponseWriter, r *http.Request) error {
	key, err := k.key(r)
	if err != nil {
		return err
	}
	v, err := k.create(r.Context(), key)
	if err != nil {
		return err
	}
	return k.write(w, r, v, http.StatusCreated, true)
}

// restoreVersion answers POST …/versions/{vid}/restore: 201 with the
// dataset as of the new draft, which starts as version vid is.
func (k datasetRoutes[K, D, V, J]) restoreVersion(w http.ResponseWriter, r *http.Request) error {
	key, vid, err := k.versionKey(r)
	if err != nil {
		return err
	}
	v, err := k.restore(r.Context(), key, vid)
	if err != nil {
		return err
	}
	return k.write(w, r, v, http.StatusCreated, true)
}

// versionKey reads the dataset's key and the version's id from the path.
func (k datasetRoutes[K, D, V, J]) versionKey(r *http.Request) (K, int, error) {
	key, err := k.key(r)
	if err != nil {
		return key, 0, err
	}
	vid, err := pathID(r, "vid")
	return key, vid, err
}
