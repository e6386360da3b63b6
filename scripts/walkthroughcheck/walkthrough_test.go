package walkthroughcheck

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/testtier"
)

// The tools the walkthrough itself uses, as docs/walkthrough.md names them.
var tools = []string{"bash", "curl", "jq", "gdal_create", "go"}

// Issue 12, point 6: "Turn the walkthrough into a script under scripts/
// that runs every README example against a fresh server in CI (reading ids
// from responses), and keep the README text identical to what the script
// runs."
func TestWalkthrough(t *testing.T) {
	testtier.FullOnly(t, "builds and runs the server")
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			msg := "the walkthrough needs " + tool + " (make deps)"
			if os.Getenv("CI") != "" || os.Getenv("GEOPUB_REQUIRE_TOOLS") == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join("..", "walkthrough.sh"))
	cmd.Env = append(os.Environ(), "GEOPUB_WALKTHROUGH_TIMEOUT=420")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("walkthrough failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "every check passed") {
		t.Fatalf("walkthrough did not reach its checks:\n%s", out)
	}
	t.Logf("%s", lastLines(string(out), 8))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
