package pgsource

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/remote"
)

// Issue 24.7: a connection without a username is refused before any
// dialling: no user (postgres or another) is assumed.
func TestConnectNeedsUsername(t *testing.T) {
	c := remote.Conn{URL: "postgresql://127.0.0.1:5432/postgres",
		Fetch: &fetch.Client{Guard: &fetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}}
	conn, _, err := connect(context.Background(), c)
	if conn != nil {
		conn.Close(context.Background())
	}
	var pe *remote.PermanentError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "username") {
		t.Fatalf("connect without a username: %v", err)
	}
}
