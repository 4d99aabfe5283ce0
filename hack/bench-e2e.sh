#!/usr/bin/env bash
# Runs the end-to-end side-by-side measurement (bench/e2e): starts the example's
# local API server (etcd + apiextensions-apiserver) in a process of its own,
# creates the Foos, and runs ours, client-go's typed and dynamic informers and
# controller-runtime's cache, each in a fresh process, alternated, WatchList on
# and off; prints one table of medians per size and mode with client-go-typed/ours
# ratios. Every flag is passed on to the driver (see `-h`); the defaults are
# -sizes 10000,50000 -runs 3 -updates 2000 (see docs/performance.md for the time it takes).
# Besides the tables' rows, each run reports its sync's phases (first request,
# connection, the LIST's headers, first and last body byte, the WATCH's, the
# handler's last add) and the client's GCs until synced. Flags for digging:
#   -contenders ours:MODE,...   variants of ours (rv0, paged, unpaged, nogzip,
#                               h1, h1nogzip, h1buf64k, h2win16m, h2frame16k,
#                               ns10, reflective, projection; `-h` says what
#                               each changes)
#   -server-cpuprofile DIR      a CPU profile of the API server per run
#                               (RUN.server-sync.pprof, RUN.server-updates.pprof),
#                               written by the server process to a file: no listener
#   -client-cpuprofile DIR      a CPU profile of every contender, start → synced
#   -write patch|put            how the updates are written (default patch)
#   -v                          every run as JSON (phases included)
# Built-in kinds (Pods, Secrets) against a real kube-apiserver: hack/bench-e2e-builtin.sh.
# Usage: hack/bench-e2e.sh [flags]        e.g. hack/bench-e2e.sh -sizes 2000 -runs 1 (quick)
set -euo pipefail
cd "$(dirname "$0")/../bench/e2e"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/bench-e2e" .
go build -o "$bin/contender" ./contender
"$bin/bench-e2e" -contender-bin "$bin/contender" "$@"
