package search

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"entgo.io/ent/dialect"
)

// Stars records which datasets users starred; the is_starred filter reads
// it at query time. Stars belong to datasets, not versions, and go when
// the last doc of a dataset is deleted from the index.
type Stars struct{ ix *sqlIndex }

// NewStars returns the stars of a database of the given dialect.
func NewStars(db *sql.DB, dialectName string) Stars {
	return Stars{ix: &sqlIndex{db: db, pg: dialectName == dialect.Postgres}}
}

// Star marks a dataset starred by a user; starring twice is a no-op.
func (s Stars) Star(ctx context.Context, tx *sql.Tx, userID int, t Type, id int) error {
	_, err := tx.ExecContext(ctx, s.ix.rebind("INSERT INTO search_stars (user_id, doc_type, doc_id, created_at) VALUES (?, ?, ?, ?) "+
		"ON CONFLICT (user_id, doc_type, doc_id) DO NOTHING"), userID, string(t), id, micros(time.Now()))
	if err != nil {
		return fmt.Errorf("search: starring: %w", err)
	}
	return nil
}

// Unstar removes a star; removing a missing one is a no-op.
func (s Stars) Unstar(ctx context.Context, tx *sql.Tx, userID int, t Type, id int) error {
	_, err := tx.ExecContext(ctx, s.ix.rebind("DELETE FROM search_stars WHERE user_id = ? AND doc_type = ? AND doc_id = ?"), userID, string(t), id)
	if err != nil {
		return fmt.Errorf("search: unstarring: %w", err)
	}
	return nil
}
