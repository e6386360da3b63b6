package search

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// The view's full-text index: an inverted index from stemmed words to the
// docs holding them, each posting carrying the word's weighted frequency
// in the doc (title 10, tags/categories/geotags 4, description and
// publisher 2, field names and member titles 1: the bm25Weights), ranked
// by BM25 over those weighted frequencies. Words are split as Terms
// splits them, folded (diacritics removed), English stop words dropped
// and the rest stemmed (Snowball English, PostgreSQL's english
// configuration's stemmer). The last word of a query also matches every
// indexed word it begins (type-ahead), up to maxPrefixWords of them, the
// most frequent first.

// BM25's parameters, the usual ones (and FTS5's).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// maxPrefixWords bounds the words the last query word expands to.
const maxPrefixWords = 64

// fieldWeights are the weights of textColumns' texts, in its order.
var fieldWeights = [8]float32{10, 2, 4, 4, 4, 2, 1, 1}

// posting is one doc holding a word: its slot and the word's weighted
// frequency there.
type posting struct {
	slot int32
	wtf  float32
}

// textIndex is the inverted index. Postings are kept sorted by slot.
type textIndex struct {
	ids   map[string]int32
	words []string
	post  [][]posting
	// sorted holds word ids in word order for prefix lookups; words added
	// since it was last sorted wait in fresh.
	sorted []int32
	fresh  []int32
	// docs and totalLen give BM25 its corpus statistics.
	docs     int
	totalLen int64
	// lens are the docs' lengths in words, by slot (BM25 reads them for
	// every posting, so they sit apart from the docs).
	lens []int32
}

func newTextIndex() *textIndex {
	return &textIndex{ids: map[string]int32{}}
}

// docText is what the text index knows of one doc: its words (to take
// its postings out again) and its length in words.
type docText struct {
	words []int32
	len   int32
}

// analyze splits, folds, drops stop words and stems.
func analyze(s string, emit func(string)) {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		w = fold(w)
		if len(w) > 4*maxTermRunes || stopWords[w] {
			continue
		}
		emit(stem(w))
	}
}

// stems caches the stems of words seen, since stemming is the costliest
// step of indexing and a catalogue's vocabulary is small beside its
// text. It stops growing at maxCachedStems words.
var stems = struct {
	sync.RWMutex
	m map[string]string
}{m: map[string]string{}}

const maxCachedStems = 1 << 20

func stem(w string) string {
	stems.RLock()
	s, ok := stems.m[w]
	stems.RUnlock()
	if ok {
		return s
	}
	s = english.Stem(w, false)
	stems.Lock()
	if len(stems.m) < maxCachedStems {
		stems.m[strings.Clone(w)] = s
	}
	stems.Unlock()
	return s
}

// fold lower-cases w and removes its diacritics.
func fold(w string) string {
	w = strings.ToLower(w)
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			var b strings.Builder
			for _, r := range norm.NFD.String(w) {
				if !unicode.Is(unicode.Mn, r) {
					b.WriteRune(r)
				}
			}
			return b.String()
		}
	}
	return w
}

// add indexes a doc's eight texts (textColumns' order) at slot. When
// the slot held a doc (old, its previous text), only the postings of
// words that came or went move; the others are updated in place, so a
// reindex does not shift the long postings of common words.
func (ix *textIndex) add(slot int32, texts [8]string, old *docText) docText {
	freq := map[int32]float32{}
	var n int32
	for f, t := range texts {
		w := fieldWeights[f]
		analyze(t, func(stem string) {
			freq[ix.word(stem)] += w
			n++
		})
	}
	find := func(p []posting) (int, bool) {
		return slices.BinarySearchFunc(p, slot, func(a posting, s int32) int { return int(a.slot - s) })
	}
	if old != nil {
		for _, id := range old.words {
			if _, ok := freq[id]; ok {
				continue
			}
			if i, ok := find(ix.post[id]); ok {
				ix.post[id] = slices.Delete(ix.post[id], i, i+1)
			}
		}
		ix.docs--
		ix.totalLen -= int64(old.len)
	}
	dt := docText{len: n, words: make([]int32, 0, len(freq))}
	for id, wtf := range freq {
		dt.words = append(dt.words, id)
		p := ix.post[id]
		i, ok := find(p)
		if ok {
			p[i].wtf = wtf
			continue
		}
		ix.post[id] = slices.Insert(p, i, posting{slot: slot, wtf: wtf})
	}
	for int(slot) >= len(ix.lens) {
		ix.lens = append(ix.lens, 0)
	}
	ix.lens[slot] = n
	ix.docs++
	ix.totalLen += int64(n)
	return dt
}

// compact trims the postings' spare capacity (a load appends to them).
func (ix *textIndex) compact() {
	for id, p := range ix.post {
		if cap(p) > len(p)+len(p)/8 {
			ix.post[id] = slices.Clone(p)
		}
	}
}

// remove takes a doc's postings out.
func (ix *textIndex) remove(slot int32, dt docText) {
	for _, id := range dt.words {
		p := ix.post[id]
		if i, ok := slices.BinarySearchFunc(p, slot, func(a posting, s int32) int { return int(a.slot - s) }); ok {
			ix.post[id] = slices.Delete(p, i, i+1)
		}
	}
	ix.lens[slot] = 0
	ix.docs--
	ix.totalLen -= int64(dt.len)
}

// word returns a word's id, adding it when new.
func (ix *textIndex) word(w string) int32 {
	if id, ok := ix.ids[w]; ok {
		return id
	}
	id := int32(len(ix.words))
	ix.ids[w] = id
	ix.words = append(ix.words, w)
	ix.post = append(ix.post, nil)
	ix.fresh = append(ix.fresh, id)
	return id
}

// prefixed returns up to maxPrefixWords ids of words beginning with p, the
// most frequent first.
func (ix *textIndex) prefixed(p string) []int32 {
	ix.sortWords()
	i := sort.Search(len(ix.sorted), func(i int) bool { return ix.words[ix.sorted[i]] >= p })
	var out []int32
	for ; i < len(ix.sorted) && strings.HasPrefix(ix.words[ix.sorted[i]], p); i++ {
		if len(ix.post[ix.sorted[i]]) > 0 {
			out = append(out, ix.sorted[i])
		}
	}
	if len(out) > maxPrefixWords {
		sort.Slice(out, func(a, b int) bool { return len(ix.post[out[a]]) > len(ix.post[out[b]]) })
		out = out[:maxPrefixWords]
	}
	return out
}

// sortWords files the words added since the last prefix lookup into
// sorted: one by one when they are few, by sorting everything otherwise.
func (ix *textIndex) sortWords() {
	if len(ix.fresh) == 0 {
		return
	}
	if len(ix.fresh) > 64 {
		ix.sorted = append(ix.sorted, ix.fresh...)
		sort.Slice(ix.sorted, func(i, j int) bool { return ix.words[ix.sorted[i]] < ix.words[ix.sorted[j]] })
	} else {
		for _, id := range ix.fresh {
			i := sort.Search(len(ix.sorted), func(i int) bool { return ix.words[ix.sorted[i]] >= ix.words[id] })
			ix.sorted = slices.Insert(ix.sorted, i, id)
		}
	}
	ix.fresh = nil
}

// queryWords turns the query's terms into groups of word ids: one group
// per term (its stem; for the last term also the words it begins).
func (ix *textIndex) queryWords(terms []string) [][]int32 {
	var groups [][]int32
	for i, t := range terms {
		var g []int32
		var stems []string
		analyze(t, func(s string) { stems = append(stems, s) })
		for _, s := range stems {
			if id, ok := ix.ids[s]; ok {
				g = append(g, id)
			}
		}
		if i == len(terms)-1 && len([]rune(t)) >= 2 {
			f := fold(t)
			for _, id := range ix.prefixed(f) {
				if !slices.Contains(g, id) {
					g = append(g, id)
				}
			}
			if len(stems) == 1 && stems[0] != f {
				for _, id := range ix.prefixed(stems[0]) {
					if !slices.Contains(g, id) {
						g = append(g, id)
					}
				}
			}
		}
		if len(g) > 0 {
			groups = append(groups, g)
		}
	}
	return groups
}

// match returns the slots of in that hold a word of groups, and adds
// each one's BM25 score into scores (indexed by slot). in is tested as a
// plain bitset, one bit per slot, while the postings are walked.
func (ix *textIndex) match(groups [][]int32, in *roaring.Bitmap, scores []float32) *roaring.Bitmap {
	if ix.docs == 0 || in.IsEmpty() {
		return roaring.New()
	}
	keep := in.ToDense()
	hit := make([]uint64, len(keep))
	avg := float32(ix.totalLen) / float32(ix.docs)
	if avg == 0 {
		avg = 1
	}
	n := float64(ix.docs)
	for _, g := range groups {
		for _, id := range g {
			p := ix.post[id]
			df := float64(len(p))
			idf := float32(math.Log(1 + (n-df+0.5)/(df+0.5)))
			for _, e := range p {
				w, bit := int(e.slot>>6), uint64(1)<<(e.slot&63)
				if w >= len(keep) || keep[w]&bit == 0 {
					continue
				}
				norm := bm25K1 * (1 - bm25B + bm25B*float32(ix.lens[e.slot])/avg)
				scores[e.slot] += idf * e.wtf * (bm25K1 + 1) / (e.wtf + norm)
				hit[w] |= bit
			}
		}
	}
	return roaring.FromDense(hit, false)
}

// stopWords are the English words too common to index (PostgreSQL's
// english list).
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself yourselves he him
		his himself she her hers herself it its itself they them their theirs themselves what which who whom this that
		these those am is are was were be been being have has had having do does did doing a an the and but if or
		because as until while of at by for with about against between into through during before after above below
		to from up down in out on off over under again further then once here there when where why how all any both
		each few more most other some such no nor not only own same so than too very s t can will just don should now`) {
		m[w] = true
	}
	return m
}()
