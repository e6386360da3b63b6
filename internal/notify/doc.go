// Package notify stores notifications and fans them out to subscribers.
//
// Every event is first written as a row of the notifications table (by
// Hub.Publish, inside the caller's transaction), then signalled. A
// subscriber reads its user's rows after a cursor (a notification id) from
// the table and then follows live ones, so delivery is at-least-once and
// resumable: a client that reconnects with the last id it saw loses
// nothing.
//
// Signals cross processes through the database, never process memory
// alone:
//
//   - PostgreSQL: Publish issues NOTIFY geopub_notifications, '<id>' in the
//     same transaction, so it is delivered only on commit; every Hub keeps a
//     dedicated connection that LISTENs (reconnecting with backoff) and
//     re-reads the table after each (re)connect. Publishes to one user are
//     serialized by a transaction-scoped advisory lock, so a user's ids
//     commit in id order and a cursor never skips a row.
//   - SQLite: writers are serialized by the database itself; each Hub polls
//     the table for ids above the highest it has seen (every 500ms, and
//     every 20ms for a second after a local Publish), so processes sharing
//     the file see each other's rows within a second.
//
// A slow subscriber never blocks the others: its live feed is a bounded
// buffer, and when the buffer overflows the feed is dropped and the
// subscriber resumes from the table at its cursor.
package notify
