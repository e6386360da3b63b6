-- Modify "datasources" table
ALTER TABLE "datasources" ADD COLUMN "files" jsonb NULL;
