// Package core is the untyped core of the runtime's shared index informer:
// Shared runs the Reflectors into the DeltaFIFO (runtime/internal/fifo),
// applies what it pops to the cache (runtime/internal/cache) and fans each
// change out to the registered handlers. It is not generic, so that this
// machinery is compiled once, in the runtime, however many types use it.
//
// The public, typed API is package informer: Informer[T] is a defined type
// over Shared (converting costs nothing), Registration over Registration, and
// informer.Options[T] converts to Options in one function. Package informer's
// documentation describes the design; each Shared method's contract is on the
// Informer[T] method of the same name. The factory builds Shareds without
// type parameters and hands out their typed views after CheckType.
//
// Every object a Shared stores has its objectType (see Shared), so the typed
// views' conversions cannot fail.
package core
