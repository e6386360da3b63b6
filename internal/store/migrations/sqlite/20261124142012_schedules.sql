-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Add column "next_scan_at" to table: "sources"
ALTER TABLE `sources` ADD COLUMN `next_scan_at` datetime NULL;
-- Create "new_layers" table
CREATE TABLE `new_layers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `type` text NOT NULL, `kind` text NOT NULL DEFAULT ('vector'), `name` text NOT NULL, `user_id` integer NOT NULL, `group_id` integer NULL, `published_version_id` integer NULL, `first_published_at` datetime NULL, `published_at` datetime NULL, `num_views` integer NOT NULL DEFAULT (0), `num_downloads` integer NOT NULL DEFAULT (0), `autoupdate` bool NOT NULL DEFAULT (false), `autoupdate_schedule` text NOT NULL DEFAULT (''), `next_autoupdate_at` datetime NULL);
-- Copy rows from old table "layers" to new temporary table "new_layers"
INSERT INTO `new_layers` (`id`, `created_at`, `updated_at`, `type`, `kind`, `name`, `user_id`, `group_id`, `published_version_id`, `first_published_at`, `published_at`, `num_views`, `num_downloads`) SELECT `id`, `created_at`, `updated_at`, `type`, `kind`, `name`, `user_id`, `group_id`, `published_version_id`, `first_published_at`, `published_at`, `num_views`, `num_downloads` FROM `layers`;
-- Drop "layers" table after copying rows
DROP TABLE `layers`;
-- Rename temporary table "new_layers" to "layers"
ALTER TABLE `new_layers` RENAME TO `layers`;
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
