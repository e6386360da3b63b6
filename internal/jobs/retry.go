package jobs

import (
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// Backoff is Geopub's retry policy: the n-th retry waits Base·2^(n-1),
// capped at Max, plus up to 10% jitter so that jobs failing together do
// not retry together. A worker can still choose its own delay with
// NextRetry.
type Backoff struct {
	Base time.Duration
	Max  time.Duration
}

// DefaultRetry retries after 5 s, 10 s, 20 s, ... up to 10 minutes between
// attempts: with the default 10 attempts a job keeps trying for about half
// an hour, enough to ride out a source or database outage, before it is
// discarded.
var DefaultRetry = Backoff{Base: 5 * time.Second, Max: 10 * time.Minute}

// NextRetry implements river.ClientRetryPolicy.
func (b Backoff) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(b.delay(job.Attempt))
}

func (b Backoff) delay(attempt int) time.Duration {
	d := b.Base
	for i := 1; i < attempt && d < b.Max; i++ {
		d *= 2
	}
	if d > b.Max {
		d = b.Max
	}
	if j := int64(d / 10); j > 0 {
		d += time.Duration(rand.Int64N(j))
	}
	return d
}
