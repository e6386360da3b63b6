// Package smbtest starts a real SMB file server for tests: Debian's smbd
// (package samba, installed by scripts/ensure-deps.sh test) in the
// foreground on a free port of 127.0.0.1, with its own smb.conf, state
// folders and password database in a temporary folder, so the machine's
// Samba configuration is neither read nor changed. Its one share, "data",
// is a temporary folder; its one user is the Unix user running the test
// (Samba maps every account to a Unix user, and reusing the current one
// creates none), with the password Password. smbd runs as root, which CI
// and the developers' machines are.
package smbtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/testtier"
)

// Password is the test user's password.
const Password = "Share-test-pw-42"

// Server is a running smbd.
type Server struct {
	// Addr is host:port.
	Addr string
	// User is the account that signs in with Password.
	User string
	// Dir is the folder the share "data" serves.
	Dir string
}

// URL is the cifs URL of a folder of the share.
func (s *Server) URL(folder string) string {
	return "cifs://" + s.Addr + "/data/" + strings.TrimLeft(folder, "/")
}

// Write puts a file into the share.
func (s *Server) Write(t testing.TB, rel string, body []byte) {
	t.Helper()
	p := filepath.Join(s.Dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, body, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Remove deletes a file of the share.
func (s *Server) Remove(t testing.TB, rel string) {
	t.Helper()
	if err := os.Remove(filepath.Join(s.Dir, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
}

func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("GEOPUB_REQUIRE_TOOLS") == "" {
		t.Skipf(format, args...)
	}
	t.Fatalf(format, args...)
}

// Start runs smbd for the test's duration. Without smbd, or when not root,
// the test is skipped, unless GEOPUB_REQUIRE_TOOLS is set, when it fails.
func Start(t testing.TB) *Server {
	t.Helper()
	testtier.FullOnly(t, "starts Samba")
	smbd, err := exec.LookPath("smbd")
	if err != nil {
		smbd = "/usr/sbin/smbd"
	}
	smbpasswd, perr := exec.LookPath("smbpasswd")
	if _, err := os.Stat(smbd); err != nil || perr != nil {
		unavailable(t, "smbd or smbpasswd missing (bash scripts/ensure-deps.sh test installs samba)")
	}
	if os.Geteuid() != 0 {
		unavailable(t, "smbd needs root")
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, d := range []string{"private", "lock", "state", "cache", "pid", "ncalrpc", "share"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	conf := filepath.Join(root, "smb.conf")
	if err := os.WriteFile(conf, []byte(config(root, port, me.Username)), 0o644); err != nil {
		t.Fatal(err)
	}
	add := exec.Command(smbpasswd, "-c", conf, "-a", "-s", me.Username)
	add.Stdin = strings.NewReader(Password + "\n" + Password + "\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("smbpasswd: %v: %s", err, out)
	}
	var logs bytes.Buffer
	cmd := exec.Command(smbd, "--foreground", "--no-process-group", "--debug-stdout", "-s", conf)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	// A group of its own: smbd signals its whole process group when it
	// stops, which must not reach the test binary.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting smbd: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		pgid := cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-done
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(15 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			break
		}
		select {
		case <-done:
			t.Fatalf("smbd exited: %s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("smbd did not listen on %s", addr)
		}
		time.Sleep(30 * time.Millisecond)
	}
	return &Server{Addr: addr, User: me.Username, Dir: filepath.Join(root, "share")}
}

// config is an smb.conf that keeps every file smbd writes under root.
func config(root string, port int, user string) string {
	return fmt.Sprintf(`[global]
  server role = standalone server
  interfaces = 127.0.0.1
  bind interfaces only = yes
  smb ports = %[2]d
  disable netbios = yes
  server min protocol = SMB2_10
  private dir = %[1]s/private
  binddns dir = %[1]s/private
  lock directory = %[1]s/lock
  state directory = %[1]s/state
  cache directory = %[1]s/cache
  pid directory = %[1]s/pid
  ncalrpc dir = %[1]s/ncalrpc
  log file = %[1]s/smbd.log
  passdb backend = tdbsam:%[1]s/private/passdb.tdb
  load printers = no
  printing = bsd
  printcap name = /dev/null
  disable spoolss = yes
  map to guest = never
  usershare path =
  include system krb5 conf = no
[data]
  path = %[1]s/share
  read only = yes
  valid users = %[3]s
`, root, port, user)
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
