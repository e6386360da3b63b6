package pagefile_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/geopub/geopub/internal/remote"
	"github.com/geopub/geopub/internal/remote/pagefile"
)

// A refusal (401, 403) or a missing resource fails a scan at once; a
// server in trouble (5xx) is asked again. The server's own message keeps
// the status's verdict and its text.
func TestStatusErrorPermanence(t *testing.T) {
	for code, want := range map[int]bool{400: true, 401: true, 403: true, 404: true, 410: true, 429: false, 500: false, 503: false} {
		se := &pagefile.StatusError{Status: fmt.Sprintf("%d Something", code), Code: code}
		if got := remote.IsPermanent(se); got != want {
			t.Errorf("%d: IsPermanent = %v, want %v", code, got, want)
		}
		explained := fmt.Errorf("scanning roads: %w", se.With(errors.New("InvalidParameterValue: bad typeName")))
		if got := remote.IsPermanent(explained); got != want {
			t.Errorf("%d explained: IsPermanent = %v, want %v", code, got, want)
		}
		if msg := explained.Error(); msg != fmt.Sprintf("scanning roads: %d Something: InvalidParameterValue: bad typeName", code) {
			t.Errorf("message %q", msg)
		}
	}
}
