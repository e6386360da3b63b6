-- Create "change_events" table
CREATE TABLE `change_events` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `type` text NOT NULL, `dataset_kind` text NOT NULL, `dataset_type` text NOT NULL, `dataset_id` integer NOT NULL, `title` text NOT NULL DEFAULT (''), `version_id` integer NULL, `previous_version_id` integer NULL, `public` bool NOT NULL DEFAULT (false), `detail` json NULL, `created_at` datetime NOT NULL);
-- Create index "changeevent_dataset_kind_dataset_id_id" to table: "change_events"
CREATE INDEX `changeevent_dataset_kind_dataset_id_id` ON `change_events` (`dataset_kind`, `dataset_id`, `id`);
