-- Add column "set_versions" to table: "publish_groups"
ALTER TABLE `publish_groups` ADD COLUMN `set_versions` json NULL;
-- Create "sets" table
CREATE TABLE `sets` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `title` text NOT NULL, `user_id` integer NOT NULL, `group_id` integer NULL, `published_version_id` integer NULL, `first_published_at` datetime NULL, `published_at` datetime NULL);
-- Create "set_items" table
CREATE TABLE `set_items` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `position` integer NOT NULL, `layer_id` integer NOT NULL, `set_version_id` integer NOT NULL, CONSTRAINT `set_items_layers_layer` FOREIGN KEY (`layer_id`) REFERENCES `layers` (`id`) ON DELETE CASCADE, CONSTRAINT `set_items_set_versions_items` FOREIGN KEY (`set_version_id`) REFERENCES `set_versions` (`id`) ON DELETE CASCADE);
-- Create index "setitem_set_version_id_position" to table: "set_items"
CREATE UNIQUE INDEX `setitem_set_version_id_position` ON `set_items` (`set_version_id`, `position`);
-- Create index "setitem_set_version_id_layer_id" to table: "set_items"
CREATE UNIQUE INDEX `setitem_set_version_id_layer_id` ON `set_items` (`set_version_id`, `layer_id`);
-- Create index "setitem_layer_id" to table: "set_items"
CREATE INDEX `setitem_layer_id` ON `set_items` (`layer_id`);
-- Create "set_versions" table
CREATE TABLE `set_versions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `state` text NOT NULL DEFAULT ('draft'), `title` text NOT NULL, `description` text NOT NULL DEFAULT (''), `created_by` integer NOT NULL, `published_at` datetime NULL, `set_id` integer NOT NULL, CONSTRAINT `set_versions_sets_versions` FOREIGN KEY (`set_id`) REFERENCES `sets` (`id`) ON DELETE CASCADE);
-- Create index "setversion_set_id_state" to table: "set_versions"
CREATE INDEX `setversion_set_id_state` ON `set_versions` (`set_id`, `state`);
