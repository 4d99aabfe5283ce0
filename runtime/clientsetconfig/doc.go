// Package clientsetconfig turns an existing client-gen clientset (a real
// one or its fake) into the *rest.Config that runtime/factory and the
// generated NewSharedInformerFactory take: For(cs). It is the bridge for
// controllers migrating from upstream's NewSharedInformerFactory(clientset,
// resync), whose tests build the factory over a fake clientset.
//
// Design choices:
//   - A real clientset lends its server address and HTTP client, recovered
//     from the REST client of one of its group-versions; decoding stays the
//     factory's own.
//   - A fake clientset (nil REST clients) is served in-process by an
//     http.RoundTripper that calls the fake's typed List and Watch, found by
//     reflection on method names, and encodes their results as JSON, as an
//     API server would. The RoundTripper carries client-go's fakes' marker
//     (IsWatchListSemanticsUnSupported), which the factory's Reflectors
//     read: they list instead of asking for a WatchList (a fake never ends an
//     initial event stream; such a request is refused all the same), and
//     they take objects without a resourceVersion, as NewSimpleClientset's
//     are, where from a server they would refuse them.
//   - For never fails or panics: a value that is not a clientset gives a
//     config whose every request fails with an error saying why.
package clientsetconfig
