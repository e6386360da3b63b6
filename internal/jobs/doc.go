// Package jobs is Geopub's durable job system: River
// (github.com/riverqueue/river) on the same database as the data, the
// SQLite file through riversqlite or PostgreSQL through riverpgxv5.
//
// A job is inserted in the same transaction as the record it works on
// (InsertTx on the *sql.Tx of store.InTx), so a committed record always has
// its job and a rolled-back one never does. River's tables are created by
// MigrateRiver, run right after store.Migrate; they are not Ent entities.
//
// Other packages add workers with Register before Start. Every state change
// of a job this process works is reported to OnEvent handlers; see JobEvent
// for which events are delivered where.
//
// Jobs run in two queues with their own workers, QueueLocal and
// QueueRemote (downloads), and one user's jobs of one kind hold at most
// Config.PerUser workers; see queues.go and For.
//
// A job whose process died mid-attempt (SIGKILL, OOM, power loss) is
// noticed through liveness locks and runs again at once; see liveness.go
// and RescueOrphans. River's own stuck-job rescuer remains the backstop.
package jobs
