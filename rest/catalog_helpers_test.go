package rest_test

import (
	"testing"
	"time"

	"github.com/geopub/geopub/internal/search/searchtest"
)

// docTweak adjusts the indexed docs of datasets by title.
type docTweak = searchtest.Tweak

// indexCatalog seeds the search index from the store (until the search
// feed lands on main and keeps it current by itself).
func indexCatalog(t testing.TB, e *env, tweak docTweak) {
	t.Helper()
	searchtest.Index(t, e.Store, tweak)
}

func day(s string) time.Time { return searchtest.Day(s) }
