package main

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/testtier"
)

// Issue 24, point 24: the data services remember a checked key and access
// decisions for a second in every process, so a token deleted through one
// replica kept working on another for up to that second. A change made
// anywhere reaches every replica's remembered decisions through the
// database's change signal: two `geopub serve` processes on one
// PostgreSQL, the token deleted through the first, refused by the second
// well inside the old second.
func TestRevocationReachesTheOtherReplica(t *testing.T) {
	testtier.FullOnly(t, "starts processes")
	dbURL := storetest.ScratchPostgres(t)
	dir := t.TempDir()
	serve := func() string {
		addr := freeAddr(t)
		p := startProcess(t, "serve", "--addr", addr, "--data-dir", dir, "--database-url", dbURL, "--workers", "0")
		waitReady(t, p, "http://"+addr)
		return "http://" + addr
	}
	first, second := serve(), serve()
	runCmd(t, "user", "create", "--data-dir", dir, "--database-url", dbURL,
		"--email", "replica@example.com", "--password", "correct horse battery")
	a := &api{t: t, base: first + "/services/api/v1.x"}
	var tok struct {
		ID  int
		Key string
	}
	a.postJSON("/tokens/", map[string]any{"grant_type": "password", "username": "replica@example.com",
		"password": "correct horse battery", "name": "replica", "scope": "query layers:read wxs:wfs tokens:write"}, &tok)
	a.key = tok.Key

	collections := func() int {
		req, _ := http.NewRequest(http.MethodGet, second+"/services/ogc/features/collections", nil)
		req.Header.Set("Authorization", "key "+tok.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// Nothing remembered, then the key checked and remembered just now.
	time.Sleep(1100 * time.Millisecond)
	if s := collections(); s != http.StatusOK {
		t.Fatalf("the second replica with the live key: %d", s)
	}
	a.do(http.MethodDelete, "/tokens/"+strconv.Itoa(tok.ID)+"/", "", nil, nil)
	deleted := time.Now()
	for collections() != http.StatusUnauthorized {
		if time.Since(deleted) > 2*time.Second {
			t.Fatal("the deleted key still works on the second replica after 2 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if took := time.Since(deleted); took > 500*time.Millisecond {
		t.Errorf("the second replica refused the deleted key %s after the delete; the key cache alone keeps it 1 s", took)
	} else {
		t.Logf("refused %s after the delete", took)
	}
}
