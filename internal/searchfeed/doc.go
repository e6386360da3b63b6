// Package searchfeed keeps the catalogue's search index (internal/search)
// current with the store: it builds each dataset's search.Doc from the
// store, rewrites the docs of every dataset a write touches in that
// write's own transaction, and rebuilds the whole index when it is empty
// or was built by older code.
//
// Docs. Build turns datasets (layers and tables, sets, documents, catalog
// items, sources) into docs, two per dataset: Published (its published
// version; none when it has never been published) and Latest (its draft
// when it has one, else its published version). A doc's VersionStatus is
// "published" for a published version, else the draft's import status
// (layers and tables: pending, importing, ok, failed, cancelled) or "ok".
// Sources have no versions: both docs describe the source as it is. A doc
// carries the version's title, description, tags, categories (named from
// the categories table) and licence, the owning group and the creator by
// name, field names, geometry family, raster resolution and colour bands,
// set members' titles, catalog items' geotags, the dates, and the
// dataset's popularity (views plus downloads). Build reads in batches (a constant number of statements per 500 datasets of a
// type), so a thousand docs cost a handful of queries.
//
// Keeping current. Install puts the feed on a store. Its Ent hook sees
// every mutation of the tables docs are built from (datasets, their
// versions, set members, and the names of groups and users, which docs
// carry as publisher text) and records which datasets it touches: before
// an update or delete runs (the rows it matches), after a create (the
// row it made). Changes docs do not reflect (import progress, scan times)
// are ignored. Inside store.InTx, the hook is installed on that
// transaction's own client (store.Observe) and the touched datasets are
// reindexed once, just before the commit, in the same *sql.Tx: the index
// commits and rolls back with the write, and a transaction touching many
// datasets reindexes them in one batch. Every API write path runs in
// InTx (GraphQL and REST share the resolvers; graph's withTx is InTx, and
// the publish, import and scan jobs use InTx), so none is missed by
// construction, including paths added later: there is no call to forget.
// A hook was chosen over calls in each resolver for that reason; the one
// alternative with the same reach, triggers in the database, would need
// the doc builders in two SQL dialects. Writes through the store's
// own client outside InTx (seeds, tools) are reindexed right after they
// commit, in a transaction of their own, and logged if that fails; so are
// Ent transactions opened with Client.Tx, at their commit.
//
// Permissions are not indexed: the engine reads dataset_permissions live.
// View and download counters are written with plain SQL by the popularity
// counter's flushes; PopularityChanged, its AfterFlush, adds them to the
// docs' popularity (search.Index.AddPopularity) in the flush's transaction. Licences and categories are
// reference data seeded by migrations: a migration that renames them
// raises BuildVersion, so every process rebuilds the index.
//
// Rebuilding. EnsureCurrent (serve and worker, in the background at
// start) rebuilds when the index records no build version or another
// BuildVersion, or holds nothing while datasets exist; Rebuild (also
// `geopub search reindex`) reindexes every dataset in transactions of
// about 1,000 docs, then removes docs of datasets that are gone.
package searchfeed
