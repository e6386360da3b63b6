-- Add column "key_by_fid" to table: "layer_versions" (an ADD COLUMN with
-- its default, as SQLite allows, rather than the table rebuild atlas
-- writes)
ALTER TABLE `layer_versions` ADD COLUMN `key_by_fid` bool NOT NULL DEFAULT (false);
