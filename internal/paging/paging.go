// Package paging validates the offset paging every list takes: a 1-based
// page number and a page size with the specification's default and caps.
package paging

import (
	"fmt"

	"github.com/geopub/geopub/internal/apperr"
)

// The specification's limits.
const (
	// DefaultSize is the page size when none is given.
	DefaultSize = 100
	// MaxSize caps most lists.
	MaxSize = 200
	// MaxSizeLarge caps the group, license, version-datasource,
	// version-tile and datasource link-resolution lists.
	MaxSizeLarge = 100000
)

// Page is a validated page request.
type Page struct {
	// Number is 1-based.
	Number int
	// Size is the number of items per page.
	Size int
}

// Offset is the number of items before the page.
func (p Page) Offset() int { return (p.Number - 1) * p.Size }

// New validates a page number and size (nil means the default) against the
// cap of the list: a page below 1, a size below 1 or a size above the cap
// is an Invalid error naming the parameter.
func New(number, size *int, maxSize int) (Page, error) {
	p := Page{Number: 1, Size: DefaultSize}
	if number != nil {
		if *number < 1 {
			return Page{}, apperr.Field("page", "A page number must be 1 or more.")
		}
		p.Number = *number
	}
	if size != nil {
		if *size < 1 {
			return Page{}, apperr.Field("page_size", "A page size must be 1 or more.")
		}
		if *size > maxSize {
			return Page{}, apperr.Field("page_size", fmt.Sprintf("A page size must be at most %d.", maxSize))
		}
		p.Size = *size
	}
	if p.Size > maxSize {
		p.Size = maxSize
	}
	// Guard the offset arithmetic against absurd page numbers.
	if p.Number > 1<<31/p.Size {
		return Page{}, apperr.Field("page", "The page number is too large.")
	}
	return p, nil
}
