-- Create "features" table
CREATE TABLE `features` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `version_id` integer NOT NULL, `fid` integer NOT NULL, `geom` blob NULL, `attrs` json NULL, `minx` real NULL, `miny` real NULL, `maxx` real NULL, `maxy` real NULL);
-- Create index "feature_version_id_fid" to table: "features"
CREATE INDEX `feature_version_id_fid` ON `features` (`version_id`, `fid`);
-- Create index "feature_version_id_minx_miny" to table: "features"
CREATE INDEX `feature_version_id_minx_miny` ON `features` (`version_id`, `minx`, `miny`);
-- Create "layers" table
CREATE TABLE `layers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `type` text NOT NULL, `kind` text NOT NULL DEFAULT ('vector'), `name` text NOT NULL, `user_id` integer NOT NULL, `group_id` integer NULL, `published_version_id` integer NULL, `first_published_at` datetime NULL, `published_at` datetime NULL);
-- Create "layer_versions" table
CREATE TABLE `layer_versions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `state` text NOT NULL DEFAULT ('draft'), `status` text NOT NULL DEFAULT ('pending'), `progress` real NOT NULL DEFAULT (0), `import_error` text NOT NULL DEFAULT (''), `import_job_id` integer NULL, `name` text NOT NULL, `description` text NOT NULL DEFAULT (''), `reference` text NOT NULL DEFAULT (''), `created_by` integer NOT NULL, `datasource_ids` json NOT NULL, `crs` text NOT NULL DEFAULT (''), `geometry_type` text NOT NULL DEFAULT (''), `geometry_field` text NOT NULL DEFAULT (''), `fields` json NULL, `primary_key_fields` json NULL, `feature_count` integer NOT NULL DEFAULT (0), `empty_geometry_count` integer NOT NULL DEFAULT (0), `extent` json NULL, `published_at` datetime NULL, `layer_id` integer NOT NULL, CONSTRAINT `layer_versions_layers_versions` FOREIGN KEY (`layer_id`) REFERENCES `layers` (`id`) ON DELETE NO ACTION);
-- Create index "layerversion_layer_id_state" to table: "layer_versions"
CREATE INDEX `layerversion_layer_id_state` ON `layer_versions` (`layer_id`, `state`);
-- Create "publish_groups" table
CREATE TABLE `publish_groups` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `state` text NOT NULL DEFAULT ('publishing'), `publish_strategy` text NOT NULL DEFAULT ('together'), `error_strategy` text NOT NULL DEFAULT ('abort'), `publish_at` datetime NULL, `reference` text NOT NULL DEFAULT (''), `version_ids` json NOT NULL, `error` text NOT NULL DEFAULT (''), `created_by` integer NOT NULL, `job_id` integer NULL, `created_at` datetime NOT NULL, `completed_at` datetime NULL);
