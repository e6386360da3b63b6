-- atlas:delimiter ;;

-- The catalogue index's change log (internal/search): every write to
-- search_docs and to dataset_permissions appends a row here, in the
-- writing transaction, through the triggers below. Each process's
-- in-memory search view reads the rows after the last one it applied and
-- reloads those docs and grants, so it never serves a dataset's old
-- permissions or fields once their change has committed. Rows older than
-- an hour are pruned; search_meta's pruned_seq tells a view that fell
-- further behind to reload everything.
-- The texts of field names and member titles, so a view can rebuild its
-- text index from the tables alone.
ALTER TABLE `search_docs` ADD COLUMN `field_names` text NOT NULL DEFAULT '';;
ALTER TABLE `search_docs` ADD COLUMN `member_titles` text NOT NULL DEFAULT '';;
-- The text index lives in each process's view (internal/search/memtext.go):
-- FTS5's ranked match alone took 76 ms for a common word at 100,000 docs.
DROP TABLE `search_fts`;;
CREATE TABLE `search_changes` (`seq` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `doc` integer NULL, `perm_kind` text NULL, `perm_id` integer NULL, `at` integer NOT NULL DEFAULT (unixepoch()));;
CREATE TABLE `search_meta` (`key` text NOT NULL PRIMARY KEY, `value` integer NOT NULL);;
CREATE TRIGGER `search_docs_log_insert` AFTER INSERT ON `search_docs` BEGIN INSERT INTO `search_changes` (`doc`) VALUES (NEW.`id`); END;;
CREATE TRIGGER `search_docs_log_update` AFTER UPDATE ON `search_docs` BEGIN INSERT INTO `search_changes` (`doc`) VALUES (NEW.`id`); END;;
CREATE TRIGGER `search_docs_log_delete` AFTER DELETE ON `search_docs` BEGIN INSERT INTO `search_changes` (`doc`) VALUES (OLD.`id`); END;;
CREATE TRIGGER `dataset_permissions_log_insert` AFTER INSERT ON `dataset_permissions` BEGIN INSERT INTO `search_changes` (`perm_kind`, `perm_id`) VALUES (NEW.`dataset_kind`, NEW.`dataset_id`); END;;
CREATE TRIGGER `dataset_permissions_log_update` AFTER UPDATE ON `dataset_permissions` BEGIN INSERT INTO `search_changes` (`perm_kind`, `perm_id`) VALUES (OLD.`dataset_kind`, OLD.`dataset_id`), (NEW.`dataset_kind`, NEW.`dataset_id`); END;;
CREATE TRIGGER `dataset_permissions_log_delete` AFTER DELETE ON `dataset_permissions` BEGIN INSERT INTO `search_changes` (`perm_kind`, `perm_id`) VALUES (OLD.`dataset_kind`, OLD.`dataset_id`); END;;
