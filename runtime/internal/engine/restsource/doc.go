// Package restsource builds the REST sources of the factory's informers
// without type parameters, so that it is compiled once, in the runtime,
// rather than once per API type: one scheme and one REST client per
// group-version from one rest.Config (Clients), the choice of a type's
// wire codec and fallback (Codecs: protobuf for built-in kinds, JSON for
// custom resources, CBOR on request), and a listwatch.ListerWatcher per
// namespace decoding straight into the type's Go type (Clients.Sources).
//
// It is the untyped core under runtime/listwatch: the public package holds
// the typed ListerWatcher and NewRESTClient; which groups are built in is
// internal/apigroups's, which the generator reads too.
package restsource
