package changefeed

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
	"time"

	entgo "entgo.io/ent"
	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/store"
)

// Enqueuer enqueues a job in a transaction of store.InTx (jobs.Jobs).
type Enqueuer interface {
	InsertTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) (int64, error)
}

// Feed records the change feed of the store it is installed on and reads
// it back.
type Feed struct {
	store  *store.Store
	jobs   Enqueuer
	logger *slog.Logger
	pg     bool

	// woken is closed when this process commits events (see Follow).
	mu       sync.Mutex
	woken    chan struct{}
	appended []Appended
}

// observerName is the feed's name among the store's observers.
const observerName = "changefeed"

// Install attaches a feed to s: from then on every InTx transaction that
// publishes, deletes or re-grants a dataset appends its events (see the
// package doc). New versions of vector layers are counted by jobs
// enqueued on j, whose worker (Worker) the job system must run.
func Install(s *store.Store, j Enqueuer, logger *slog.Logger) *Feed {
	if logger == nil {
		logger = slog.Default()
	}
	f := &Feed{store: s, jobs: j, logger: logger, pg: isPostgres(s.Dialect), woken: make(chan struct{})}
	if s.Observe(observerName, f.begin) {
		s.Client.Use(f.outside)
	}
	return f
}

// txState is what one transaction touched: each dataset's state before
// its first change, in the order first touched.
type txState struct {
	mu       sync.Mutex
	order    []Ref
	before   map[Ref]state
	appended bool
}

func (t *txState) seen(r Ref) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.before[r]
	return ok
}

func (t *txState) note(r Ref, s state) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.before[r]; !ok {
		t.before[r] = s
		t.order = append(t.order, r)
	}
}

func (f *Feed) begin() store.TxObservation {
	t := &txState{before: map[Ref]state{}}
	return store.TxObservation{
		Hooks:        []entgo.Hook{f.hook(t)},
		BeforeCommit: func(ctx context.Context, c *ent.Client, tx *sql.Tx) error { return f.flush(ctx, c, tx, t) },
		AfterCommit: func() {
			t.mu.Lock()
			appended := t.appended
			t.mu.Unlock()
			if appended {
				f.wake()
			}
		},
	}
}

// hook snapshots every dataset a mutation touches before it changes
// (created ones as absent).
func (f *Feed) hook(t *txState) entgo.Hook {
	return func(next entgo.Mutator) entgo.Mutator {
		return entgo.MutateFunc(func(ctx context.Context, m entgo.Mutation) (entgo.Value, error) {
			refs, err := touched(ctx, m)
			if err != nil {
				return nil, err
			}
			if m.Op().Is(entgo.OpCreate) && isDataset(m) {
				v, err := next.Mutate(ctx, m)
				if err == nil {
					if id, ok := m.(interface{ ID() (int, bool) }).ID(); ok {
						t.note(Ref{Kind: kindOf(m), ID: id}, state{})
					}
				}
				return v, err
			}
			for _, r := range refs {
				if t.seen(r) {
					continue
				}
				s, err := snapshot(ctx, clientOf(m), r)
				if err != nil {
					return nil, err
				}
				t.note(r, s)
			}
			return next.Mutate(ctx, m)
		})
	}
}

// outside records a write through the store's own client, outside any
// transaction: the dataset is read before and after the write, and its
// events appended in a transaction of their own right after it (a write
// that is its own transaction cannot carry them). Writes in an Ent
// transaction opened with Client.Tx (only user creation uses one) are not
// recorded: they touch no dataset.
func (f *Feed) outside(next entgo.Mutator) entgo.Mutator {
	return entgo.MutateFunc(func(ctx context.Context, m entgo.Mutation) (entgo.Value, error) {
		if !isDataset(m) && m.Type() != ent.TypeDatasetPermission {
			return next.Mutate(ctx, m)
		}
		if txm, ok := m.(interface{ Tx() (*ent.Tx, error) }); ok {
			if _, err := txm.Tx(); err == nil {
				return next.Mutate(ctx, m)
			}
		}
		t := &txState{before: map[Ref]state{}}
		v, err := f.hook(t)(next).Mutate(ctx, m)
		if err != nil || len(t.order) == 0 {
			return v, err
		}
		err = f.store.InTx(ctx, func(ctx context.Context, c *ent.Client, tx *sql.Tx) error {
			return f.flush(ctx, c, tx, t)
		})
		if err != nil {
			f.logger.ErrorContext(ctx, "changefeed: recording a write made outside a transaction", "err", err)
		} else if t.appended {
			f.wake()
		}
		return v, nil
	})
}

// changesPublished reports whether m sets or clears a dataset's
// published version.
func changesPublished(m entgo.Mutation) bool { return changesField(m, "published_version_id") }

// changesDeprecation reports whether m marks a dataset deprecated or
// clears the mark.
func changesDeprecation(m entgo.Mutation) bool { return changesField(m, "deprecated_at") }

// changesField reports whether m sets or clears field f.
func changesField(m entgo.Mutation, f string) bool {
	_, set := m.Field(f)
	return set || m.FieldCleared(f)
}

func isDataset(m entgo.Mutation) bool { return kindOf(m) != "" }

// kindOf is the dataset kind a mutation of a dataset row changes.
func kindOf(m entgo.Mutation) access.Kind {
	switch m.(type) {
	case *ent.LayerMutation:
		return access.KindLayer
	case *ent.SetMutation:
		return access.KindSet
	case *ent.DocumentMutation:
		return access.KindDocument
	case *ent.CatalogItemMutation:
		return access.KindCatalogItem
	}
	return ""
}

// clientOf is the client a mutation runs on (the transaction's).
func clientOf(m entgo.Mutation) *ent.Client {
	return m.(interface{ Client() *ent.Client }).Client()
}

// touched lists the datasets an update or delete of a dataset row, or
// any change of a dataset's grants, is about to change.
func touched(ctx context.Context, m entgo.Mutation) ([]Ref, error) {
	if k := kindOf(m); k != "" {
		if m.Op().Is(entgo.OpCreate) {
			return nil, nil
		}
		// Of a dataset's own row, only its published version, its
		// deprecation and its deletion make events: other updates
		// (names, schedules) need no snapshot, and get none, keeping
		// them a single statement.
		if m.Op().Is(entgo.OpUpdate|entgo.OpUpdateOne) && !changesPublished(m) && !changesDeprecation(m) {
			return nil, nil
		}
		ids, err := m.(interface {
			IDs(context.Context) ([]int, error)
		}).IDs(ctx)
		if err != nil {
			return nil, fmt.Errorf("changefeed: finding the rows of a %s change: %w", m.Type(), err)
		}
		refs := make([]Ref, len(ids))
		for i, id := range ids {
			refs[i] = Ref{Kind: k, ID: id}
		}
		return refs, nil
	}
	pm, ok := m.(*ent.DatasetPermissionMutation)
	if !ok {
		return nil, nil
	}
	if pm.Op().Is(entgo.OpCreate) {
		kind, _ := pm.DatasetKind()
		id, _ := pm.DatasetID()
		if kind == access.KindSource {
			return nil, nil
		}
		return []Ref{{Kind: kind, ID: id}}, nil
	}
	ids, err := pm.IDs(ctx)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	rows, err := pm.Client().DatasetPermission.Query().
		Where(datasetpermission.IDIn(ids...), datasetpermission.DatasetKindNEQ(access.KindSource)).
		Select(datasetpermission.FieldDatasetKind, datasetpermission.FieldDatasetID).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("changefeed: finding the datasets of a grant change: %w", err)
	}
	refs := make([]Ref, 0, len(rows))
	for _, r := range rows {
		refs = append(refs, Ref{Kind: r.DatasetKind, ID: r.DatasetID})
	}
	return refs, nil
}

// flush compares each touched dataset with its snapshot and appends the
// events, enqueueing the counting of new vector versions.
func (f *Feed) flush(ctx context.Context, c *ent.Client, tx *sql.Tx, t *txState) error {
	t.mu.Lock()
	order, before := t.order, t.before
	t.order, t.before = nil, map[Ref]state{}
	t.mu.Unlock()
	var out []Event
	now := time.Now().UTC()
	for _, r := range order {
		after, err := snapshot(ctx, c, r)
		if err != nil {
			return err
		}
		es, p := events(r, before[r], after)
		for i := range es {
			es[i].At = now
		}
		out = append(out, es...)
		if p != nil {
			if f.jobs == nil {
				return fmt.Errorf("changefeed: no job system to count the new version of %s %d", r.Kind, r.ID)
			}
			args := CountArgs{DatasetKind: string(r.Kind), DatasetID: r.ID, DatasetType: p.after.typ, Title: p.after.title,
				VersionID: *p.after.published, PreviousVersionID: p.prev, At: now}
			if _, err := f.jobs.InsertTx(ctx, tx, args, &river.InsertOpts{MaxAttempts: 10}); err != nil {
				return fmt.Errorf("changefeed: enqueueing the count of %s %d: %w", r.Kind, r.ID, err)
			}
		}
	}
	if len(out) > 0 {
		t.mu.Lock()
		t.appended = true
		t.mu.Unlock()
	}
	return f.append(ctx, c, tx, out)
}
