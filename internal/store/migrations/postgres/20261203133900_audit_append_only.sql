-- The audit log is append-only (internal/audit): whatever connects to the
-- database, an UPDATE, DELETE or TRUNCATE of audit entries fails, so no
-- code path, old or new, can alter or remove one. An operator who must
-- prune entries for retention drops these triggers knowingly
-- (docs/audit.md).
CREATE FUNCTION "audit_entries_refuse_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit entries are append-only: % refused', TG_OP;
END
$$;
CREATE TRIGGER "audit_entries_append_only" BEFORE UPDATE OR DELETE ON "audit_entries" FOR EACH ROW EXECUTE FUNCTION "audit_entries_refuse_change"();
CREATE TRIGGER "audit_entries_no_truncate" BEFORE TRUNCATE ON "audit_entries" FOR EACH STATEMENT EXECUTE FUNCTION "audit_entries_refuse_change"();
