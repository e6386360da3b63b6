package graph

import (
	"context"
	"sync"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/metadatadocument"
	"github.com/geopub/geopub/internal/auth"
)

// layerLoader batches the per-layer lookups of a list (the current
// versions, the caller's right to edit, the versions' metadata), so a page
// of layers or tables costs a constant number of statements. Only layers a
// list registered are batched and remembered: other lookups go to the
// database as they come, so a request that writes a layer never reads a
// remembered answer from before its write.
type layerLoader struct {
	mu sync.Mutex
	// layers and versions registered by lists.
	layers, versions map[int]struct{}
	// the draft and published version of a layer.
	current map[int]currentLayerVersions
	// whether the caller may edit a layer.
	editable map[int]bool
	// the metadata document of a version (nil: none).
	docs map[int]*ent.MetadataDocument
}

// currentLayerVersions are a layer's draft and published versions (nil
// when absent).
type currentLayerVersions struct{ draft, published *ent.LayerVersion }

func (l *layerLoader) init() {
	if l.layers == nil {
		l.layers, l.versions = map[int]struct{}{}, map[int]struct{}{}
		l.current = map[int]currentLayerVersions{}
		l.editable = map[int]bool{}
		l.docs = map[int]*ent.MetadataDocument{}
	}
}

// register remembers layers a list returned.
func (l *layerLoader) register(ls []*ent.Layer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	for _, ly := range ls {
		l.layers[ly.ID] = struct{}{}
	}
}

// lookup answers id from cache, loading every registered id with it; ids
// no list registered are loaded alone and not remembered.
func lookup[T any](l *layerLoader, registered map[int]struct{}, cache map[int]T, id int, load func(ids []int) (map[int]T, error)) (T, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	if _, ok := registered[id]; !ok {
		found, err := load([]int{id})
		return found[id], err
	}
	return cachedBatch(cache, id, registered, load)
}

// currentVersions returns the draft and published versions of layer id,
// whoever asks: callers hide drafts from readers.
func (l *layerLoader) currentVersions(ctx context.Context, c *ent.Client, id int) (currentLayerVersions, error) {
	return lookup(l, l.layers, l.current, id, func(ids []int) (map[int]currentLayerVersions, error) {
		vs, err := c.LayerVersion.Query().
			Where(layerversion.LayerIDIn(ids...), layerversion.StateIn(layerversion.StateDraft, layerversion.StatePublished)).All(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[int]currentLayerVersions, len(ids))
		for _, v := range vs {
			cv := out[v.LayerID]
			if v.State == layerversion.StateDraft {
				cv.draft = v
			} else {
				cv.published = v
			}
			out[v.LayerID] = cv
			if len(ids) > 1 {
				// Their metadata is likely wanted next: batch it too.
				l.versions[v.ID] = struct{}{}
			}
		}
		return out, nil
	})
}

// mayEdit reports whether the caller may edit layer id (layerEditable).
func (l *layerLoader) mayEdit(ctx context.Context, c *ent.Client, id int) (bool, error) {
	return lookup(l, l.layers, l.editable, id, func(ids []int) (map[int]bool, error) {
		pred, err := layerEditable(ctx, c, auth.FromContext(ctx))
		if err != nil {
			return nil, err
		}
		yes, err := c.Layer.Query().Where(layer.IDIn(ids...), pred).IDs(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[int]bool, len(yes))
		for _, y := range yes {
			out[y] = true
		}
		return out, nil
	})
}

// metadata returns the metadata document of layer version id, or nil.
func (l *layerLoader) metadata(ctx context.Context, c *ent.Client, id int) (*ent.MetadataDocument, error) {
	return lookup(l, l.versions, l.docs, id, func(ids []int) (map[int]*ent.MetadataDocument, error) {
		ds, err := c.MetadataDocument.Query().
			Where(metadatadocument.DatasetKind(metadataKindLayer), metadatadocument.VersionIDIn(ids...)).All(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[int]*ent.MetadataDocument, len(ds))
		for _, d := range ds {
			out[d.VersionID] = d
		}
		return out, nil
	})
}
