// Package deprecation keeps datasets' deprecation: a publisher's notice
// that a dataset (a layer, table, set, document or catalog item) should no
// longer be used, with a reason and, optionally, the dataset replacing it.
// A deprecated dataset stays readable, in every API and service, exactly
// as before; the notice is shown with it so that its users move on.
// Undeprecating clears the notice.
//
// Rules. The reason is required: trimmed, not blank, at most MaxReason
// characters (and the text rules of internal/textrules). The replacement,
// when given, names a dataset by its API type (layer, table, set, document,
// item) and id; it must exist, be visible to the caller and not be the
// deprecated dataset itself. Marking a deprecated dataset again replaces
// its reason and replacement but keeps when it was first marked.
//
// Who may. Deprecating is editing a dataset's metadata: the doors (graph,
// rest) load the dataset for a write, which checks the caller's edit
// permission, before calling Deprecate or Undeprecate.
//
// Events. The change feed (internal/changefeed) sees the write through
// the store's observer and appends dataset.deprecated when a published
// dataset is first marked; nothing here calls it.
package deprecation
