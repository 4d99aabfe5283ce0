// Package listwatchtest is a tiny in-process API server for tests of code
// that talks REST (listwatch, factory): one namespaced test type, Widget,
// served over httptest with paged LIST, label selectors and WATCH streams.
// For unit tests of controllers, prefer runtimetest's fake source, which
// needs no HTTP at all.
package listwatchtest
