package featureindex

import "time"

// SetRetryAfter sets the retry interval for a test and returns what
// restores it.
func SetRetryAfter(d time.Duration) (restore func()) {
	old := retryAfter
	retryAfter = d
	return func() { retryAfter = old }
}
