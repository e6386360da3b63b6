package search

import (
	"slices"
	"sync"
)

// The view's sorted orders: for each sort but relevance, every live
// slot in that sort's order (the sort key, then the index id). A page of
// a large result walks the order from the cursor's place (a binary
// search on the cursor's key) and keeps the slots the result's bitmap
// holds, so it costs about limit × docs / results steps whatever its
// depth; a small result is ranked by a bounded heap instead (page in
// memquery.go). The orders are patched doc by doc (a binary search and
// a memmove each) and sorted again after a large batch of changes.

// orderPatchMax is the number of changed docs beyond which a sync sorts
// the orders again instead of patching them.
const orderPatchMax = 5000

// orderedSorts are the sorts with a precomputed order.
var orderedSorts = []Sort{SortPopularity, SortName, SortNameDesc, SortCreated, SortCreatedOld, SortUpdated, SortUpdatedOld}

// buildOrders sorts the orders when they are missing.
func (v *view) buildOrders() {
	if v.ord != nil {
		return
	}
	live := make([]int32, 0, v.live)
	for s := range v.docs {
		if v.docs[s].id != 0 {
			live = append(live, int32(s))
		}
	}
	ord := make([][]int32, len(orderedSorts))
	var wg sync.WaitGroup
	for i, s := range orderedSorts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ord[i] = v.sortSlots(s, live)
		}()
	}
	wg.Wait()
	v.ord = map[Sort][]int32{}
	for i, s := range orderedSorts {
		v.ord[s] = ord[i]
	}
}

// sortSlots returns slots in sort s's order, sorting their keys
// side by side with them (fewer cache misses than looking keys up).
func (v *view) sortSlots(s Sort, slots []int32) []int32 {
	type entry struct {
		k    sortKey
		slot int32
	}
	o := orderOf(s)
	es := make([]entry, len(slots))
	for i, slot := range slots {
		es[i] = entry{v.keyOf(s, slot, nil), slot}
	}
	slices.SortFunc(es, func(a, b entry) int { return o.compare(a.k, b.k) })
	out := make([]int32, len(es))
	for i, e := range es {
		out[i] = e.slot
	}
	return out
}

// orderSearch finds where key k stands in sort s's order: the position
// of the first slot not before it, and whether that slot's key is k.
// The doc at slot as, if not -1, is compared by the key ask instead of
// its own (a doc being moved stands at its old key's place).
func (v *view) orderSearch(s Sort, k sortKey, as int32, ask sortKey) (int, bool) {
	o := orderOf(s)
	return slices.BinarySearchFunc(v.ord[s], k, func(e int32, k sortKey) int {
		if e == as {
			return o.compare(ask, k)
		}
		return o.compare(keyOfDoc(s, &v.docs[e]), k)
	})
}

// orderRemove takes the doc at slot out of the orders; its keys must
// still be in v.docs.
func (v *view) orderRemove(slot int32) {
	if v.ord == nil {
		return
	}
	for _, s := range orderedSorts {
		if i, ok := v.orderSearch(s, v.keyOf(s, slot, nil), -1, sortKey{}); ok {
			v.ord[s] = slices.Delete(v.ord[s], i, i+1)
		}
	}
}

// orderPut files the doc at slot into the orders; prev, when not nil,
// is the doc the slot held before, still filed under its keys. Only the
// orders whose key changed move (a retitle moves the doc in the name
// orders alone).
func (v *view) orderPut(slot int32, prev *mdoc) {
	if v.ord == nil {
		return
	}
	for _, s := range orderedSorts {
		k := v.keyOf(s, slot, nil)
		if prev != nil {
			old := keyOfDoc(s, prev)
			if old == k {
				continue
			}
			if i, ok := v.orderSearch(s, old, slot, old); ok {
				v.ord[s] = slices.Delete(v.ord[s], i, i+1)
			}
		}
		i, _ := v.orderSearch(s, k, -1, sortKey{})
		v.ord[s] = slices.Insert(v.ord[s], i, slot)
	}
}
