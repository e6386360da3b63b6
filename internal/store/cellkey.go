package store

import (
	"database/sql/driver"
	"fmt"

	"modernc.org/sqlite"

	"github.com/geopub/geopub/internal/cellkey"
)

// features_cell_key(minx, miny, maxx, maxy) is the cell key of a feature's
// box (internal/cellkey), NULL when a coordinate is: the SQLite
// migrations and triggers key the features by it, as the PostgreSQL
// migration's PL/pgSQL function of the same name does there. It is
// registered on every SQLite connection this process opens; another
// program writing feature boxes into a Geopub file (the sqlite3 shell)
// fails with "no such function" rather than leaving rows unindexed.
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("features_cell_key", 4, cellKeySQL)
}

func cellKeySQL(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	var c [4]float64
	for i, a := range args {
		switch v := a.(type) {
		case nil:
			return nil, nil
		case float64:
			c[i] = v
		case int64:
			c[i] = float64(v)
		default:
			return nil, fmt.Errorf("features_cell_key: argument %d is %T, not a number", i+1, a)
		}
	}
	return cellkey.Key(c[0], c[1], c[2], c[3]), nil
}
