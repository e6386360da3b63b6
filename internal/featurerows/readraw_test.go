package featurerows

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strconv"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// rawCopy is what ReadRaw hands over, kept beyond its callback.
type rawCopy struct {
	FID         int64
	Geom, Attrs []byte
	Box         [4]float64
	HasBox      bool
}

func readRawAll(t *testing.T, st *store.Store, versionID int) []rawCopy {
	t.Helper()
	var got []rawCopy
	err := ReadRaw(context.Background(), st, versionID, func(r *RawRow) error {
		got = append(got, rawCopy{r.FID, bytes.Clone(r.Geom), bytes.Clone(r.Attrs), r.Box, r.HasBox})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// ReadRaw gives what Read gives, undecoded, with the stored boxes, on both
// backends (PostgreSQL reads a binary COPY stream); a callback's error
// ends the read and comes back as is, and the store stays usable.
func TestReadRaw(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		const n = 5_000
		writeRows(t, st, 7, n, testRow)
		writeRows(t, st, 8, 3, testRow)
		got := readRawAll(t, st, 7)
		want := readAll(t, st, 7)
		if len(got) != n || len(want) != n {
			t.Fatalf("ReadRaw gave %d rows, Read %d, want %d", len(got), len(want), n)
		}
		for i, g := range got {
			w := want[i]
			attrs, err := decodeAttrs(g.Attrs)
			if err != nil {
				t.Fatalf("row %d: attributes %q: %v", i, g.Attrs, err)
			}
			if g.FID != w.FID || !bytes.Equal(g.Geom, w.Geom) || !reflect.DeepEqual(attrs, w.Attrs) {
				t.Fatalf("row %d: ReadRaw %+v (attrs %v), Read %+v", i, g, attrs, w)
			}
			box, ok, _ := Envelope(w.Geom)
			if g.HasBox != ok || (ok && g.Box != box) {
				t.Fatalf("fid %d: box %v %v, want %v %v", g.FID, g.Box, g.HasBox, box, ok)
			}
		}
		stop := errors.New("enough")
		calls := 0
		err := ReadRaw(ctx, st, 7, func(*RawRow) error {
			calls++
			if calls == 10 {
				return stop
			}
			return nil
		})
		if err != stop || calls != 10 {
			t.Fatalf("ReadRaw after the callback failed: %v after %d calls", err, calls)
		}
		for range 3 { // the aborted connection is never handed out again
			if got := readRawAll(t, st, 8); len(got) != 3 {
				t.Fatalf("read %d rows after an aborted read, want 3", len(got))
			}
		}
		if rows := readRawAll(t, st, 9); len(rows) != 0 {
			t.Fatalf("an empty version gave %d rows", len(rows))
		}
	})
}

// The COPY decoder takes the stream however it is cut: here the server's
// own stream, fed one byte and then 7 bytes at a time.
// The stream is PostgreSQL's, so this runs on that backend alone.
func TestCopyRowDecoderChunks(t *testing.T) {
	st := storetest.Open(t, dialect.Postgres, storetest.Options{})
	ctx := context.Background()
	writeRows(t, st, 7, 500, testRow)
	want := readRawAll(t, st, 7)
	var stream bytes.Buffer
	conn, err := st.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		_, err := dc.(*stdlib.Conn).Conn().PgConn().CopyTo(ctx, &stream,
			"COPY (SELECT fid, geom, attrs, minx, miny, maxx, maxy FROM features WHERE version_id = "+strconv.Itoa(7)+" ORDER BY fid, id) TO STDOUT (FORMAT binary)")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 7} {
		var got []rawCopy
		d := &copyRowDecoder{fn: func(r *RawRow) error {
			got = append(got, rawCopy{r.FID, bytes.Clone(r.Geom), bytes.Clone(r.Attrs), r.Box, r.HasBox})
			return nil
		}}
		b := stream.Bytes()
		for len(b) > 0 {
			k := min(size, len(b))
			if _, err := d.Write(b[:k]); err != nil {
				t.Fatalf("chunks of %d: %v", size, err)
			}
			b = b[k:]
		}
		if len(d.pending) != 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("chunks of %d: %d rows, %d bytes pending; want %d rows", size, len(got), len(d.pending), len(want))
		}
	}
	if _, err := (&copyRowDecoder{}).Write([]byte("NOTCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")); err == nil {
		t.Fatal("a stream without the COPY signature was accepted")
	}
}
