package graph

import (
	"context"
	"sync"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/metadata"
	"github.com/geopub/geopub/internal/sets"
)

// setLoader batches the per-set lookups of a request (the caller's right
// to edit, the current versions, the members), so a list of sets with
// their members costs a constant number of statements. List resolvers
// register what they return; the first lookup loads every registered one.
type setLoader struct {
	mu sync.Mutex
	// sets and versions registered and not loaded yet.
	pendingSets     map[int]struct{}
	pendingVersions map[int]struct{}
	// whether the caller may edit a set.
	editableSets map[int]bool
	// the draft and published version of a set.
	current map[int]currentOf[*ent.SetVersion]
	// the visible members of a version, in order.
	members map[int][]*ent.Layer
	// the metadata document of a version (nil: none).
	docs map[int]*ent.MetadataDocument
}

func (l *setLoader) init() {
	if l.pendingSets == nil {
		l.pendingSets = map[int]struct{}{}
		l.pendingVersions = map[int]struct{}{}
		l.editableSets = map[int]bool{}
		l.current = map[int]currentOf[*ent.SetVersion]{}
		l.members = map[int][]*ent.Layer{}
		l.docs = map[int]*ent.MetadataDocument{}
	}
}

// registerSets remembers sets a list returned.
func (l *setLoader) registerSets(ss []*ent.Set) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	for _, s := range ss {
		l.pendingSets[s.ID] = struct{}{}
	}
}

// registerVersions remembers set versions a list returned.
func (l *setLoader) registerVersions(vs []*ent.SetVersion) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	for _, v := range vs {
		l.pendingVersions[v.ID] = struct{}{}
	}
}

// forget drops what was loaded, after a write.
func (l *setLoader) forget() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pendingSets = nil
	l.init()
}

// batchOf returns id plus the pending ids not loaded yet.
func batchOf(id int, pending map[int]struct{}, loaded func(int) bool) []int {
	ids := []int{id}
	for p := range pending {
		if p != id && !loaded(p) {
			ids = append(ids, p)
		}
	}
	return ids
}

// cachedBatch returns cache[id]. When it is missing, load fetches id and
// every pending id not cached yet in one batch; the ids load returns
// nothing for are cached as the zero value. The caller holds l.mu.
func cachedBatch[T any](cache map[int]T, id int, pending map[int]struct{}, load func(ids []int) (map[int]T, error)) (T, error) {
	if v, ok := cache[id]; ok {
		return v, nil
	}
	ids := batchOf(id, pending, func(p int) bool { _, ok := cache[p]; return ok })
	found, err := load(ids)
	if err != nil {
		var zero T
		return zero, err
	}
	for _, p := range ids {
		cache[p] = found[p]
	}
	return cache[id], nil
}

// editable reports whether the caller may edit set id (setEditable).
func (l *setLoader) editable(ctx context.Context, c *ent.Client, id int) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	return cachedBatch(l.editableSets, id, l.pendingSets, func(ids []int) (map[int]bool, error) {
		pred, err := setEditable(ctx, c, auth.FromContext(ctx))
		if err != nil {
			return nil, err
		}
		yes, err := c.Set.Query().Where(set.IDIn(ids...), pred).IDs(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[int]bool, len(yes))
		for _, s := range yes {
			out[s] = true
		}
		return out, nil
	})
}

// versions returns the draft and published versions of set id, whoever
// asks: callers hide drafts from readers.
func (l *setLoader) versions(ctx context.Context, c *ent.Client, id int) (currentOf[*ent.SetVersion], error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	return cachedBatch(l.current, id, l.pendingSets, func(ids []int) (map[int]currentOf[*ent.SetVersion], error) {
		vs, err := c.SetVersion.Query().
			Where(setversion.SetIDIn(ids...), setversion.StateIn(setversion.StateDraft, setversion.StatePublished)).All(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[int]currentOf[*ent.SetVersion], len(ids))
		for _, v := range vs {
			cv := out[v.SetID]
			if v.State == setversion.StateDraft {
				cv.draft = v
			} else {
				cv.published = v
			}
			out[v.SetID] = cv
			// Their members are likely wanted next: load them in the same batch.
			l.pendingVersions[v.ID] = struct{}{}
		}
		return out, nil
	})
}

// items returns the members of version id the caller may see, in order.
func (l *setLoader) items(ctx context.Context, c *ent.Client, id int) ([]*ent.Layer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	return cachedBatch(l.members, id, l.pendingVersions, func(ids []int) (map[int][]*ent.Layer, error) {
		vis, err := layerVisible(ctx, c, auth.FromContext(ctx))
		if err != nil {
			return nil, err
		}
		return sets.Members(ctx, c, ids, vis)
	})
}

// metadata returns the metadata document of version id, or nil: a page of
// sets, each rendered with its document's URLs, costs one statement.
func (l *setLoader) metadata(ctx context.Context, c *ent.Client, id int) (*ent.MetadataDocument, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	return cachedBatch(l.docs, id, l.pendingVersions, func(ids []int) (map[int]*ent.MetadataDocument, error) {
		return metadataByVersion(ctx, c, metadata.KindSet, ids)
	})
}
