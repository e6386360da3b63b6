package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/geopub/geopub/internal/apperr"
)

// ticketStatuses are the states of a ticket, in their usual order. A
// comment has the blank status.
var ticketStatuses = []string{"open", "onhold", "in-progress", "resolved", "closed"}

// ticketTransitions lists, per status, the statuses a ticket may move to.
// Work can pause and resume freely; a resolved ticket is closed or
// reopened; a closed ticket can only be reopened.
var ticketTransitions = map[string][]string{
	"open":        {"onhold", "in-progress", "resolved", "closed"},
	"onhold":      {"open", "in-progress", "resolved", "closed"},
	"in-progress": {"open", "onhold", "resolved", "closed"},
	"resolved":    {"open", "closed"},
	"closed":      {"open"},
}

// checkTransition says whether an item with status from may be given
// status to. The same status is no change. A comment (blank) becomes a
// ticket with any status; a ticket never becomes a comment again.
func checkTransition(from, to string) error {
	if from == to {
		return nil
	}
	if to == "" {
		return apperr.Field("status", "A ticket cannot become a comment again.")
	}
	if !slices.Contains(ticketStatuses, to) {
		return apperr.Field("status", fmt.Sprintf("Unknown status %q: use one of %s.", to, strings.Join(ticketStatuses, ", ")))
	}
	if from == "" || slices.Contains(ticketTransitions[from], to) {
		return nil
	}
	return apperr.Field("status", fmt.Sprintf("A ticket cannot move from %s to %s; from %s it can move to %s.",
		from, to, from, strings.Join(ticketTransitions[from], ", ")))
}

// checkStatusFilter checks the statuses a list is narrowed to.
func checkStatusFilter(statuses []string) error {
	for _, s := range statuses {
		if s != "" && !slices.Contains(ticketStatuses, s) {
			return apperr.Field("status", fmt.Sprintf("Unknown status %q: use one of %s.", s, strings.Join(ticketStatuses, ", ")))
		}
	}
	return nil
}

// changeSet collects the properties an update changes, as the update
// record's changes: property -> {from, to}.
type changeSet map[string]any

// record notes a change of property from one value to another; equal
// values are no change.
func (c changeSet) record(property string, from, to any) {
	if from == to {
		return
	}
	c[property] = map[string]any{"from": from, "to": to}
}

// has reports whether property changed.
func (c changeSet) has(property string) bool {
	_, ok := c[property]
	return ok
}

// intOrNil gives an optional id as a JSON value: the id, or null.
func intOrNil(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
