package paging_test

import (
	"testing"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/paging"
)

func ptr(i int) *int { return &i }

func TestNew(t *testing.T) {
	tests := []struct {
		name         string
		number, size *int
		max          int
		want         paging.Page
		wantField    string
	}{
		{"Defaults", nil, nil, paging.MaxSize, paging.Page{Number: 1, Size: 100}, ""},
		{"AtCap", ptr(3), ptr(200), paging.MaxSize, paging.Page{Number: 3, Size: 200}, ""},
		{"ErrAboveCap", nil, ptr(201), paging.MaxSize, paging.Page{}, "page_size"},
		{"LargeCap", nil, ptr(100000), paging.MaxSizeLarge, paging.Page{Number: 1, Size: 100000}, ""},
		{"ErrAboveLargeCap", nil, ptr(100001), paging.MaxSizeLarge, paging.Page{}, "page_size"},
		{"ErrZeroPage", ptr(0), nil, paging.MaxSize, paging.Page{}, "page"},
		{"ErrZeroSize", nil, ptr(0), paging.MaxSize, paging.Page{}, "page_size"},
		{"ErrHugePage", ptr(1 << 40), ptr(100), paging.MaxSize, paging.Page{}, "page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := paging.New(tt.number, tt.size, tt.max)
			if tt.wantField != "" {
				e := apperr.As(err)
				if e.Code != apperr.Invalid || len(e.Fields[tt.wantField]) == 0 {
					t.Fatalf("err = %v, want Invalid on %s", err, tt.wantField)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
			if got.Offset() != (got.Number-1)*got.Size {
				t.Fatal("offset")
			}
		})
	}
}
