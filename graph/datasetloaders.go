package graph

import (
	"context"
	"sync"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/metadatadocument"
	"github.com/geopub/geopub/internal/auth"
)

// datasetLoader batches the per-dataset lookups of a list of versioned
// datasets (the current versions, the caller's right to edit, the
// versions' metadata), so a page of layers, tables or documents costs a
// constant number of statements. Only datasets a list registered are
// batched and remembered: other lookups go to the database as they come,
// so a request that writes a dataset never reads a remembered answer from
// before its write. V is the dataset's version type.
type datasetLoader[V any] struct {
	mu sync.Mutex
	// datasets and versions registered by lists.
	datasets, versions map[int]struct{}
	// the draft and published version of a dataset.
	current map[int]currentOf[V]
	// whether the caller may edit a dataset.
	editable map[int]bool
	// the metadata document of a version (nil: none).
	docs map[int]*ent.MetadataDocument
}

// currentOf are a dataset's draft and published versions (nil when
// absent).
type currentOf[V any] struct{ draft, published V }

func (l *datasetLoader[V]) init() {
	if l.datasets == nil {
		l.datasets, l.versions = map[int]struct{}{}, map[int]struct{}{}
		l.current = map[int]currentOf[V]{}
		l.editable = map[int]bool{}
		l.docs = map[int]*ent.MetadataDocument{}
	}
}

// register remembers the datasets a list returned; id reads a dataset's id.
func register[V, D any](l *datasetLoader[V], ds []D, id func(D) int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	for _, d := range ds {
		l.datasets[id(d)] = struct{}{}
	}
}

// byDataset sorts versions into their datasets' draft and published;
// of reads a version's dataset, its own id and whether it is the draft.
// When a list asked (more than one dataset), the versions are registered:
// their metadata is likely wanted next. It runs with l.mu held.
func (l *datasetLoader[V]) byDataset(ids []int, vs []V, of func(V) (dataset, version int, draft bool)) map[int]currentOf[V] {
	out := make(map[int]currentOf[V], len(ids))
	for _, v := range vs {
		dataset, version, draft := of(v)
		cv := out[dataset]
		if draft {
			cv.draft = v
		} else {
			cv.published = v
		}
		out[dataset] = cv
		if len(ids) > 1 {
			l.versions[version] = struct{}{}
		}
	}
	return out
}

// lookup answers id from cache, loading every registered id with it; ids
// no list registered are loaded alone and not remembered. load runs with
// l.mu held.
func lookup[V, T any](l *datasetLoader[V], registered func() map[int]struct{}, cache func() map[int]T, id int, load func(ids []int) (map[int]T, error)) (T, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.init()
	if _, ok := registered()[id]; !ok {
		found, err := load([]int{id})
		return found[id], err
	}
	return cachedBatch(cache(), id, registered(), load)
}

func (l *datasetLoader[V]) currentVersions(id int, load func(ids []int) (map[int]currentOf[V], error)) (currentOf[V], error) {
	return lookup(l, func() map[int]struct{} { return l.datasets }, func() map[int]currentOf[V] { return l.current }, id, load)
}

func (l *datasetLoader[V]) mayEdit(id int, load func(ids []int) (map[int]bool, error)) (bool, error) {
	return lookup(l, func() map[int]struct{} { return l.datasets }, func() map[int]bool { return l.editable }, id, load)
}

func (l *datasetLoader[V]) metadata(ctx context.Context, c *ent.Client, kind string, id int) (*ent.MetadataDocument, error) {
	return lookup(l, func() map[int]struct{} { return l.versions }, func() map[int]*ent.MetadataDocument { return l.docs }, id,
		func(ids []int) (map[int]*ent.MetadataDocument, error) { return metadataByVersion(ctx, c, kind, ids) })
}

// metadataByVersion loads the metadata documents of versions of one kind
// of dataset, by version id.
func metadataByVersion(ctx context.Context, c *ent.Client, kind string, ids []int) (map[int]*ent.MetadataDocument, error) {
	ds, err := c.MetadataDocument.Query().
		Where(metadatadocument.DatasetKind(kind), metadatadocument.VersionIDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[int]*ent.MetadataDocument, len(ds))
	for _, d := range ds {
		out[d.VersionID] = d
	}
	return out, nil
}

// idSet turns the ids a predicate query returned into a set.
func idSet(ids []int, err error) (map[int]bool, error) {
	out := make(map[int]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, err
}

// layerLoader is the datasetLoader of layers and tables.
type layerLoader struct {
	datasetLoader[*ent.LayerVersion]
}

func (l *layerLoader) registerLayers(ls []*ent.Layer) {
	register(&l.datasetLoader, ls, func(x *ent.Layer) int { return x.ID })
}

// layerVersions returns the draft and published versions of layer id,
// whoever asks: callers hide drafts from readers.
func (l *layerLoader) layerVersions(ctx context.Context, c *ent.Client, id int) (currentOf[*ent.LayerVersion], error) {
	return l.currentVersions(id, func(ids []int) (map[int]currentOf[*ent.LayerVersion], error) {
		vs, err := c.LayerVersion.Query().
			Where(layerversion.LayerIDIn(ids...), layerversion.StateIn(layerversion.StateDraft, layerversion.StatePublished)).All(ctx)
		return l.byDataset(ids, vs, func(v *ent.LayerVersion) (int, int, bool) {
			return v.LayerID, v.ID, v.State == layerversion.StateDraft
		}), err
	})
}

// mayEditLayer reports whether the caller may edit layer id (layerEditable).
func (l *layerLoader) mayEditLayer(ctx context.Context, c *ent.Client, id int) (bool, error) {
	return l.mayEdit(id, func(ids []int) (map[int]bool, error) {
		pred, err := layerEditable(ctx, c, auth.FromContext(ctx))
		if err != nil {
			return nil, err
		}
		return idSet(c.Layer.Query().Where(layer.IDIn(ids...), pred).IDs(ctx))
	})
}

// documentLoader is the datasetLoader of documents.
type documentLoader struct {
	datasetLoader[*ent.DocumentVersion]
}

func (l *documentLoader) registerDocuments(ds []*ent.Document) {
	register(&l.datasetLoader, ds, func(x *ent.Document) int { return x.ID })
}

// documentVersions returns the draft and published versions of document
// id, whoever asks: callers hide drafts from readers.
func (l *documentLoader) documentVersions(ctx context.Context, c *ent.Client, id int) (currentOf[*ent.DocumentVersion], error) {
	return l.currentVersions(id, func(ids []int) (map[int]currentOf[*ent.DocumentVersion], error) {
		vs, err := c.DocumentVersion.Query().
			Where(documentversion.DocumentIDIn(ids...), documentversion.StateIn(documentversion.StateDraft, documentversion.StatePublished)).All(ctx)
		return l.byDataset(ids, vs, func(v *ent.DocumentVersion) (int, int, bool) {
			return v.DocumentID, v.ID, v.State == documentversion.StateDraft
		}), err
	})
}

// mayEditDocument reports whether the caller may edit document id.
func (l *documentLoader) mayEditDocument(ctx context.Context, c *ent.Client, id int) (bool, error) {
	return l.mayEdit(id, func(ids []int) (map[int]bool, error) {
		pred, err := documentEditable(ctx, c, auth.FromContext(ctx))
		if err != nil {
			return nil, err
		}
		return idSet(c.Document.Query().Where(document.IDIn(ids...), pred).IDs(ctx))
	})
}
