// Package testtier sorts Geopub's tests into its two tiers. The full
// suite (`make test`, what CI runs) runs everything. The fast tier (`make
// test-fast`, which is `go test -short` with the test cache on) answers
// in a few minutes: the tests that start real servers or a browser, kill
// processes, walk the README or send hundreds of thousands of hostile
// inputs skip there, each with a one-line reason.
package testtier

import "testing"

// FullOnly skips t in the fast tier; what says what the test leaves out
// there ("starts MapServer", "SIGKILLs a serving process").
func FullOnly(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("full tier only (make test): %s", what)
	}
}
