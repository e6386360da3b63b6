package scratch_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/geopub/geopub/internal/scratch"
)

// TestHoldArea is the child process of TestSweepRemovesDeadProcesses: it
// opens an area, leaves a file in it, reports its folder and waits to be
// killed.
func TestHoldArea(t *testing.T) {
	root := os.Getenv("SCRATCH_TEST_ROOT")
	if root == "" {
		t.Skip("child process of TestSweepRemovesDeadProcesses")
	}
	a, err := scratch.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.Dir(), "geopub-import-1"), make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString(a.Dir() + "\n")
	select {}
}

func TestSweepRemovesDeadProcesses(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldArea$")
	cmd.Env = append(os.Environ(), "SCRATCH_TEST_ROOT="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("child: %v", err)
	}
	deadDir := line[:len(line)-1]

	live, err := scratch.Open(root) // sweeps, but the child is alive
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if _, err := os.Stat(deadDir); err != nil {
		t.Fatalf("a live process's folder was swept: %v", err)
	}
	os.WriteFile(filepath.Join(live.Dir(), "part"), []byte("x"), 0o600)

	cmd.Process.Kill() // SIGKILL: no chance to clean up
	cmd.Wait()
	if _, err := os.Stat(deadDir); err != nil {
		t.Fatalf("the killed process's folder vanished by itself: %v", err)
	}
	removed, err := scratch.Sweep(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != filepath.Base(deadDir) {
		t.Fatalf("swept %v, want [%s]", removed, filepath.Base(deadDir))
	}
	if _, err := os.Stat(deadDir); !os.IsNotExist(err) {
		t.Fatalf("the dead process's folder is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(live.Dir(), "part")); err != nil {
		t.Fatalf("this process's folder was swept: %v", err)
	}
	if err := live.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Fatalf("left after Close: %v", left)
	}
}
