// Package factory is the runtime that generated informer code calls: a Type
// describes one API kind to it (resource, scope, AddToScheme, indexes, the
// generated JSON decoder, and for a projection its name and kind), and a
// Factory hands out one shared informer per resource (and per projection of
// it), builds REST clients from the API packages' schemes, and starts, syncs
// and stops the informers together.
//
// Design choices:
//   - No generated clientset is needed. For each group-version the factory
//     builds its own runtime.Scheme from the Type's AddToScheme and one REST
//     client; each informer's source (package listwatch) decodes with a
//     runtime/wire codec chosen per type in codec.go: protobuf for built-in
//     types and projections of them with a generated protobuf decoder
//     (Type.DecodeProtobuf), JSON for custom resources and other
//     projections (with the Type's
//     generated decoder, and managedFields skipped when the informer drops
//     them and no Transform reads them), CBOR on request
//     (TypeOptions.ContentType). A scheme per group-version means no scheme
//     is ever written after a client uses it (runtime.Scheme is not safe for
//     that). An existing client-gen clientset, or its fake, can still be
//     plugged in: runtime/clientsetconfig.
//   - Informers are created lazily, on first InformerFor, so a controller pays
//     only for the types it reads; Register creates them eagerly so that
//     ForResource works before first typed use.
//   - Per-type overrides are keyed by GroupVersionResource in Options.Types.
//     Fields that depend on the Go type (ListerWatcher, informer options) are
//     held as any and set type-safely by SetListerWatcher and
//     SetInformerOptions; a mismatch panics at first use, naming the resource.
//   - Several namespaces for a type (Options.Namespaces, TypeOptions.Namespaces)
//     make one informer, not one per namespace: one Reflector per namespace
//     feeds a single cache (informer.NewMultiNamespace), so the generated
//     Lister, which takes one Indexer, needs no merged view. Namespaces are
//     sorted and deduplicated, so the same set always builds the same thing.
//   - Construction errors (no rest.Config, a failing AddToScheme, a type the
//     scheme does not know, a projection without Kind) do not panic and are
//     not retried, since no retry can fix them (ErrSetup): the informer's
//     source returns one once (LastError, one log line) and WaitForCacheSync
//     returns them at once, each naming its informer.
//   - Start is non-blocking and may be called again; Shutdown cancels every
//     informer and waits for all their goroutines, so nothing outlives it.
//   - One informer can be stopped and forgotten while the others run
//     (RemoveInformer, RemoveInformerOf): each started informer has its own
//     cancel and a channel closed when its Run returns, so removing one
//     waits for exactly its goroutines and leaves no reference behind; a
//     later InformerFor builds a fresh one.
package factory
