package smbsource_test

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/smbsource"
	"github.com/geopub/geopub/internal/remote/smbsource/smbtest"
)

func loopback() *fetch.Client {
	return &fetch.Client{Guard: &fetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}
}

func conn(srv *smbtest.Server, url string) remote.Conn {
	return remote.Conn{URL: url, Username: srv.User, Password: smbtest.Password, Fetch: loopback()}
}

func TestGatherWalksTheFolder(t *testing.T) {
	srv := smbtest.Start(t)
	srv.Write(t, "wellington/roads.geojson", []byte(`{"type":"FeatureCollection","features":[]}`))
	srv.Write(t, "wellington/parcels/deep/parcels.zip", []byte("zip"))
	srv.Write(t, "other.csv", []byte("a\n1\n"))
	inbox := t.TempDir()
	files, err := smbsource.Kind{}.Gather(context.Background(), conn(srv, srv.URL("wellington")), inbox, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	if !slices.Equal(files, []string{"parcels/deep/parcels.zip", "roads.geojson"}) {
		t.Fatalf("files %v", files)
	}
	if b, err := os.ReadFile(filepath.Join(inbox, "parcels", "deep", "parcels.zip")); err != nil || string(b) != "zip" {
		t.Fatalf("copied %q %v", b, err)
	}
	files, err = smbsource.Kind{}.Gather(context.Background(), conn(srv, srv.URL("")), t.TempDir(), func(string) {})
	if err != nil || len(files) != 3 {
		t.Fatalf("whole share: %v %v", files, err)
	}
}

func TestGatherExplainsFailures(t *testing.T) {
	srv := smbtest.Start(t)
	srv.Write(t, "a.csv", []byte("a\n1\n"))
	ctx := context.Background()
	note := func(string) {}

	c := conn(srv, srv.URL(""))
	c.Password = "wrong-password-value"
	_, err := smbsource.Kind{}.Gather(ctx, c, t.TempDir(), note)
	if !remote.IsPermanent(err) || !strings.Contains(err.Error(), "refused the credentials") || strings.Contains(err.Error(), c.Password) {
		t.Fatalf("wrong password: %v", err)
	}
	_, err = smbsource.Kind{}.Gather(ctx, conn(srv, "cifs://"+srv.Addr+"/nosuchshare"), t.TempDir(), note)
	if !remote.IsPermanent(err) || !strings.Contains(err.Error(), "share does not exist") {
		t.Fatalf("missing share: %v", err)
	}
	_, err = smbsource.Kind{}.Gather(ctx, conn(srv, srv.URL("missing")), t.TempDir(), note)
	if !remote.IsPermanent(err) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing folder: %v", err)
	}
	_, err = smbsource.Kind{}.Gather(ctx, conn(srv, "cifs://127.0.0.1:1/data"), t.TempDir(), note)
	if err == nil || !strings.Contains(err.Error(), "Could not reach the file server at 127.0.0.1:1") {
		t.Fatalf("unreachable: %v", err)
	}
	c = conn(srv, srv.URL(""))
	c.Fetch = &fetch.Client{Guard: &fetch.Guard{}}
	_, err = smbsource.Kind{}.Gather(ctx, c, t.TempDir(), note)
	if !errors.Is(err, fetch.ErrForbiddenAddress) {
		t.Fatalf("guard: %v", err)
	}
}

func TestParseURL(t *testing.T) {
	for raw, want := range map[string]smbsource.Location{
		"cifs://files.example/data":      {Addr: "files.example:445", Share: "data"},
		"cifs://10.0.0.1:4455/data/a/b/": {Addr: "10.0.0.1:4455", Share: "data", Dir: "a/b"},
		"CIFS://[::1]/s/x":               {Addr: "[::1]:445", Share: "s", Dir: "x"},
	} {
		if got, problem := smbsource.ParseURL(raw); problem != "" || got != want {
			t.Errorf("%s: %+v %q", raw, got, problem)
		}
	}
	for _, raw := range []string{"cifs://host", "cifs://host/", "smb://host/s", "cifs://u:p@host/s", "cifs://host:0/s", "cifs://host/s/../x", "cifs:///s", "cifs://host/s?x=1"} {
		if _, problem := smbsource.ParseURL(raw); problem == "" {
			t.Errorf("%s accepted", raw)
		}
	}
}
