package changefeed

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/access"
)

// The event types.
const (
	Published          = "dataset.published"
	NewVersion         = "dataset.new_version"
	SchemaChanged      = "dataset.schema_changed"
	PermissionsChanged = "dataset.permissions_changed"
	Deprecated         = "dataset.deprecated"
	Deleted            = "dataset.deleted"
)

// Types lists the event types in the order the docs give them.
var Types = []string{Published, NewVersion, SchemaChanged, PermissionsChanged, Deprecated, Deleted}

// KnownType reports whether t is an event type.
func KnownType(t string) bool {
	for _, k := range Types {
		if k == t {
			return true
		}
	}
	return false
}

// Ref names a dataset: its kind as permissions name it (layers and tables
// share KindLayer) and its id.
type Ref struct {
	Kind access.Kind
	ID   int
}

// Event is one entry of the feed. Type is the dataset's type as the API
// names it (layer, table, set, document, item).
type Event struct {
	ID                int64
	Type              string
	Dataset           Ref
	DatasetType       string
	Title             string
	VersionID         *int
	PreviousVersionID *int
	Public            bool
	Detail            map[string]any
	At                time.Time
}

// Cursor is the feed position after e, for Query.After.
func (e Event) Cursor() string { return strconv.FormatInt(e.ID, 10) }

// ParseCursor reads a cursor ("" is the start of the feed).
func ParseCursor(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("cursor %q is not a position in the change feed: give the cursor of an event, or none", s)
	}
	return n, nil
}

// FromEnt is a stored event.
func FromEnt(e *ent.ChangeEvent) Event {
	return Event{
		ID: int64(e.ID), Type: e.Type, Dataset: Ref{Kind: access.Kind(e.DatasetKind), ID: e.DatasetID},
		DatasetType: e.DatasetType, Title: e.Title, VersionID: e.VersionID, PreviousVersionID: e.PreviousVersionID,
		Public: e.Public, Detail: e.Detail, At: e.CreatedAt,
	}
}

// lockClass is the first key of the PostgreSQL advisory lock appenders
// take (the notification hub uses another class).
const lockClass = 0x63686766 // "chgf"

// Appended is called in the transaction that appends events, with the
// events as stored (ids set), for what must commit with them (webhook
// deliveries).
type Appended func(ctx context.Context, c *ent.Client, tx *sql.Tx, es []Event) error

// OnAppend adds fn to what runs when events are appended. Call it before
// the feed records anything.
func (f *Feed) OnAppend(fn Appended) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.appended = append(f.appended, fn)
}

// append writes es in tx (c bound to it) after taking the feed's lock,
// so that they commit in id order (see the package doc), and runs the
// OnAppend functions.
func (f *Feed) append(ctx context.Context, c *ent.Client, tx *sql.Tx, es []Event) error {
	if len(es) == 0 {
		return nil
	}
	if f.pg {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1, 0)", lockClass); err != nil {
			return fmt.Errorf("changefeed: taking the feed's lock: %w", err)
		}
	}
	bs := make([]*ent.ChangeEventCreate, len(es))
	for i, e := range es {
		b := c.ChangeEvent.Create().SetType(e.Type).SetDatasetKind(string(e.Dataset.Kind)).SetDatasetID(e.Dataset.ID).
			SetDatasetType(e.DatasetType).SetTitle(e.Title).SetNillableVersionID(e.VersionID).
			SetNillablePreviousVersionID(e.PreviousVersionID).SetPublic(e.Public)
		if e.Detail != nil {
			b.SetDetail(e.Detail)
		}
		if !e.At.IsZero() {
			b.SetCreatedAt(e.At)
		}
		bs[i] = b
	}
	rows, err := c.ChangeEvent.CreateBulk(bs...).Save(ctx)
	if err != nil {
		return fmt.Errorf("changefeed: appending events: %w", err)
	}
	stored := make([]Event, len(rows))
	for i, r := range rows {
		stored[i] = FromEnt(r)
	}
	f.mu.Lock()
	fns := f.appended
	f.mu.Unlock()
	for _, fn := range fns {
		if err := fn(ctx, c, tx, stored); err != nil {
			return err
		}
	}
	return nil
}

func isPostgres(name string) bool { return name == dialect.Postgres }
