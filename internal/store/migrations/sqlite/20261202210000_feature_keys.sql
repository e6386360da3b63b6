-- A key order of a published layer or table version (internal/featurerows,
-- keyindex.go): the version's (key, row id, sum) triples sorted by key,
-- packed in chunks of a few thousand (data, in seq order; first is the
-- chunk's first key, to start reading after a given key). A diff
-- (internal/versiondiff) reads two versions' orders side by side instead
-- of extracting and sorting the keys from every row's attributes each
-- time. Built once per version, when it is first diffed (the change feed's
-- count job does so after a publish); feature_key_orders says by which
-- key fields, and whether they were a key of the rows (never missing,
-- never repeated) so that the order could be built.
CREATE TABLE `feature_key_orders` (
  `version_id` integer NOT NULL PRIMARY KEY,
  `fields` text NOT NULL,
  `state` text NOT NULL,
  `rows` integer NOT NULL DEFAULT 0,
  `updated_at` integer NOT NULL
);
CREATE TABLE `feature_keys` (
  `version_id` integer NOT NULL,
  `seq` integer NOT NULL,
  `first` blob NOT NULL,
  `data` blob NOT NULL,
  PRIMARY KEY (`version_id`, `seq`)
);
