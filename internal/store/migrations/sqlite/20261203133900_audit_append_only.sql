-- atlas:delimiter ;;

-- The audit log is append-only (internal/audit): whatever connects to the
-- database, an UPDATE or DELETE of an audit entry fails, so no code path,
-- old or new, can alter or remove one. An operator who must prune entries
-- for retention drops these triggers knowingly (docs/audit.md).
CREATE TRIGGER `audit_entries_no_update` BEFORE UPDATE ON `audit_entries` BEGIN SELECT RAISE(ABORT, 'audit entries are append-only: UPDATE refused'); END;;
CREATE TRIGGER `audit_entries_no_delete` BEFORE DELETE ON `audit_entries` BEGIN SELECT RAISE(ABORT, 'audit entries are append-only: DELETE refused'); END;;
