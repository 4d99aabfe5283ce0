package reflector

import (
	"math/rand/v2"
	"time"
)

// Backoff defaults: 500ms doubling to 2s. client-go's reflector uses 800ms
// doubling to 30s and resets only after two minutes without a failure; ours
// resets on success (a watch that stayed open), so a burst of errors never
// leaves a healthy server waiting out a long step, and the small cap bounds
// how long the cache lags once the server heals: at most 2s after a fault of
// any length (n seconds for an informer of n > 2 namespaces, see Options.InitialBackoff;
// client-go: up to 30s). The price is load on a server that
// stays down: one request per 1-2s per informer (its Reflectors share a
// Budget, one request a second at most) instead of one per 15-30s,
// and after an outage Reflectors come back within 2s of each other rather
// than spread over 30s. A server that sheds load says so with 429, whose
// Retry-After is honoured exactly whatever the step.
const (
	defaultInitialBackoff = 500 * time.Millisecond
	defaultMaxBackoff     = 2 * time.Second
)

// backoff is an exponential backoff with jitter. It is owned by the Run
// goroutine and not safe for concurrent use.
//
// The n-th consecutive failure sets base = min(initial·2ⁿ⁻¹, max) and waits
// a uniformly random duration in [base/2, base]: the upper half of the
// interval, so the wait still grows, never exceeds max, and reflectors that
// failed together (an API server restart) spread out even at the cap — unlike
// client-go's jitter, which can overshoot the cap by up to 2x. reset (on
// success) starts again from initial.
type backoff struct {
	initial, max time.Duration

	base time.Duration
	rand func() float64 // in [0, 1); rand.Float64 unless a test injects one
}

func newBackoff(initial, ceiling time.Duration) *backoff {
	if initial <= 0 {
		initial = defaultInitialBackoff
	}
	if ceiling <= 0 {
		ceiling = defaultMaxBackoff
	}
	ceiling = max(ceiling, initial)
	return &backoff{initial: initial, max: ceiling, rand: rand.Float64}
}

// next records a failure and returns how long to wait before retrying.
func (b *backoff) next() time.Duration {
	if b.base == 0 {
		b.base = b.initial
	} else {
		b.base = min(2*b.base, b.max)
	}
	half := b.base / 2
	return half + time.Duration(b.rand()*float64(b.base-half))
}

// reset records a success: the next failure waits from initial again.
func (b *backoff) reset() { b.base = 0 }
