-- Create "exports" table
CREATE TABLE `exports` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `user_id` integer NOT NULL, `name` text NOT NULL, `created_via` text NOT NULL, `state` text NOT NULL DEFAULT ('processing'), `progress` real NULL, `crs` text NOT NULL DEFAULT (''), `formats` json NOT NULL, `items` json NOT NULL, `extent` json NULL, `crop_feature` text NOT NULL DEFAULT (''), `clip` blob NULL, `options` json NULL, `parts` json NULL, `size_estimate_zipped` integer NOT NULL DEFAULT (0), `feature_count` integer NOT NULL DEFAULT (0), `job_id` integer NULL, `blob_key` text NOT NULL DEFAULT (''), `file_size` integer NOT NULL DEFAULT (0), `error` text NOT NULL DEFAULT (''), `created_at` datetime NOT NULL, `completed_at` datetime NULL, `expires_at` datetime NULL);
-- Create index "export_user_id_id" to table: "exports"
CREATE INDEX `export_user_id_id` ON `exports` (`user_id`, `id`);
-- Create index "export_state_expires_at" to table: "exports"
CREATE INDEX `export_state_expires_at` ON `exports` (`state`, `expires_at`);
