// Package blob stores uploads and exports as opaque objects addressed by key.
//
// One Store type fronts two backends, chosen by URL in Open:
//
//   - "" (the embedded default): a folder "blobs" under the data directory;
//   - "file:///abs/path": that folder;
//   - "s3://bucket?endpoint=...&region=...&use_path_style=true": any
//     S3-compatible object store, with credentials taken from the standard
//     AWS environment variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, ...).
//     With an endpoint, request_checksum_calculation and
//     response_checksum_validation default to when_required (newer AWS SDKs
//     send and expect checksums that not all such stores know); see s3.go.
//
// Both backends are reached through gocloud.dev/blob (fileblob and s3blob), so
// callers see the same behaviour on a laptop and at scale:
//
//   - Put streams its reader and is atomic: a Put whose reader fails or whose
//     context is cancelled leaves no object (and no partial object) visible.
//   - A missing object is an error satisfying errors.Is(err, ErrNotFound).
//   - Keys are checked by ValidateKey; a bad key is ErrInvalidKey, on every
//     backend alike, so a key that works in development works in production.
//
// On the local backend, LocalPath hands a file path to code that wants one
// (GDAL opens files directly); Download copies an object to a local file
// whatever the backend.
package blob
