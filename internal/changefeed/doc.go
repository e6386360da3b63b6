// Package changefeed keeps the catalogue's change feed: an ordered,
// append-only log of what happened to datasets (layers and tables, sets,
// documents, catalog items), read per dataset or for the whole catalogue
// after a cursor, by people (REST, GraphQL, Atom) and by machines
// (webhooks).
//
// Events. A dataset's first published version gives dataset.published;
// each later one dataset.new_version, with the previous version's id and,
// for vector layers and tables, the diff's counts and schema changes
// (internal/versiondiff), and dataset.schema_changed as well when the
// schema changed; a change of its grants gives dataset.permissions_changed,
// its first marking as deprecated (internal/deprecation)
// dataset.deprecated, with the reason and the replacement in its detail,
// and its deletion dataset.deleted. Marking a deprecated dataset again
// (a new reason or replacement) and undeprecating it give nothing: a feed
// tells of a deprecation once, and a dataset's own fields say whether it
// is still deprecated; deprecating it again after an undeprecation is a
// first marking again. Datasets never published have no events: until
// then they are their editors' alone, and one marked deprecated then is
// published already marked, with dataset.published alone.
//
// Recording. Install puts an observer on the store (store.Observe), as
// internal/searchfeed does, so every write through store.InTx is seen
// without a call in each resolver: its hooks snapshot each dataset a
// transaction touches (its row, or its grants) before the first change,
// and just before the commit the snapshot is compared with the dataset as
// the transaction leaves it. The events are appended in the same
// transaction, so they commit and roll back with the change. A new
// version of a vector layer or table is counted by a durable job
// (Worker), enqueued in that transaction, which appends its events when
// the diff is done: counting a million features takes seconds, too long
// to hold a publish open.
//
// Order. Event ids are the feed's order and its cursor. On PostgreSQL a
// transaction takes one advisory lock before appending, held until it
// commits, so events commit in id order and a reader that has seen id N
// never later finds a smaller id committed: a cursor skips nothing.
// SQLite's writers take turns anyway.
//
// Who reads what. An event is shown to a caller who may see its dataset
// now (access.Viewer.Visible): a revoked grant hides the dataset's whole
// history. A deleted dataset has no grants left, so its deletion records
// whether everyone could view it then; the history of a dataset deleted
// while public stays public, the rest only site administrators see.
package changefeed
