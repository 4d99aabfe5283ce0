// Package migratetest proves the migration from code-generator on the
// canonical code-generator project, k8s.io/sample-controller, taken from the
// Go module proxy at test time (no copy of it lives in this repository):
// TestSampleController runs `informer-gen migrate` on it, regenerates its
// informers and listers with informer-gen into its pkg/generated, builds it
// and runs its own unit tests. See docs/migrating.md.
//
// It is a module of its own, with no dependencies, so that hack/test.sh runs
// it like every module while the root module stays untouched by
// sample-controller's dependency tree.
package migratetest
