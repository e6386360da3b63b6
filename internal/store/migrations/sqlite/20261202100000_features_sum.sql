-- A content sum of each feature row (internal/featurerows, sum.go): the
-- first 8 bytes of SHA-256 over the row's geometry and attributes, so a
-- diff of two versions (internal/versiondiff) compares 8 bytes per row and
-- reads in full only the rows whose sums differ. Written by the writer;
-- null for rows stored before this migration, which a diff fills first.
-- Added in place: a rebuild of features would drop its R*Tree triggers.
ALTER TABLE `features` ADD COLUMN `sum` integer NULL;
-- The rows still without a sum, which a diff looks for first: new rows
-- are not in it, so the check costs nothing once a version is filled.
CREATE INDEX `feature_sum_missing` ON `features` (`version_id`) WHERE (sum IS NULL);
