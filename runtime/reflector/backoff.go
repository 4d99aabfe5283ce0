package reflector

import (
	"math/rand/v2"
	"time"
)

// Backoff defaults, as client-go's reflector (800ms doubling to 30s, reset
// after two quiet minutes).
const (
	defaultInitialBackoff = 800 * time.Millisecond
	defaultMaxBackoff     = 30 * time.Second
	backoffResetAfter     = 2 * time.Minute
)

// backoff is an exponential backoff with jitter. It is owned by the Run
// goroutine and not safe for concurrent use.
//
// The n-th consecutive failure sets base = min(initial·2ⁿ⁻¹, max) and waits
// a uniformly random duration in [base/2, base]: the upper half of the
// interval, so the wait still grows, never exceeds max, and reflectors that
// failed together (an API server restart) spread out even at the cap — unlike
// client-go's jitter, which can overshoot the cap by up to 2x. A failure more
// than resetAfter after the previous one starts again from initial.
type backoff struct {
	initial, max, resetAfter time.Duration

	base     time.Duration
	lastFail time.Time
	rand     func() float64 // in [0, 1); rand.Float64 unless a test injects one
}

func newBackoff(initial, ceiling time.Duration) *backoff {
	if initial <= 0 {
		initial = defaultInitialBackoff
	}
	if ceiling <= 0 {
		ceiling = defaultMaxBackoff
	}
	ceiling = max(ceiling, initial)
	return &backoff{initial: initial, max: ceiling, resetAfter: backoffResetAfter, rand: rand.Float64}
}

// next records a failure at now and returns how long to wait before retrying.
func (b *backoff) next(now time.Time) time.Duration {
	if b.base == 0 || now.Sub(b.lastFail) > b.resetAfter {
		b.base = b.initial
	} else {
		b.base = min(2*b.base, b.max)
	}
	b.lastFail = now
	half := b.base / 2
	return half + time.Duration(b.rand()*float64(b.base-half))
}
