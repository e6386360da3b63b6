package graph

import (
	"fmt"

	"github.com/geopub/geopub/internal/apperr"
)

// MaxListInput bounds the lists of ids a caller may pass to one mutation
// (datasources, attachments, versions to publish), whichever front door
// it uses: GraphQL refuses longer list arguments before running
// (graph/limits), but REST bodies of 1 MiB hold tens of thousands of ids,
// which would reach the database as one IN (...) past SQLite's 32,766
// parameters.
const MaxListInput = 1000

// checkListInput refuses a list of n items given as field when it is
// longer than MaxListInput.
func checkListInput(field string, n int) error {
	if n > MaxListInput {
		return apperr.Field(field, fmt.Sprintf("%d items are more than the %d this takes.", n, MaxListInput))
	}
	return nil
}
