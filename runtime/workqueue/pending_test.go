package workqueue

import (
	"math/rand/v2"
	"testing"
)

// TestPendingMatchesModel drives pending the way the queue does (append at
// tail, hand out at head into a processing set, finish processing, ask
// whether a key is queued) with keys whose tags collide on purpose, across
// many chunks, chunk reuse, index flushes and rebuilds, and checks every
// answer against a plain model, and that the tag filter holds every key
// queued or processing (Add skips both lookups for a tag it does not
// hold). It runs once from seq 0 and once across 2^32, where the index's
// 32-bit seqs wrap.
func TestPendingMatchesModel(t *testing.T) {
	for _, start := range []uint64{0, 1<<32 - 3000} {
		for _, tagKinds := range []int{1, 3, 1 << 30} { // 1: every key has the same tag
			testPendingMatchesModel(t, start, tagKinds)
		}
	}
}

func testPendingMatchesModel(t *testing.T, start uint64, tagKinds int) {
	rng := rand.New(rand.NewPCG(uint64(tagKinds), 7))
	var p pending[int]
	var inflight inflightSet[int]
	p.init()
	p.chunks[0].base, p.index.floor = start, start
	tagOf := func(k int) uint32 { return uint32(k%tagKinds)<<1 | 1 }
	head, tail := start, start
	var fifo []int
	queued, processing := map[int]bool{}, map[int]bool{}
	for step := range 20_000 {
		for k := range queued {
			if !p.filter.mayHold(tagOf(k)) {
				t.Fatalf("start %d, tags %d, step %d: queued key %d not in the filter", start, tagKinds, step, k)
			}
		}
		for k := range processing {
			if !p.filter.mayHold(tagOf(k)) {
				t.Fatalf("start %d, tags %d, step %d: processing key %d not in the filter", start, tagKinds, step, k)
			}
		}
		if len(processing) > 0 && rng.IntN(4) == 0 {
			for k := range processing { // Done of a random one
				c, i, _ := inflight.pin(k, tagOf(k))
				inflight.release(c, i)
				delete(processing, k)
				break
			}
		}
		if rng.IntN(3) > 0 || len(fifo) == 0 {
			k := rng.IntN(300)
			// The queue looks with a head it loaded earlier, then with a fresh one.
			seen := head - uint64(rng.IntN(int(min(head, 3))+1))
			if seen < p.chunks[0].base {
				seen = head
			}
			got := p.queued(k, tagOf(k), seen, tail) && p.queued(k, tagOf(k), head, tail)
			if got != queued[k] {
				t.Fatalf("start %d, tags %d, step %d: queued(%d) = %v, want %v", start, tagKinds, step, k, got, queued[k])
			}
			if !got {
				p.append(k, tagOf(k), tail, head, &inflight)
				tail++
				fifo = append(fifo, k)
				queued[k] = true
			}
		} else {
			// Hand out the oldest, as Get does: read it, then move head.
			c := p.chunks[(head-p.chunks[0].base)/chunkSize]
			k, tag := c.keys[head-c.base], c.tags[head-c.base].Load()
			if k != fifo[0] || tag != tagOf(k) {
				t.Fatalf("start %d, tags %d, step %d: head holds %d (tag %x), want %d (tag %x)", start, tagKinds, step, k, tag, fifo[0], tagOf(fifo[0]))
			}
			fifo = fifo[1:]
			delete(queued, k)
			if !processing[k] && len(processing) < 20 {
				inflight.claim(k, tag) // before head moves, as Get does
				processing[k] = true
			}
			head++
		}
	}
	if len(p.chunks) > int(tail-head)/chunkSize+3 {
		t.Errorf("start %d, tags %d: %d chunks kept for %d queued keys", start, tagKinds, len(p.chunks), tail-head)
	}
	if tail < 1<<32+1000 && start > 0 {
		t.Errorf("start %d: tail %d did not pass 2^32 by 1000", start, tail)
	}
}

// TestInflightSetCollidingTags puts keys with one tag in more slots than a
// chunk has, and checks that pin, markAgain and release find exactly the
// key asked for.
func TestInflightSetCollidingTags(t *testing.T) {
	var s inflightSet[int]
	const tag = 0x55
	for k := range 20 {
		s.claim(k, tag)
	}
	if s.len() != 20 {
		t.Fatalf("len %d, want 20", s.len())
	}
	if found, _, _ := s.markAgain(7, tag, 0); !found {
		t.Fatal("markAgain(7) did not find 7")
	}
	if found, was, _ := s.markAgain(7, tag, 0); !found || !was {
		t.Fatalf("second markAgain(7) = %v, %v; want true, true", found, was)
	}
	if found, _, _ := s.markAgain(99, tag, 0); found {
		t.Fatal("markAgain found 99, which was never claimed")
	}
	for k := range 20 {
		c, i, st := s.pin(k, tag)
		if c == nil || c.keys[i] != k {
			t.Fatalf("pin(%d) found no slot or another key", k)
		}
		if again := st&slotAgain != 0; again != (k == 7) {
			t.Fatalf("key %d: again = %v", k, again)
		}
		s.release(c, i)
		if c, _, _ := s.pin(k, tag); c != nil {
			t.Fatalf("key %d still in the set after release", k)
		}
	}
	if s.len() != 0 {
		t.Fatalf("len %d after releasing all", s.len())
	}
}

// TestQueueMatchesModel runs random single-goroutine sequences of Add, Get,
// Done and Len against a model of client-go's semantics: dedup of queued
// keys, a key handed out is not handed out again before Done, an Add
// meanwhile requeues it once at Done, FIFO order.
func TestQueueMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	q := New(Options[int]{})
	defer q.ShutDown()
	var fifo []int
	queued := map[int]bool{}
	processing := map[int]bool{}
	again := map[int]bool{}
	for step := range 50_000 {
		switch op := rng.IntN(10); {
		case op < 5:
			k := rng.IntN(400)
			q.Add(k)
			switch {
			case processing[k]:
				again[k] = true
			case !queued[k]:
				queued[k] = true
				fifo = append(fifo, k)
			}
		case op < 8 && len(fifo) > 0:
			k, shutdown := q.Get()
			if shutdown || k != fifo[0] {
				t.Fatalf("step %d: Get = %d, %v; want %d", step, k, shutdown, fifo[0])
			}
			fifo = fifo[1:]
			delete(queued, k)
			processing[k] = true
		case op < 10 && len(processing) > 0:
			var k int
			for k = range processing {
				break
			}
			q.Done(k)
			delete(processing, k)
			if again[k] {
				delete(again, k)
				queued[k] = true
				fifo = append(fifo, k)
			}
		}
		if step%97 == 0 && q.Len() != len(fifo) {
			t.Fatalf("step %d: Len = %d, want %d", step, q.Len(), len(fifo))
		}
	}
}

// TestTagFilterFalsePositives fills a filter as full as the index lets it
// get (as many tags as the index's full load) and checks that it holds
// every tag noted and takes few others for noted ones: Add looks a key up
// in the index only on a hit, so a filter that hits too often would make
// every Add pay the index's cache miss again, silently.
func TestTagFilterFalsePositives(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, slots := range []int{pendIndexMin, 1 << 12, 1 << 20} {
		var f tagFilter
		f.reset(slots / filterSlotsPerWord)
		noted := map[uint32]bool{}
		for len(noted) < slots*indexLoadNum/indexLoadDen {
			tag := rng.Uint32() | 1
			noted[tag] = true
			f.note(tag)
		}
		for tag := range noted {
			if !f.mayHold(tag) {
				t.Fatalf("%d slots: tag %x noted but not held", slots, tag)
			}
		}
		fp, tries := 0, 0
		for tries < 100_000 {
			tag := rng.Uint32() | 1
			if noted[tag] {
				continue
			}
			tries++
			if f.mayHold(tag) {
				fp++
			}
		}
		// About 3% expected at this fill; 10% leaves room for the small
		// filter's variance.
		t.Logf("%d slots: false positive rate %.4f", slots, float64(fp)/float64(tries))
		if rate := float64(fp) / float64(tries); rate > 0.10 {
			t.Errorf("%d slots, %d tags: false positive rate %.3f, want at most 0.10", slots, len(noted), rate)
		}
	}
}

// TestPendingFlushesUnlookedKeys appends distinct keys with no lookups in
// between (no duplicates: nothing needs the index) and checks that the keys
// waiting for the index never exceed flushMax, so that no flush holds the
// producer lock for long, and that every key is found afterwards.
func TestPendingFlushesUnlookedKeys(t *testing.T) {
	var p pending[int]
	var inflight inflightSet[int]
	p.init()
	const n = 5 * flushMax
	for k := range n {
		p.append(k, uint32(k)<<1|1, uint64(k), 0, &inflight)
		if waiting := uint64(k+1) - p.indexed; waiting > flushMax {
			t.Fatalf("after %d appends, %d keys wait for the index", k+1, waiting)
		}
	}
	for k := range n {
		if !p.queued(k, uint32(k)<<1|1, 0, n) {
			t.Fatalf("key %d not found", k)
		}
	}
}

// TestPendingReusesChunksAfterDrain fills a lane with many chunks of keys,
// hands them all out and fills it again, and checks that the refill takes
// its chunks from the drained ones instead of allocating (a backlog that
// workers catch up with drains and fills again all the time), and that a
// lane that then stays short lets go of the spare chunks.
func TestPendingReusesChunksAfterDrain(t *testing.T) {
	var p pending[int]
	var inflight inflightSet[int]
	p.init()
	const chunks = 50
	seen := map[*chunk[int]]bool{}
	var tail uint64
	for round := range 3 {
		head := tail // every key of the rounds before was handed out
		for k := range chunks * chunkSize {
			p.append(k, uint32(k)<<1|1, tail, head, &inflight)
			tail++
		}
		fresh := 0
		for _, c := range p.chunks {
			if !seen[c] {
				fresh++
				seen[c] = true
			}
		}
		if round > 0 && fresh > 2 {
			t.Errorf("round %d: %d of %d chunks newly allocated after a drain", round, fresh, len(p.chunks))
		}
	}
	// Short from now on: one chunk of keys at a time, each handed out
	// before the next.
	for range 4 * chunks {
		head := tail
		for k := range chunkSize {
			p.append(k, uint32(k)<<1|1, tail, head, &inflight)
			tail++
		}
	}
	if len(p.free) > chunkFree {
		t.Errorf("%d spare chunks kept by a lane holding %d", len(p.free), len(p.chunks))
	}
}

// TestPendingKeepsIndexAfterDrain fills a lane, lets the workers catch up
// and fills it again, and checks that the index keeps the table the
// backlog grew (a rebuild while the lane is short does not shrink it, and
// the refill does not allocate tables again), and that a lane that then
// stays short for long gives the large table back.
func TestPendingKeepsIndexAfterDrain(t *testing.T) {
	var p pending[int]
	var inflight inflightSet[int]
	p.init()
	const backlog = 50 * chunkSize
	var head, tail uint64
	add := func() {
		p.append(int(tail), uint32(tail)<<1|1, tail, head, &inflight)
		tail++
	}
	for range backlog {
		add()
	}
	grown := len(p.index.slots)
	if grown < indexSlotsPerKey*backlog {
		t.Fatalf("index of %d slots for %d queued keys", grown, backlog)
	}
	table := &p.index.slots[0]
	// The workers catch up: every key is handed out as it comes, until
	// the index has been rebuilt with few keys queued.
	floor := p.index.floor
	for p.index.floor == floor {
		head = tail
		add()
	}
	if len(p.index.slots) != grown || &p.index.slots[0] != table {
		t.Fatalf("rebuilt with a short backlog after a peak of %d keys: %d slots (new table: %v), want the %d-slot table kept",
			backlog, len(p.index.slots), &p.index.slots[0] != table, grown)
	}
	// The backlog builds up again: no table is allocated on the way.
	for range backlog {
		add()
		if &p.index.slots[0] != table {
			t.Fatalf("refill to %d keys allocated a %d-slot index", tail-head, len(p.index.slots))
		}
	}
	// Short for long: the table shrinks at a later rebuild.
	for range 40 * grown {
		head = tail
		add()
	}
	if len(p.index.slots) >= grown {
		t.Errorf("index still %d slots after %d appends with at most one key queued", len(p.index.slots), 40*grown)
	}
	for k := tail - 1; k < tail; k++ {
		if !p.queued(int(k), uint32(k)<<1|1, head, tail) {
			t.Fatalf("key %d not found", k)
		}
	}
}
