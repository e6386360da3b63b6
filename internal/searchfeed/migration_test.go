package searchfeed_test

import (
	"testing"
	"time"

	"github.com/geopub/geopub/ent/datasetmark"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// The migration that brings the feed moves catalog items' stars from
// dataset_marks to search_stars (one table behind every star and the
// is_starred filter), keeping pins where they are. It runs here on a store
// holding marks from before it.
func TestMigrationMovesItemStars(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := t.Context()
		// Undo the migration, as on a store from before it.
		for _, q := range []string{"DELETE FROM geopub_schema_migrations WHERE version = '20261124080000'"} {
			if _, err := st.DB.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		at := time.Date(2026, 11, 20, 9, 30, 15, 0, time.UTC)
		st.Client.DatasetMark.Create().SetDatasetKind("item").SetDatasetID(7).SetUserID(3).SetKind(datasetmark.KindStar).SetCreatedAt(at).ExecX(ctx)
		st.Client.DatasetMark.Create().SetDatasetKind("item").SetDatasetID(7).SetUserID(3).SetKind(datasetmark.KindPin).ExecX(ctx)
		st.Client.DatasetMark.Create().SetDatasetKind("item").SetDatasetID(8).SetUserID(4).SetKind(datasetmark.KindStar).SetCreatedAt(at).ExecX(ctx)
		applied, err := st.Migrate(ctx)
		if err != nil || len(applied) != 1 {
			t.Fatalf("Migrate = %v, %v", applied, err)
		}
		rows, err := st.DB.QueryContext(ctx, "SELECT user_id, doc_type, doc_id, created_at FROM search_stars ORDER BY doc_id")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var user, id int
			var typ string
			var created int64
			if err := rows.Scan(&user, &typ, &id, &created); err != nil {
				t.Fatal(err)
			}
			if created != at.UnixMicro() {
				t.Errorf("star of %s %d created %d, want %d", typ, id, created, at.UnixMicro())
			}
			got = append(got, typ+":"+string(rune('0'+id))+":"+string(rune('0'+user)))
		}
		if len(got) != 2 || got[0] != "item:7:3" || got[1] != "item:8:4" {
			t.Fatalf("search_stars %v", got)
		}
		marks := st.Client.DatasetMark.Query().AllX(ctx)
		if len(marks) != 1 || marks[0].Kind != datasetmark.KindPin {
			t.Fatalf("dataset_marks %v, want the pin alone", marks)
		}
	})
}
