package fifo_test

import (
	"testing"
	"unsafe"

	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
)

// A relist of n objects is n Deltas in one batch: Type and FinalStateUnknown
// share a word, so a Delta of an interface is five words.
func TestDeltaOfAnInterfaceIsFiveWords(t *testing.T) {
	if got, want := unsafe.Sizeof(fifo.Delta[any]{}), 5*unsafe.Sizeof(uintptr(0)); got > want {
		t.Errorf("a Delta[any] takes %d bytes, want at most %d", got, want)
	}
}
