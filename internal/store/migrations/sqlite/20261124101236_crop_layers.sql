-- Create "crop_layers" table
CREATE TABLE `crop_layers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `name` text NOT NULL, `layer_id` integer NOT NULL, `name_field` text NOT NULL, `created_at` datetime NOT NULL);
-- Create index "croplayer_layer_id" to table: "crop_layers"
CREATE INDEX `croplayer_layer_id` ON `crop_layers` (`layer_id`);
