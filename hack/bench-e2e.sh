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
# The next Kubernetes minor beside this one: with NEXT=1 the script also
# builds ./contender on bench/e2e/next.mod (the k8s.io client libraries
# raised to the next minor, on the Go it needs; hack/update-bench-next.sh
# writes it) and passes it as -contender-bin-next; a contender named
# NAME@next in -contenders runs from it, against the same server (on go.mod's
# apiextensions-apiserver), and its ratios are taken against
# client-go-typed@next (client-go-typed@next's against client-go-typed). The
# tables' header names the libraries of both.
# Usage: hack/bench-e2e.sh [flags]        e.g. hack/bench-e2e.sh -sizes 2000 -runs 1 (quick)
#   NEXT=1 hack/bench-e2e.sh -contenders \
#     ours,client-go-typed,controller-runtime,ours@next,client-go-typed@next,controller-runtime@next
set -euo pipefail
cd "$(dirname "$0")/../bench/e2e"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/bench-e2e" .
go build -o "$bin/contender" ./contender
next=()
if [ "${NEXT:-}" = 1 ]; then
  GOTOOLCHAIN=$(awk '$1 == "toolchain" { print $2 }' next.mod) \
    go build -modfile=next.mod -o "$bin/contender-next" ./contender
  next=(-contender-bin-next "$bin/contender-next")
fi
"$bin/bench-e2e" -contender-bin "$bin/contender" "${next[@]}" "$@"
