package search

// ResetPruneClock lets the next Put of ix's process prune the change log
// at once (tests of pruning).
func ResetPruneClock(ix Index) { ix.(*sqlIndex).view.prunedAt.Store(0) }
