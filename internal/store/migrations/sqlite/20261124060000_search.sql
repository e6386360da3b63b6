-- Catalogue search (internal/search): one row per indexed dataset version
-- (published, or latest), written by search.Index.Put in the same
-- transaction as the change it reflects. Times are microseconds since the
-- Unix epoch, so both dialects compare and page them alike.
CREATE TABLE `search_docs` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `doc_type` text NOT NULL, `doc_id` integer NOT NULL, `state` text NOT NULL, `kind` text NOT NULL, `title` text NOT NULL, `sort_title` text NOT NULL, `description` text NOT NULL DEFAULT '', `version_status` text NOT NULL DEFAULT 'published', `group_id` integer NULL, `group_name` text NOT NULL DEFAULT '', `user_id` integer NULL, `user_name` text NOT NULL DEFAULT '', `license_type` text NOT NULL DEFAULT '', `license_version` text NOT NULL DEFAULT '', `geometry_type` text NOT NULL DEFAULT '', `has_z` boolean NOT NULL DEFAULT false, `has_pk` boolean NOT NULL DEFAULT false, `raster_resolution` real NULL, `is_imagery` boolean NULL, `created_at` integer NOT NULL, `updated_at` integer NOT NULL, `first_published_at` integer NULL, `popularity` integer NOT NULL DEFAULT 0, `perm_kind` text NOT NULL, `perm_id` integer NOT NULL);
CREATE UNIQUE INDEX `search_docs_ref` ON `search_docs` (`doc_type`, `doc_id`, `state`);
CREATE INDEX `search_docs_state_popularity` ON `search_docs` (`state`, `popularity` DESC, `id`);
CREATE INDEX `search_docs_state_title` ON `search_docs` (`state`, `sort_title`, `id`);
CREATE INDEX `search_docs_state_created` ON `search_docs` (`state`, `created_at`, `id`);
CREATE INDEX `search_docs_state_updated` ON `search_docs` (`state`, `updated_at`, `id`);
CREATE INDEX `search_docs_perm` ON `search_docs` (`perm_kind`, `perm_id`);
CREATE INDEX `search_docs_group` ON `search_docs` (`group_id`);
-- Multi-valued filters and facets, one row per value.
CREATE TABLE `search_doc_tags` (`doc` integer NOT NULL REFERENCES `search_docs` (`id`) ON DELETE CASCADE, `tag` text NOT NULL, PRIMARY KEY (`doc`, `tag`)) WITHOUT ROWID;
CREATE INDEX `search_doc_tags_tag` ON `search_doc_tags` (`tag`, `doc`);
-- A category row for the doc's category and each of its ancestors, so a
-- parent key matches its children.
CREATE TABLE `search_doc_categories` (`doc` integer NOT NULL REFERENCES `search_docs` (`id`) ON DELETE CASCADE, `key` text NOT NULL, `name` text NOT NULL, PRIMARY KEY (`doc`, `key`)) WITHOUT ROWID;
CREATE INDEX `search_doc_categories_key` ON `search_doc_categories` (`key`, `doc`);
CREATE TABLE `search_doc_geotags` (`doc` integer NOT NULL REFERENCES `search_docs` (`id`) ON DELETE CASCADE, `key` text NOT NULL, `name` text NOT NULL, PRIMARY KEY (`doc`, `key`)) WITHOUT ROWID;
CREATE INDEX `search_doc_geotags_key` ON `search_doc_geotags` (`key`, `doc`);
CREATE TABLE `search_doc_bands` (`doc` integer NOT NULL REFERENCES `search_docs` (`id`) ON DELETE CASCADE, `band` text NOT NULL, PRIMARY KEY (`doc`, `band`)) WITHOUT ROWID;
CREATE INDEX `search_doc_bands_band` ON `search_doc_bands` (`band`, `doc`);
-- Stars: a user's starred datasets, by dataset (not by version).
CREATE TABLE `search_stars` (`user_id` integer NOT NULL, `doc_type` text NOT NULL, `doc_id` integer NOT NULL, `created_at` integer NOT NULL, PRIMARY KEY (`user_id`, `doc_type`, `doc_id`)) WITHOUT ROWID;
-- The full-text index: contentless FTS5 keyed by search_docs.id, porter
-- stemming over unicode61, prefix indexes for type-ahead. Column order is
-- the order of the bm25 weights in internal/search.
CREATE VIRTUAL TABLE `search_fts` USING fts5(`title`, `description`, `tags`, `categories`, `geotags`, `publisher`, `fields`, `members`, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2', prefix='2 3');
