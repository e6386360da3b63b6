package ogc_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"strconv"
	"testing"
	"time"

	"github.com/twpayne/go-geom"
	"github.com/twpayne/go-geom/encoding/wkb"

	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

type env = servertest.Env

// each runs a test body on a fresh service per backend.
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		fn(t, servertest.New(t, st))
	})
}

// feature is a fixture feature.
type feature struct {
	fid   int64
	g     geom.T
	attrs map[string]any
}

func itoa(n int) string { return strconv.Itoa(n) }

// waitFresh waits out the services' freshness window, after which a
// change of permissions or a publish is seen.
func waitFresh() { time.Sleep(3 * servertest.QueryFresh) }

// writeFeatures stores fs as the features of version vid, inside tx.
func writeFeatures(ctx context.Context, e *env, tx *sql.Tx, vid int, fs []feature) error {
	w, err := featurerows.NewWriter(ctx, e.Store, tx, vid)
	if err != nil {
		return err
	}
	for _, f := range fs {
		var b []byte
		if f.g != nil {
			if b, err = wkb.Marshal(f.g, binary.LittleEndian); err != nil {
				return err
			}
		}
		if err := w.Write(featurerows.Row{FID: f.fid, Geom: b, Attrs: f.attrs}); err != nil {
			return err
		}
	}
	_, err = w.Close()
	return err
}
