// Package factory runs informers for generated code: a Type describes one
// API kind (resource, scope, AddToScheme, indexes, the generated decoders,
// and for a projection its name and kind), and a Factory registers types,
// hands out one shared informer per resource (and per projection of it),
// starts and stops them together and waits for their sync. Where objects
// come from is not its business: REST sources and the choice of wire codec
// live with runtime/listwatch (its untyped core, runtime/internal/engine/restsource),
// and a client-gen clientset is turned into a rest.Config by
// runtime/clientsetconfig.
//
// Three ways to build an informer, each for one need:
//   - The generated accessor, factory.<Group>().<Version>().<Plural>().Informer()
//     (InformerFor): a controller's informers, shared by every caller,
//     configured by Options (several namespaces in one cache included),
//     started by Start, synced by WaitForCacheSync, stopped by Shutdown.
//   - The generated ForResource(gvr) (Factory.ForResource): the same shared
//     informer seen untyped (Generic), for code that works on any resource.
//   - The generated New<Kind>Informer(lw, opts) (NewInformer): a standalone
//     informer over a ListerWatcher the caller owns and runs, unknown to any
//     factory: unit tests over runtimetest's fake source, or a source of
//     one's own.
//
// RunInformer and RemoveInformer do not build informers: they let a caller
// (controller-runtime's cache) own one shared informer's lifetime.
//
// Design choices:
//   - Configuration is resolved in one place (settingsFor) by one rule,
//     field by field: the type's own TypeOptions, then for a projection its
//     kind's TypeOptions (the fields that do not depend on the Go type),
//     then Options, then the default; into one value (build.go's
//     resolved), from which alone the informer, its Reflectors, FIFO, REST
//     source and codecs are built. A factory-wide option is one field of
//     Options, one line of settingsFor (into restsource.Request, or, for
//     an option of the informer's, into informerSettings, which
//     typeInfo.options puts into the type's informer.Options[T], one line
//     each) and its use where the engine reads that. The informer's
//     options are resolved forward only, as a user's are: into an
//     informer.Options[T], which TypeOptions.Informer edits, and which
//     informer.New (or NewMultiNamespace) converts to the untyped core's
//     options. TypeOptions is generic in the type's Go
//     type, so a ListerWatcher, Transform or options edit of the wrong type
//     does not compile; what the compiler cannot see (two TypeOptions for
//     one Type, a TypeOptions of another Go type for a resource, a Type
//     claimed with two Go types) is a set-up mistake (ErrSetup), never a
//     panic.
//   - No generated clientset is needed: restsource builds one REST client per
//     group-version and one scheme per group-version and Go package of the
//     types (whose AddToScheme may register only its own kinds) from the
//     Type's AddToScheme, and chooses each type's codec: protobuf for built-in
//     kinds and projections of them with a generated protobuf decoder
//     (Type.DecodeProtobuf), JSON for custom resources and other projections
//     (with the Type's generated decoder, and managedFields skipped when the
//     informer drops them and no Transform reads them), CBOR on request
//     (TypeOptions.ContentType).
//   - Informers are created lazily, on first InformerFor, so a controller
//     pays only for the types it reads; ForResource creates one by
//     resource from the generated Resources tables.
//   - Several namespaces for a type (Options.Namespaces,
//     TypeOptions.Namespaces) make one informer, not one per namespace: one
//     Reflector per namespace feeds a single cache
//     (informer.NewMultiNamespace), so the generated Lister, which takes one
//     Indexer, needs no merged view. Namespaces are sorted and deduplicated,
//     so the same set always builds the same thing.
//   - Construction errors (no rest.Config, a failing AddToScheme, a type the
//     scheme does not know, a projection without Kind, the mistakes in
//     Options.Types above) do not panic and are not retried, since no retry
//     can fix them (ErrSetup): the informer's source returns one once
//     (LastError, one log line) and WaitForCacheSync returns them at once,
//     each naming its informer.
//   - Start is non-blocking and may be called again (upstream's shape);
//     Shutdown cancels every informer and waits for all their goroutines, so
//     nothing outlives it.
//   - One informer can be stopped and forgotten while the others run
//     (RemoveInformer, Factory.RemoveInformerOf): each started informer has
//     its own cancel and a channel closed when its Run returns, so removing
//     one waits for exactly its goroutines and leaves no reference behind; a
//     later InformerFor builds a fresh one.
package factory
