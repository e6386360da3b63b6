package benchkit

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
)

// StartChild runs this program again with args as a server child (the
// load client then shares no Go runtime with the server) and decodes the
// JSON line the child prints once it serves into info. stop kills the
// child and waits for it.
func StartChild(ctx context.Context, info any, args ...string) (pid int, stop func(), err error) {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	stop = func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err != nil {
		stop()
		return 0, nil, fmt.Errorf("the server child did not start: %w", err)
	}
	if err := json.Unmarshal(line, info); err != nil {
		stop()
		return 0, nil, err
	}
	return cmd.Process.Pid, stop, nil
}
