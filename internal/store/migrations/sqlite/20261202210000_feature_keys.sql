-- A key order of a published layer or table version (internal/featurerows,
-- keyindex.go): one row per feature with its key values encoded as bytes
-- in key order, its row id and its content sum, stored in the order of
-- the primary key (WITHOUT ROWID). A diff (internal/versiondiff) walks two
-- versions' key orders side by side instead of extracting and sorting the
-- keys from every row's attributes each time. Built once per version,
-- when it is first diffed (the change feed's count job does so after a
-- publish); feature_key_orders says for which key fields, and whether the
-- key held (unique and never null) so that the order could be built.
CREATE TABLE `feature_key_orders` (
  `version_id` integer NOT NULL PRIMARY KEY,
  `fields` text NOT NULL,
  `state` text NOT NULL,
  `rows` integer NOT NULL DEFAULT 0,
  `updated_at` integer NOT NULL
);
CREATE TABLE `feature_keys` (
  `version_id` integer NOT NULL,
  `k` blob NOT NULL,
  `id` integer NOT NULL,
  `sum` integer NOT NULL,
  PRIMARY KEY (`version_id`, `k`)
) WITHOUT ROWID;
