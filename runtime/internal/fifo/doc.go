// Package fifo is the DeltaFIFO stage: the queue between the Reflector
// (producer) and the informer (the single consumer). It is internal to the
// runtime: users see it only through informer.Informer, whose core owns the
// FIFO and its only consumer.
//
// Design choices that are not obvious:
//
//   - Arrival order across keys. Deltas are not coalesced per key: every
//     Add/Update/Delete is delivered, in the order it arrived, like client-go's
//     RealFIFO (its informer queue by default since 1.33, always since 1.36).
//     The old DeltaFIFO grouped deltas per key and so reordered keys; handlers
//     then saw B's update before A's although A changed first.
//   - Per-key tracking without per-key lists. For single deltas the FIFO
//     keeps, per key, only the count and the newest of those queued or being
//     processed; a queued relist is looked up through an index built only if
//     someone asks while it is pending, so the initial list of 100k objects
//     costs no per-key bookkeeping. That is all Replace needs (tombstones
//     carry the newest pending object) and all deletion dedup needs (drop a
//     Deleted right after a Deleted).
//   - A relist is one queue entry. Replace queues the tombstones and the
//     Replaced deltas as a single atomic Batch, which the consumer applies in
//     one store transaction, so readers never see half a relist.
//   - Partitions. With Options.Namespaces (an informer over several
//     namespaces, informer.NewMultiNamespace) each namespace's Reflector
//     writes through its Partition (Namespace(ns)), whose Replace tombstones
//     only keys of that namespace: a relist of one namespace never deletes
//     another's objects. The FIFO's own Replace then returns ErrPartitioned.
//   - Batching. Pop hands over up to Options.MaxBatch consecutive single
//     deltas at once, so the consumer takes its locks once per batch instead
//     of once per event. The queue is a ring buffer and the batch slice is
//     reused: the steady state allocates nothing per event here (the key
//     string, made once per event by cache.Key, is the only allocation).
//   - process runs unlocked. Producers never wait for the consumer; keys of
//     the batch being processed stay "pending" until process returns, so
//     Replace, which reads Known concurrently, sees a consistent
//     picture: Known plus pending deltas is always the whole state.
//   - Pop takes a context and Close is separate: cancelling ctx abandons the
//     wait at once, while Close lets the consumer drain what was queued
//     before. The informer pops with its Run ctx, so on cancel it stops
//     after the batch in hand and drops the rest; Close, once its
//     Reflectors have stopped, only ends a pop loop that is still waiting.
package fifo
