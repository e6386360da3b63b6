// Package follows lets people follow datasets: the change feed's events
// of a dataset someone follows (internal/changefeed) come to their
// notification stream (internal/notify), with the event's type as the
// notification's kind and the event as the API renders it as payload.
//
// Following is explicit (Set) or comes with a star: a starred dataset is
// followed unless its user unfollowed it, and following it again, or
// unfollowing it, is remembered whatever becomes of the star. One row per
// user and dataset records an explicit choice (DatasetFollow.following).
//
// The followers of an event are read in the transaction that appends it,
// so that a deletion still finds the stars of what it deletes; a durable
// job (NotifyArgs) then writes each follower's notification, all in one
// transaction, to those who may see the event at that moment (as the
// change feed decides: deletions reach followers only of datasets
// everyone could view). A deletion ends its dataset's follows.
package follows
