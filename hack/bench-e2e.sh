#!/usr/bin/env bash
# Runs the end-to-end side-by-side measurement (bench/e2e): starts the example's
# local API server (etcd + apiextensions-apiserver) in a process of its own,
# creates the Foos, and runs ours, client-go's typed and dynamic informers and
# controller-runtime's cache, each in a fresh process, alternated, WatchList on
# and off; prints one table of medians per size and mode with client-go-typed/ours
# ratios. Every flag is passed on to the driver (see `-h`); the defaults are
# -sizes 10000,50000 -runs 3 -updates 2000 (see docs/performance.md for the time it takes).
# Usage: hack/bench-e2e.sh [flags]        e.g. hack/bench-e2e.sh -sizes 2000 -runs 1 (quick)
set -euo pipefail
cd "$(dirname "$0")/../bench/e2e"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/bench-e2e" .
go build -o "$bin/contender" ./contender
"$bin/bench-e2e" -contender-bin "$bin/contender" "$@"
