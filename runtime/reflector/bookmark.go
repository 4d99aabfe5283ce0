package reflector

import "fmt"

// bookmarkSink is a Sink that also takes the resourceVersion of each watch
// BOOKMARK event, in stream order with the events (*fifo.FIFO[T] and
// *fifo.Partition[T] are): its store can then record that it is up to date
// to that resourceVersion once it has applied what came before, though no
// object changed. The Reflector calls Bookmark from its Run goroutine for
// every bookmark with a valid resourceVersion (the initial-events-end one of
// a WatchList is the Replace's instead). An error is reported like a
// failed Add.
type bookmarkSink interface {
	Bookmark(resourceVersion string) error
}

// bookmark hands rv, a bookmark's resourceVersion, to the Sink if it takes
// bookmarks and rv is one the Reflector resumes from.
func (r *Reflector[T]) bookmark(rv string) error {
	bs, ok := r.sink.(bookmarkSink)
	if !ok || !validRV(rv) {
		return nil
	}
	if err := bs.Bookmark(rv); err != nil {
		return fmt.Errorf("watch %s: bookmark at resourceVersion %s: %w", r.opts.Name, rv, err)
	}
	return nil
}
