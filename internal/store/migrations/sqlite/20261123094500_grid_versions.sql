-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_layer_versions" table
CREATE TABLE `new_layer_versions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `state` text NOT NULL DEFAULT ('draft'), `status` text NOT NULL DEFAULT ('pending'), `progress` real NOT NULL DEFAULT (0), `import_error` text NOT NULL DEFAULT (''), `import_job_id` integer NULL, `name` text NOT NULL, `description` text NOT NULL DEFAULT (''), `reference` text NOT NULL DEFAULT (''), `created_by` integer NOT NULL, `datasource_ids` json NOT NULL, `crs` text NOT NULL DEFAULT (''), `geometry_type` text NOT NULL DEFAULT (''), `geometry_field` text NOT NULL DEFAULT (''), `fields` json NULL, `primary_key_fields` json NULL, `feature_count` integer NOT NULL DEFAULT (0), `empty_geometry_count` integer NOT NULL DEFAULT (0), `extent` json NULL, `published_at` datetime NULL, `bands` json NULL, `raster_resolution` real NULL, `raster_width` integer NOT NULL DEFAULT (0), `raster_height` integer NOT NULL DEFAULT (0), `layer_id` integer NOT NULL, CONSTRAINT `layer_versions_layers_versions` FOREIGN KEY (`layer_id`) REFERENCES `layers` (`id`) ON DELETE NO ACTION);
-- Copy rows from old table "layer_versions" to new temporary table "new_layer_versions"
INSERT INTO `new_layer_versions` (`id`, `created_at`, `updated_at`, `state`, `status`, `progress`, `import_error`, `import_job_id`, `name`, `description`, `reference`, `created_by`, `datasource_ids`, `crs`, `geometry_type`, `geometry_field`, `fields`, `primary_key_fields`, `feature_count`, `empty_geometry_count`, `extent`, `published_at`, `layer_id`) SELECT `id`, `created_at`, `updated_at`, `state`, `status`, `progress`, `import_error`, `import_job_id`, `name`, `description`, `reference`, `created_by`, `datasource_ids`, `crs`, `geometry_type`, `geometry_field`, `fields`, `primary_key_fields`, `feature_count`, `empty_geometry_count`, `extent`, `published_at`, `layer_id` FROM `layer_versions`;
-- Drop "layer_versions" table after copying rows
DROP TABLE `layer_versions`;
-- Rename temporary table "new_layer_versions" to "layer_versions"
ALTER TABLE `new_layer_versions` RENAME TO `layer_versions`;
-- Create index "layerversion_layer_id_state" to table: "layer_versions"
CREATE INDEX `layerversion_layer_id_state` ON `layer_versions` (`layer_id`, `state`);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
