-- Who starred a dataset: its followers (internal/follows) and the removal
-- of its stars when it leaves the index read stars by dataset.
CREATE INDEX "search_stars_doc" ON "search_stars" ("doc_type", "doc_id");
