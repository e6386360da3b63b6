package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"time"

	"entgo.io/ent/dialect"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/bench/benchkit"
	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// loadStore writes versions A and B into a fresh store with
// featurerows.Writer, each in its own transaction, as two imports would,
// then builds their key orders by id, as the change feed's count job does
// after each publish, and prints how long that took.
func loadStore(ctx context.Context, cfg store.Config, n int) error {
	st, err := store.OpenAndMigrate(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, v := range []int{versionA, versionB} {
		err := st.InTx(ctx, func(ctx context.Context, _ *ent.Client, tx *sql.Tx) error {
			w, err := featurerows.NewWriter(ctx, st, tx, v)
			if err != nil {
				return err
			}
			if err := generate(n, v, func(f benchkit.Feature) error {
				return w.Write(featurerows.Row{FID: f.FID, Geom: f.WKB, Attrs: f.Attrs})
			}); err != nil {
				return err
			}
			_, err = w.Close()
			return err
		})
		if err != nil {
			return fmt.Errorf("version %d: %w", v, err)
		}
	}
	if st.Dialect == dialect.Postgres {
		// Autovacuum analyzes a new partition soon after an import; a
		// server with autovacuum off (test servers) never does, and
		// without statistics the planner scans a version through a
		// bitmap of its (version_id, fid) index instead of sequentially.
		// The PostGIS tables are analyzed too.
		if _, err := st.DB.ExecContext(ctx, "ANALYZE features"); err != nil {
			return err
		}
	}
	for _, v := range []int{versionA, versionB} {
		t0 := time.Now()
		ok, err := featurerows.KeyOrder(ctx, st, v, []string{"id"})
		if err != nil {
			return fmt.Errorf("key order of version %d: %w", v, err)
		}
		if !ok {
			return fmt.Errorf("version %d: id is not a key", v)
		}
		fmt.Printf("  %s: key order of version %d built in %s\n", st.Dialect, v, time.Since(t0).Round(time.Millisecond))
	}
	return nil
}

// postgisColumns are the attribute columns of the PostGIS tables, in the
// order they are copied and compared.
var postgisColumns = []string{"name", "category", "value", "surveyed", "active"}

// loadPostGIS loads A and B as a DBA or ogr2ogr would: plain tables a and
// b with typed columns, copied in bulk, then a primary key on id and
// ANALYZE.
func loadPostGIS(ctx context.Context, url string, n int) error {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, t := range []struct {
		name string
		v    int
	}{{"a", versionA}, {"b", versionB}} {
		if _, err := conn.ExecContext(ctx, "CREATE TABLE "+t.name+` (id bigint NOT NULL, geom geometry(Point, 4326),
			name text, category text, value double precision, surveyed date, active boolean)`); err != nil {
			return err
		}
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeCopyText(pw, n, t.v)) }()
		err := conn.Raw(func(dc any) error {
			_, err := dc.(*stdlib.Conn).Conn().PgConn().CopyFrom(ctx, pr,
				"COPY "+t.name+" (id, geom, name, category, value, surveyed, active) FROM STDIN")
			return err
		})
		pr.Close()
		if err != nil {
			return fmt.Errorf("copying %s: %w", t.name, err)
		}
		if _, err := conn.ExecContext(ctx, "ALTER TABLE "+t.name+" ADD PRIMARY KEY (id)"); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, "ANALYZE "+t.name); err != nil {
			return err
		}
	}
	return nil
}

// writeCopyText writes version v as COPY text rows; the point as hex
// EWKB with its SRID, the value with the digits that round-trip.
func writeCopyText(out io.Writer, n, v int) error {
	w := bufio.NewWriterSize(out, 1<<16)
	var b []byte
	ewkb := make([]byte, 25)
	err := generate(n, v, func(f benchkit.Feature) error {
		// EWKB: ISO WKB's byte order and coordinates, the type's SRID flag
		// and the SRID in between.
		ewkb[0] = 1
		binary.LittleEndian.PutUint32(ewkb[1:], 0x20000001)
		binary.LittleEndian.PutUint32(ewkb[5:], 4326)
		copy(ewkb[9:], f.WKB[5:21])
		a := f.Attrs
		b = strconv.AppendInt(b[:0], a["id"].(int64), 10)
		b = append(b, '\t')
		b = hex.AppendEncode(b, ewkb)
		b = append(b, '\t')
		b = append(b, a["name"].(string)...) // no tabs, newlines or backslashes
		b = append(b, '\t')
		b = append(b, a["category"].(string)...)
		b = append(b, '\t')
		b = strconv.AppendFloat(b, a["value"].(float64), 'g', -1, 64)
		b = append(b, '\t')
		b = a["surveyed"].(time.Time).AppendFormat(b, time.DateOnly)
		b = append(b, '\t')
		b = strconv.AppendBool(b, a["active"].(bool))
		b = append(b, '\n')
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	return w.Flush()
}
