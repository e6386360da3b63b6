package apperr_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/geopub/geopub/internal/apperr"
)

func TestAsKeepsCodeThroughWrapping(t *testing.T) {
	err := fmt.Errorf("loading group: %w", apperr.ErrNotFound)
	if got := apperr.CodeOf(err); got != apperr.NotFound {
		t.Fatalf("code = %s, want NOT_FOUND", got)
	}
	if got := apperr.As(err).Code.HTTPStatus(); got != http.StatusNotFound {
		t.Fatalf("status = %d", got)
	}
}

func TestUnknownErrorsAreInternalAndHideTheirText(t *testing.T) {
	e := apperr.As(errors.New("pq: connection refused at 10.0.0.3"))
	if e.Code != apperr.Internal || e.Message != "Internal server error." {
		t.Fatalf("got %+v", e)
	}
}

func TestFieldErrors(t *testing.T) {
	var f = apperr.FieldErrors{}
	if f.Err() != nil {
		t.Fatal("empty field errors must be nil")
	}
	f.Add("name", "This field is required.")
	f.Add("country", "Not a country code.")
	e := apperr.As(f.Err())
	if e.Code != apperr.Invalid || len(e.Fields) != 2 {
		t.Fatalf("got %+v", e)
	}
	if e.Message != "country: Not a country code.; name: This field is required." {
		t.Fatalf("message = %q", e.Message)
	}
}

func TestMissingScopeNamesTheScope(t *testing.T) {
	e := apperr.MissingScope("users:read")
	if e.Code.HTTPStatus() != http.StatusUnauthorized || e.Message != "The token lacks the required scope: users:read." {
		t.Fatalf("got %+v", e)
	}
}

func TestCodesAndStatusesAreOneTable(t *testing.T) {
	codes := apperr.Codes()
	if len(codes) != 11 || codes[0] != apperr.Invalid || codes[8] != apperr.Internal || codes[len(codes)-1] != apperr.TimedOut {
		t.Fatalf("codes = %v", codes)
	}
	for _, c := range codes {
		if got := apperr.ForStatus(c.HTTPStatus()); got != c {
			t.Errorf("ForStatus(%d) = %s, want %s", c.HTTPStatus(), got, c)
		}
	}
	if got := apperr.ForStatus(http.StatusTeapot); got != apperr.Internal {
		t.Errorf("ForStatus(418) = %s", got)
	}
}
