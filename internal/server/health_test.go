package server_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

func TestHealthAndReadiness(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		e := servertest.New(t, st)
		for path, want := range map[string]int{"/healthz": http.StatusOK, "/readyz": http.StatusOK} {
			resp, err := http.Get(e.HTTP.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want || string(body) != "ok\n" {
				t.Fatalf("%s = %d %q", path, resp.StatusCode, body)
			}
		}
		// With the database gone, readiness fails and health does not.
		st.DB.Close()
		resp, err := http.Get(e.HTTP.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("/readyz with the database closed = %d", resp.StatusCode)
		}
	})
}
