// Package versiondiff says what changed between two versions of a layer or
// table: the features inserted, updated and deleted, and the changes of
// its schema (fields added, removed or retyped, CRS, geometry type,
// primary key). It is the one diff every door answers from: the kart-diff
// service (REST and GraphQL, as GeoJSON, JSON lines or counts), WFS
// changeset types and the change feed's counts.
//
// # Matching features
//
// Features are matched by the primary key of the newer version (or of the
// older one when only it has a key): the feature with the same key values
// in both versions is the same feature, updated when its geometry or the
// value of any attribute differs (an attribute absent from one version is
// null there). A row missing a key value matches nothing: it is deleted
// from the older version and inserted in the newer. A key whose values
// repeat within a version pairs the repeats in row order. Without a key in
// either version, features are matched by content: a feature whose
// geometry and attributes are found unchanged is unchanged, every other is
// a delete or an insert, and the diff says so (Diff.MatchedBy is empty).
//
// # How it runs
//
// Every stored row carries a content sum (featurerows.Sum). The database
// sorts each version's (key, row id, sum) by key, and the two sorted
// streams are merged here, the two versions read at once: a pair whose
// sums are equal is unchanged without reading it; only rows inserted,
// deleted, or paired with another sum are read in full, in batches, and a
// pair with another sum is compared value by value (a schema change can
// change every row's stored text and no value). Memory is bounded by the
// batch sizes, not by the versions: the sort is the database's.
//
// Changes come in key order (by the bytes of the key values' text; by sum
// when matched by content), which makes a Cursor: a diff resumed from the
// cursor of its last change continues after it.
package versiondiff
