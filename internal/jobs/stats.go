package jobs

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// QueueCount is how many jobs of one queue are in one state.
type QueueCount struct {
	Queue string
	State State
	Count int64
}

// Counts reads how many jobs each queue holds in each state, across every
// process sharing the database: one grouped count over River's job table,
// read through the store's pool (a read: it never waits for writers).
// Finished jobs (completed, cancelled, discarded) stay counted until
// River's retention removes them.
func (j *Jobs) Counts(ctx context.Context) ([]QueueCount, error) {
	rows, err := j.st.DB.QueryContext(ctx, "SELECT queue, state, count(*) FROM river_job GROUP BY queue, state")
	if err != nil {
		return nil, fmt.Errorf("jobs: counting jobs: %w", err)
	}
	defer rows.Close()
	var out []QueueCount
	for rows.Next() {
		var c QueueCount
		if err := rows.Scan(&c.Queue, &c.State, &c.Count); err != nil {
			return nil, fmt.Errorf("jobs: counting jobs: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("jobs: counting jobs: %w", err)
	}
	return out, nil
}

// PoolStats describes the job system's own connection pool (the single
// SQLite connection, or the pgxpool to PostgreSQL) in database/sql's
// terms, so it reads like the store's pool.
func (j *Jobs) PoolStats() sql.DBStats {
	if j.poolStats == nil {
		return sql.DBStats{}
	}
	return j.poolStats()
}

// pgxPoolStats maps a pgxpool's figures onto sql.DBStats: connections
// open, in use and idle, the maximum, and the acquisitions that had to
// wait for a connection and how long they waited in all.
func pgxPoolStats(s *pgxpool.Stat) sql.DBStats {
	return sql.DBStats{
		MaxOpenConnections: int(s.MaxConns()),
		OpenConnections:    int(s.TotalConns()),
		InUse:              int(s.AcquiredConns()),
		Idle:               int(s.IdleConns()),
		WaitCount:          s.EmptyAcquireCount(),
		WaitDuration:       s.EmptyAcquireWaitTime(),
	}
}
