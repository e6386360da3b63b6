-- Add column "primary_key" to table: "datasources"
ALTER TABLE `datasources` ADD COLUMN `primary_key` json NULL;
