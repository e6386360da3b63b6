-- Modify "sessions" table
ALTER TABLE "sessions" ADD COLUMN "last_seen_at" timestamptz NULL, ADD COLUMN "client_addr" character varying NOT NULL DEFAULT '', ADD COLUMN "user_agent" character varying NOT NULL DEFAULT '';
