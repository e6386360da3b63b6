// Package exports holds the rules of bulk exports (api-shapes §7, §11):
// what a caller may export, how a request is validated and estimated
// before any work, the durable job that writes the zip, cancellation,
// expiry and who may see an export and download its file. GraphQL and
// REST reach it through the resolvers; the files themselves are written
// by package exportfile.
//
// The life of an export:
//   - Validate resolves every item URL (layers, tables, version URLs the
//     caller may edit, sets expanded to their members) to a dataset
//     version, checks download permission and the dataset's export
//     service (access.MayUseService), the format of each kind, the CRS
//     (PROJ must know it), the crop area and the operator's limits, and
//     estimates the zipped size from statistics. Every item the caller
//     cannot export is listed with its reasons, never dropped.
//   - Create stores the export (state processing) and inserts its job in
//     the same transaction.
//   - The job streams each dataset's rows from the store into the
//     writers, in a work folder of the process's scratch area, then
//     streams the zip into blob storage (an atomic Put: a killed worker
//     never publishes half a zip) and marks the export complete with an
//     expiry. Progress (0..1) is recorded on the row at most every
//     ProgressEvery and announced as export.progress.
//   - Cancel marks the export cancelled and cancels its job; the worker
//     stops, removes its folder and publishes nothing.
//   - Sweep turns complete exports past their expiry into gone and
//     deletes their file.
//
// Only the creator and site administrators see an export; to anyone
// else it does not exist (404).
package exports
