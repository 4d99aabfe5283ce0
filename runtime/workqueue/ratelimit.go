package workqueue

import (
	"hash/maphash"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// RateLimiter decides how long a key waits before it is retried (client-go's
// TypedRateLimiter). The New…RateLimiter constructors return the three
// limiters client-go offers, combined as DefaultRateLimiter does; each is
// safe for concurrent use, and custom ones must be too.
type RateLimiter[K comparable] interface {
	// When records one more failure of key and returns how long to wait
	// before retrying it.
	When(key K) time.Duration
	// Forget clears key's failure history (call it when key succeeded).
	Forget(key K)
	// NumRequeues is the number of failures of key since its last Forget.
	NumRequeues(key K) int
}

// DefaultRateLimiter is the limiter controllers expect (client-go's
// DefaultTypedControllerRateLimiter): the max of a per-key exponential
// backoff from 5ms to 1000s and an overall token bucket of 10 per second
// with a burst of 100.
func DefaultRateLimiter[K comparable]() RateLimiter[K] {
	return NewMaxOfRateLimiter(
		NewExponentialRateLimiter[K](5*time.Millisecond, 1000*time.Second),
		NewBucketRateLimiter[K](10, 100),
	)
}

// exponentialRateLimiter is NewExponentialRateLimiter's limiter.
type exponentialRateLimiter[K comparable] struct {
	base, max time.Duration
	mu        sync.Mutex
	failures  map[K]int
	// keys is len(failures), and backingOff[h] counts the keys in failures
	// whose hash falls in bucket h; both are changed under mu. Forget and
	// NumRequeues read keys first (no key backing off: no hash either),
	// then their key's bucket: a key whose bucket is 0 has no failures. So a
	// worker's Forget after a success takes no lock unless a key of its
	// bucket is backing off — where with one count for all keys, a single
	// key backing off made every worker's Forget contend on mu.
	keys       atomic.Int64
	backingOff [failureBuckets]atomic.Int32
	seed       maphash.Seed
}

// failureBuckets is the number of exponentialRateLimiter.backingOff
// buckets: with f keys backing off, a Forget of another key takes the lock
// with probability at most f/failureBuckets.
const failureBuckets = 256

// NewExponentialRateLimiter returns a per-key exponential backoff: a key's
// n-th failure (counting from 0) waits base·2^n, capped at max.
func NewExponentialRateLimiter[K comparable](base, max time.Duration) RateLimiter[K] {
	return &exponentialRateLimiter[K]{base: base, max: max, failures: make(map[K]int), seed: maphash.MakeSeed()}
}

func (r *exponentialRateLimiter[K]) bucket(key K) *atomic.Int32 {
	return &r.backingOff[r.bucketOf(key)]
}

func (r *exponentialRateLimiter[K]) bucketOf(key K) uint64 {
	return maphash.Comparable(r.seed, key) % failureBuckets
}

// When implements RateLimiter.
func (r *exponentialRateLimiter[K]) When(key K) time.Duration {
	b := r.bucket(key)
	r.mu.Lock()
	n := r.failures[key]
	r.failures[key] = n + 1
	if n == 0 {
		b.Add(1)
		r.keys.Add(1)
	}
	r.mu.Unlock()
	d := float64(r.base) * math.Pow(2, float64(n))
	if d >= float64(r.max) || d > math.MaxInt64 {
		return r.max
	}
	return time.Duration(d)
}

// Forget implements RateLimiter.
// A Forget that sees no failures recorded, or none in its key's bucket,
// returns without the lock: a When it races with is then ordered after it, as if it had taken
// the lock last.
func (r *exponentialRateLimiter[K]) Forget(key K) {
	if r.keys.Load() == 0 {
		return
	}
	b := r.bucket(key)
	if b.Load() == 0 {
		return
	}
	r.mu.Lock()
	n := len(r.failures)
	delete(r.failures, key)
	if len(r.failures) < n { // key had failures
		b.Add(-1)
		r.keys.Add(-1)
	}
	r.mu.Unlock()
}

// NumRequeues implements RateLimiter.
func (r *exponentialRateLimiter[K]) NumRequeues(key K) int {
	if r.keys.Load() == 0 || r.bucket(key).Load() == 0 {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[key]
}

// bucketRateLimiter is NewBucketRateLimiter's limiter.
type bucketRateLimiter[K comparable] struct {
	qps   float64
	burst float64
	mu    sync.Mutex
	// tokens at time last; may be negative (reserved ahead).
	tokens float64
	last   time.Time
}

// NewBucketRateLimiter returns an overall (not per-key) token bucket: burst
// tokens, refilled at qps per second; qps <= 0 means no limit. Each When
// takes a token, going into debt when the bucket is empty, and returns how
// long until that debt is repaid — the semantics of
// rate.Limiter.Reserve().Delay() that client-go uses. It keeps no per-key
// state: Forget does nothing and NumRequeues is 0.
func NewBucketRateLimiter[K comparable](qps float64, burst int) RateLimiter[K] {
	return &bucketRateLimiter[K]{qps: qps, burst: float64(burst), tokens: float64(burst)}
}

// When implements RateLimiter.
func (r *bucketRateLimiter[K]) When(K) time.Duration {
	if r.qps <= 0 {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if !r.last.IsZero() {
		r.tokens = min(r.burst, r.tokens+now.Sub(r.last).Seconds()*r.qps)
	}
	r.last = now
	r.tokens--
	if r.tokens >= 0 {
		return 0
	}
	return time.Duration(-r.tokens / r.qps * float64(time.Second))
}

// Forget implements RateLimiter; it does nothing.
func (r *bucketRateLimiter[K]) Forget(K) {}

// NumRequeues implements RateLimiter; it is always 0.
func (r *bucketRateLimiter[K]) NumRequeues(K) int { return 0 }

// maxOfRateLimiter is NewMaxOfRateLimiter's limiter.
type maxOfRateLimiter[K comparable] struct{ limiters []RateLimiter[K] }

// NewMaxOfRateLimiter combines limiters: When asks every one and returns the
// longest delay, Forget forgets in all, NumRequeues is the largest count.
func NewMaxOfRateLimiter[K comparable](limiters ...RateLimiter[K]) RateLimiter[K] {
	return &maxOfRateLimiter[K]{limiters: limiters}
}

// When implements RateLimiter.
func (r *maxOfRateLimiter[K]) When(key K) time.Duration {
	var d time.Duration
	for _, l := range r.limiters {
		d = max(d, l.When(key))
	}
	return d
}

// Forget implements RateLimiter.
func (r *maxOfRateLimiter[K]) Forget(key K) {
	for _, l := range r.limiters {
		l.Forget(key)
	}
}

// NumRequeues implements RateLimiter.
func (r *maxOfRateLimiter[K]) NumRequeues(key K) int {
	n := 0
	for _, l := range r.limiters {
		n = max(n, l.NumRequeues(key))
	}
	return n
}
