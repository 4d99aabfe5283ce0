// Package listwatchtest is a tiny in-process API server for tests of code
// that talks REST (listwatch, factory): one namespaced test type, Widget,
// served over httptest with paged LIST, label selectors and WATCH streams.
// It is internal to this repository (the runtime's packages, the
// integrations and the examples use it in their tests): its one type is of
// no use to a controller's own tests, for which runtimetest's fake source,
// which needs no HTTP at all, is the tool.
package listwatchtest
