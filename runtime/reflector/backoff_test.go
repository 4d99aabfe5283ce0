package reflector

import (
	"testing"
	"time"
)

func TestBackoffBoundsAndReset(t *testing.T) {
	b := newBackoff(0, 0)
	r := 0.0
	b.rand = func() float64 { return r }
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second,
		2 * time.Second, 2 * time.Second}
	for i, base := range want {
		r = 0
		if got := b.next(); got != base/2 {
			t.Errorf("failure %d with rand 0: wait %v, want %v", i+1, got, base/2)
		}
		// Undo the step to probe the top of the same interval.
		b.base /= 2
		if i == 0 {
			b.base = 0
		}
		r = 0.999999
		if got := b.next(); got > base || got < base*99/100 {
			t.Errorf("failure %d with rand ~1: wait %v, want just under %v", i+1, got, base)
		}
	}
	// A success resets the backoff.
	b.reset()
	r = 0
	if got := b.next(); got != 250*time.Millisecond {
		t.Errorf("after a success: wait %v, want 250ms", got)
	}
}

func TestBackoffOptions(t *testing.T) {
	b := newBackoff(time.Second, 4*time.Second)
	b.rand = func() float64 { return 0.5 }
	var got []time.Duration
	for range 4 {
		got = append(got, b.next())
	}
	want := []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second, 3 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("waits = %v, want %v", got, want)
			break
		}
	}
}
