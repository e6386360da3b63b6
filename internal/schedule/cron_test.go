package schedule

import (
	"testing"
	"time"
)

func TestNext(t *testing.T) {
	at := time.Date(2026, 11, 24, 13, 29, 27, 0, time.UTC) // a Tuesday
	for spec, want := range map[string]string{
		"@hourly":          "2026-11-24T14:00:00Z",
		"@daily":           "2026-11-25T00:00:00Z",
		"@weekly":          "2026-11-29T00:00:00Z",
		"@monthly":         "2026-12-01T00:00:00Z",
		"@yearly":          "2027-01-01T00:00:00Z",
		"*/15 * * * *":     "2026-11-24T13:30:00Z",
		"5 4 * * *":        "2026-11-25T04:05:00Z",
		"0 9-17/4 * * 1-5": "2026-11-24T17:00:00Z",
		"0 0 29 2 *":       "2028-02-29T00:00:00Z",
		"0 12 13 * 5":      "2026-11-27T12:00:00Z", // Friday, or the 13th
		"30 2 1,15 * *":    "2026-12-01T02:30:00Z",
		"0 0 * * 7":        "2026-11-29T00:00:00Z", // 7 is Sunday
	} {
		s, err := Parse(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if got := s.Next(at).Format(time.RFC3339); got != want {
			t.Errorf("%s: next %s, want %s", spec, got, want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, spec := range []string{"", "@often", "* * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *",
		"* * * * 8", "*/0 * * * *", "5-1 * * * *", "a * * * *", "* * * * * *"} {
		if _, err := Parse(spec); err == nil {
			t.Errorf("%q parsed", spec)
		}
	}
	if err := Check("scan_schedule", "0 0 30 2 *"); err == nil {
		t.Error("30 February accepted")
	}
	if err := Check("scan_schedule", ""); err != nil {
		t.Errorf("empty: %v", err)
	}
	if NextAfter("", time.Now()) != nil || NextAfter("@daily", time.Now()) == nil {
		t.Error("NextAfter")
	}
}
