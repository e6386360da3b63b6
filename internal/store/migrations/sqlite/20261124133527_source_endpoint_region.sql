-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_sources" table
CREATE TABLE `new_sources` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `type` text NOT NULL, `title` text NOT NULL, `description` text NOT NULL DEFAULT (''), `url_remote` text NOT NULL DEFAULT (''), `username` text NOT NULL DEFAULT (''), `password` text NOT NULL DEFAULT (''), `ssl_verify` bool NOT NULL DEFAULT (true), `folders` json NULL, `schemas` json NULL, `endpoint` text NOT NULL DEFAULT (''), `region` text NOT NULL DEFAULT (''), `scan_schedule` text NOT NULL DEFAULT (''), `last_scanned_at` datetime NULL, `group_id` integer NULL, `user_id` integer NOT NULL, CONSTRAINT `sources_groups_sources` FOREIGN KEY (`group_id`) REFERENCES `groups` (`id`) ON DELETE SET NULL, CONSTRAINT `sources_users_sources` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "sources" to new temporary table "new_sources"
INSERT INTO `new_sources` (`id`, `created_at`, `updated_at`, `type`, `title`, `description`, `url_remote`, `username`, `password`, `ssl_verify`, `folders`, `schemas`, `scan_schedule`, `last_scanned_at`, `group_id`, `user_id`) SELECT `id`, `created_at`, `updated_at`, `type`, `title`, `description`, `url_remote`, `username`, `password`, `ssl_verify`, `folders`, `schemas`, `scan_schedule`, `last_scanned_at`, `group_id`, `user_id` FROM `sources`;
-- Drop "sources" table after copying rows
DROP TABLE `sources`;
-- Rename temporary table "new_sources" to "sources"
ALTER TABLE `new_sources` RENAME TO `sources`;
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
