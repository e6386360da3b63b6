package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

// auditRules: the audit log is read by any signed-in caller whose token
// holds users:read; what each reads is narrowed, not refused (site admins
// everything, group admins their groups' entries, others an empty list),
// which auditReadsOnlyTheirs checks. Anonymous callers get 401.
func auditRules(rules map[string]rule) {
	for _, p := range []string{"/audit", "/audit.csv"} {
		rules["GET "+p] = rule{targets: []target{{p + "/", signedIn}}, check: auditReadsOnlyTheirs}
		if p == "/audit.csv" {
			rules["GET "+p] = rule{targets: []target{{p, signedIn}}, plain: true, check: auditReadsOnlyTheirs}
		}
	}
}

// auditReadsOnlyTheirs checks that the outsider, who administers no
// group, reads no entry.
func auditReadsOnlyTheirs(t *testing.T, f *fixtures, o *object, path string, ro role, resp *servertest.Response) {
	t.Helper()
	if resp.Status != http.StatusOK || ro != outsider {
		return
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && strings.TrimSpace(string(resp.Body)) != "[]" {
		t.Errorf("%s as %s: read entries %s, want none", path, ro, resp.Body)
	}
}
