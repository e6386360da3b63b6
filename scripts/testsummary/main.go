// Command testsummary reads `go test -json` on stdin and writes what a
// person wants to read: one line per package as it finishes (as go test
// prints them), the output of every failed test, and at the end what ran,
// what was skipped and why, with counts, the slowest tests (to keep the
// suite inside its time budget), closing on the plain line
// "N passed, N failed, N skipped". scripts/test.sh pipes the suite into it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type testKey struct{ pkg, test string }

type summary struct {
	out             io.Writer
	output          map[testKey][]string // output of tests still running
	passed, failed  int
	skipped         []skip
	failedTests     []testKey
	failedPackages  []string
	packagesRun     int
	packagesNoTests int
	durations       []timed // top-level tests that ended
}

// timed is a top-level test and how long it ran.
type timed struct {
	key     testKey
	elapsed float64
}

// slowestShown is how many of the slowest tests the report lists.
const slowestShown = 12

type skip struct {
	key    testKey
	reason string
}

func main() {
	s := &summary{out: os.Stdout, output: map[testKey][]string{}}
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	s.report()
	if s.failed > 0 || len(s.failedPackages) > 0 {
		os.Exit(1)
	}
}

func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Build errors and other non-JSON lines pass through.
			fmt.Fprintln(s.out, string(line))
			continue
		}
		s.add(e)
	}
	return sc.Err()
}

func (s *summary) add(e event) {
	k := testKey{e.Package, e.Test}
	switch e.Action {
	case "output":
		if e.Test != "" {
			s.output[k] = append(s.output[k], e.Output)
		} else if strings.HasPrefix(e.Output, "ok ") || strings.HasPrefix(e.Output, "FAIL") || strings.HasPrefix(e.Output, "?") {
			fmt.Fprint(s.out, e.Output)
		} else if strings.HasPrefix(e.Output, "panic:") || strings.Contains(e.Output, "[build failed]") || strings.Contains(e.Output, "[setup failed]") {
			fmt.Fprint(s.out, e.Output)
		}
	case "pass":
		if e.Test == "" {
			s.packagesRun++
			return
		}
		if !strings.Contains(e.Test, "/") {
			s.passed++
			s.durations = append(s.durations, timed{k, e.Elapsed})
		}
		delete(s.output, k)
	case "fail":
		if e.Test == "" {
			s.failedPackages = append(s.failedPackages, e.Package)
			return
		}
		if !strings.Contains(e.Test, "/") {
			s.failed++
			s.durations = append(s.durations, timed{k, e.Elapsed})
		}
		s.failedTests = append(s.failedTests, k)
		fmt.Fprintf(s.out, "--- FAIL: %s (%s)\n%s", e.Test, e.Package, strings.Join(s.output[k], ""))
		delete(s.output, k)
	case "skip":
		if e.Test == "" {
			s.packagesNoTests++
			return
		}
		s.skipped = append(s.skipped, skip{k, skipReason(s.output[k])})
		delete(s.output, k)
	}
}

// skipReason is the message t.Skip printed: the test's own output lines,
// without the === and --- lines test2json adds and the file:line prefix.
func skipReason(lines []string) string {
	var reason []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		if i := strings.Index(t, ": "); i > 0 && strings.Contains(t[:i], ".go:") {
			t = t[i+2:]
		}
		reason = append(reason, t)
	}
	if len(reason) == 0 {
		return "no reason given"
	}
	return strings.Join(reason, " ")
}

func (s *summary) report() {
	fmt.Fprintln(s.out)
	fmt.Fprintf(s.out, "test summary: %d packages with tests, %d without\n", s.packagesRun+len(s.failedPackages), s.packagesNoTests)
	if len(s.skipped) > 0 {
		// Group skips by reason: one line per reason with its count.
		byReason := map[string][]string{}
		for _, sk := range s.skipped {
			byReason[sk.reason] = append(byReason[sk.reason], sk.key.test)
		}
		reasons := make([]string, 0, len(byReason))
		for r := range byReason {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		fmt.Fprintf(s.out, "skipped (%d tests and subtests):\n", len(s.skipped))
		for _, r := range reasons {
			names := byReason[r]
			sort.Strings(names)
			example := names[0]
			fmt.Fprintf(s.out, "  %4d  %s (e.g. %s)\n", len(names), r, example)
		}
	}
	s.reportSlowest()
	for _, k := range s.failedTests {
		fmt.Fprintf(s.out, "FAILED: %s %s\n", k.pkg, k.test)
	}
	for _, p := range s.failedPackages {
		fmt.Fprintf(s.out, "FAILED package: %s\n", p)
	}
	// The plain closing line: top-level tests only.
	fmt.Fprintf(s.out, "%d passed, %d failed, %d skipped\n", s.passed, s.failed, countTop(s.skipped))
}

func countTop(sk []skip) int {
	n := 0
	for _, s := range sk {
		if !strings.Contains(s.key.test, "/") {
			n++
		}
	}
	return n
}

// reportSlowest lists the slowest top-level tests, slowest first.
func (s *summary) reportSlowest() {
	if len(s.durations) == 0 {
		return
	}
	d := append([]timed(nil), s.durations...)
	sort.SliceStable(d, func(i, j int) bool { return d[i].elapsed > d[j].elapsed })
	d = d[:min(len(d), slowestShown)]
	fmt.Fprintf(s.out, "slowest tests:\n")
	for _, t := range d {
		fmt.Fprintf(s.out, "  %7.1fs  %s %s\n", t.elapsed, t.key.pkg, t.key.test)
	}
}
