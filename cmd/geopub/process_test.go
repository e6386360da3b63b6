package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// envMainArgs, set by startProcess, makes the test binary run as the
// geopub command itself (TestMain calls main with these arguments): the
// real `geopub serve` in a process of its own, which a test can SIGKILL.
const envMainArgs = "GEOPUB_TEST_MAIN_ARGS"

func TestMain(m *testing.M) {
	if a := os.Getenv(envMainArgs); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			fmt.Fprintln(os.Stderr, "bad", envMainArgs, err)
			os.Exit(2)
		}
		os.Args = append(os.Args[:1], args...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// process is a geopub command running in a child process.
type process struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs bytes.Buffer
	done chan struct{}
}

func (p *process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.Write(b)
}

// Logs is what the process wrote to stderr so far.
func (p *process) Logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// startProcess runs `geopub args...` as a child process; it is killed
// when the test ends if it is still running.
func startProcess(t *testing.T, args ...string) *process {
	t.Helper()
	return startProcessEnv(t, nil, args...)
}

// startProcessEnv is startProcess with env (KEY=value) added to the
// test's environment.
func startProcessEnv(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), envMainArgs+"="+string(a))
	return startCmd(t, cmd)
}

// startCmd starts cmd with its output kept (Logs) and SIGKILLs it at the
// test's end.
func startCmd(t *testing.T, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{cmd: cmd, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.kill(t) })
	return p
}

// kill sends SIGKILL and waits for the process to end.
func (p *process) kill(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
		return
	default:
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Errorf("kill: %v", err)
	}
	<-p.done
}

// waitReady polls base/readyz until the service answers.
func waitReady(t *testing.T, p *process, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		select {
		case <-p.done:
			t.Fatalf("geopub exited: %v\n%s", p.cmd.ProcessState, tail(p.Logs()))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("service not ready: %v\n%s", err, tail(p.Logs()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tail is the end of a log, for failure messages.
func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}
