-- Sources take dataset permissions: the creator of every existing source
-- administers it, as a new source's creator does.
INSERT INTO "dataset_permissions" ("created_at", "updated_at", "dataset_kind", "dataset_id", "subject", "subject_id", "permission") SELECT "created_at", "created_at", 'source', "id", 'user', "user_id", 'admin' FROM "sources";
