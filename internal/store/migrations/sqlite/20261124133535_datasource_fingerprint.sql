-- Add column "fingerprint" to table: "datasources"
ALTER TABLE `datasources` ADD COLUMN `fingerprint` text NOT NULL DEFAULT ('');
