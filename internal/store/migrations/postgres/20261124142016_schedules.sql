-- Modify "layers" table
ALTER TABLE "layers" ADD COLUMN "autoupdate" boolean NOT NULL DEFAULT false, ADD COLUMN "autoupdate_schedule" character varying NOT NULL DEFAULT '', ADD COLUMN "next_autoupdate_at" timestamptz NULL;
-- Modify "sources" table
ALTER TABLE "sources" ADD COLUMN "next_scan_at" timestamptz NULL;
