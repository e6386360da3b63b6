package benchkit

import (
	"fmt"
	"os"
	"runtime/metrics"
	"strings"
	"time"
)

// VmHWM is this process's own peak resident size (/proc/self/status
// VmHWM, which unlike the rusage a parent reads does not carry the
// parent's over exec), in bytes; C allocations count. -1 when unknown.
func VmHWM() int64 { return procStatus("self", "VmHWM") }

// ProcStatus reads a size field of /proc/PID/status ("VmHWM", "RssAnon",
// …) in bytes; -1 when unknown.
func ProcStatus(pid int, field string) int64 { return procStatus(fmt.Sprint(pid), field) }

func procStatus(pid, field string) int64 {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb * 1024
		}
	}
	return -1
}

// SamplePeakHeap samples the live Go heap every 20 ms until stop closes
// and then sends the largest value seen on out.
func SamplePeakHeap(stop <-chan struct{}, out chan<- uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		metrics.Read(s)
		peak = max(peak, s[0].Value.Uint64())
		select {
		case <-stop:
			out <- peak
			return
		case <-t.C:
		}
	}
}
