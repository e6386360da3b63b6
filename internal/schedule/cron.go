// Package schedule runs the periodic work of sources and layers: a
// source's scan_schedule starts its scans, a layer's autoupdate_schedule
// scans the sources of its datasources, and a layer with autoupdate on is
// re-imported and published when those scans found its datasources
// changed.
//
// Schedules are @hourly, @daily (@midnight), @weekly, @monthly, @yearly
// (@annually) or five cron fields (minute hour day-of-month month
// day-of-week, with *, lists, ranges and /steps), read in UTC.
//
// One River periodic job (Args, kind "schedule") ticks every
// Config.Tick; each tick starts what is due. When a source or layer is
// next due is a column (sources.next_scan_at, layers.next_autoupdate_at),
// advanced in the same transaction that enqueues the scan, and only by
// the tick that moved it from the value it read: a restart neither loses
// a due run (the column still says it is due) nor runs it twice, and two
// ticks racing start it once. A source with a scan queued or running gets
// no second one.
package schedule

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/apperr"
)

// Spec is a parsed schedule.
type Spec struct {
	minute, hour, dom, month, dow uint64 // bit sets
	domAny, dowAny                bool
}

var macros = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// field bounds: minute, hour, day of month, month, day of week.
var bounds = [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 7}}

var names = [5]string{"minute", "hour", "day of month", "month", "day of week"}

// Parse reads a schedule.
func Parse(s string) (*Spec, error) {
	s = strings.TrimSpace(s)
	if m, ok := macros[strings.ToLower(s)]; ok {
		s = m
	} else if strings.HasPrefix(s, "@") {
		return nil, fmt.Errorf("%q is not a schedule: use @hourly, @daily, @weekly, @monthly, @yearly or five cron fields", s)
	}
	parts := strings.Fields(s)
	if len(parts) != 5 {
		return nil, fmt.Errorf("%q is not a schedule: a cron schedule has five fields (minute hour day-of-month month day-of-week)", s)
	}
	var sets [5]uint64
	for i, p := range parts {
		set, err := parseField(p, bounds[i][0], bounds[i][1])
		if err != nil {
			return nil, fmt.Errorf("the %s field %q: %v", names[i], p, err)
		}
		sets[i] = set
	}
	if sets[4]&(1<<7) != 0 { // 7 is Sunday too
		sets[4] |= 1
	}
	return &Spec{minute: sets[0], hour: sets[1], dom: sets[2], month: sets[3], dow: sets[4],
		domAny: parts[2] == "*", dowAny: parts[4] == "*"}, nil
}

// parseField reads one cron field: *, n, a-b, with /step, comma lists.
func parseField(f string, lo, hi int) (uint64, error) {
	var set uint64
	for _, item := range strings.Split(f, ",") {
		rng, stepText, hasStep := strings.Cut(item, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("bad step %q", stepText)
			}
			step = n
		}
		from, to := lo, hi
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			a, b, _ := strings.Cut(rng, "-")
			var err error
			if from, err = number(a, lo, hi); err != nil {
				return 0, err
			}
			if to, err = number(b, lo, hi); err != nil {
				return 0, err
			}
			if from > to {
				return 0, fmt.Errorf("range %s runs backwards", rng)
			}
		default:
			n, err := number(rng, lo, hi)
			if err != nil {
				return 0, err
			}
			from, to = n, n
			if hasStep {
				to = hi
			}
		}
		for v := from; v <= to; v += step {
			set |= 1 << uint(v)
		}
	}
	return set, nil
}

func number(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d is outside %d-%d", n, lo, hi)
	}
	return n, nil
}

// Next is the first time after t (to the minute, UTC) the schedule
// fires; the zero time if it never does (30 February).
func (s *Spec) Next(t time.Time) time.Time {
	t = t.UTC().Truncate(time.Minute).Add(time.Minute)
	limit := t.AddDate(5, 0, 0)
	for t.Before(limit) {
		switch {
		case s.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
		case s.hour&(1<<uint(t.Hour())) == 0:
			t = t.Truncate(time.Hour).Add(time.Hour)
		case s.minute&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

// dayMatches: with both day fields restricted, either may match (cron's
// rule); otherwise the restricted one must.
func (s *Spec) dayMatches(t time.Time) bool {
	dom := s.dom&(1<<uint(t.Day())) != 0
	dow := s.dow&(1<<uint(t.Weekday())) != 0
	switch {
	case s.domAny && s.dowAny:
		return true
	case s.domAny:
		return dow
	case s.dowAny:
		return dom
	}
	return dom || dow
}

// Problem is what is wrong with a schedule as sent: "" for none (the
// empty string) or one that parses and fires.
func Problem(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	spec, err := Parse(s)
	if err != nil {
		return err.Error()
	}
	if spec.Next(time.Now()).IsZero() {
		return fmt.Sprintf("%q never fires.", s)
	}
	return ""
}

// Check is Problem as a field error on field.
func Check(field, s string) error {
	if p := Problem(s); p != "" {
		return apperr.Field(field, p)
	}
	return nil
}

// NextAfter is when schedule s next fires after t; nil for no schedule
// (or one that does not parse, which Check refused on the way in).
func NextAfter(s string, t time.Time) *time.Time {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	spec, err := Parse(s)
	if err != nil {
		return nil
	}
	n := spec.Next(t)
	if n.IsZero() {
		return nil
	}
	return &n
}

// CheckAutoupdate validates a layer's auto-update settings as they will
// be: on needs a schedule. Errors are field errors on
// autoupdate_schedule.
func CheckAutoupdate(on bool, sched string) error {
	if on && strings.TrimSpace(sched) == "" {
		return apperr.Field("autoupdate_schedule", "This field is required when autoupdate is on.")
	}
	return Check("autoupdate_schedule", sched)
}
