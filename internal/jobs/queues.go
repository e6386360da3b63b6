package jobs

import (
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Queues. Work that only touches this host's files and the database
// (upload scans, imports of uploaded files, publishes) runs in QueueLocal;
// work that downloads from remote servers (URL scans, imports of URL
// sources) runs in QueueRemote, whose workers are counted apart, so slow
// remote servers can hold at most Config.RemoteWorkers workers and never
// keep local work waiting.
const (
	QueueLocal  = river.QueueDefault
	QueueRemote = "remote"
)

const (
	defaultRemoteWorkers = 2
	defaultPerUser       = 2
	defaultFairSnooze    = 5 * time.Second
)

// userTagPrefix marks the tag that names the user a job works for.
const userTagPrefix = "user-"

// For is the insert options of a job done for userID: its queue (remote
// when it downloads from remote servers) and the tag the per-user limit
// counts by. Pass it to Insert or InsertTx; the job kind's own
// InsertOpts (attempts, ...) still apply.
func For(userID int, remote bool) *river.InsertOpts {
	q := QueueLocal
	if remote {
		q = QueueRemote
	}
	return &river.InsertOpts{Queue: q, Tags: []string{userTagPrefix + strconv.Itoa(userID)}}
}

// userOf is the user tag of a job, "" when it has none.
func userOf(job *rivertype.JobRow) string {
	for _, t := range job.Tags {
		if strings.HasPrefix(t, userTagPrefix) {
			return t
		}
	}
	return ""
}
