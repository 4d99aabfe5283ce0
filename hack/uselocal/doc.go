// Package uselocal tests hack/use-local.sh, the documented way to use
// informer-gen from a clone before the module is published: the script runs
// on a fresh module outside the repository, which then builds a program
// importing the runtime and both integrations, and runs the generator as a
// Go tool by its full path.
//
// It is a module of its own, with no dependencies, so that hack/test.sh runs
// it like every module while the root module stays free of the integrations'
// dependency trees.
package uselocal
