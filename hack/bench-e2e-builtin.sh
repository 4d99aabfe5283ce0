#!/usr/bin/env bash
# The end-to-end side-by-side measurement on built-in kinds (bench/builtin), the
# sibling of hack/bench-e2e.sh (custom resources): starts a real kube-apiserver
# (examples/builtin/kubeapiserver: k8s.io/kubernetes v1.37.2, embedded etcd,
# RBAC, default admission, watch cache on, WatchList on) in a process of its
# own, writes realistic Pods (two containers and an init container, ~10
# labels, a status with conditions, the two managedFields entries the server
# writes for a create and a status update) straight into the server's etcd
# as kube-apiserver stores them (-seed etcd, the default: for each Pod size
# a new server process whose etcd gets the Pods before its kube-apiserver
# starts, which then reads them with one LIST; one etcd transaction per Pod,
# so each has a resourceVersion of its own, or -seed-batch N per
# transaction; what the server adds to a Pod taken from a template Pod
# created through the API of the first server; TestSeed checks that the
# server serves them as Pods created through the API; -seed etcd-live
# writes them into the running server's etcd instead, where the watch cache
# takes each in as an event, and -seed api creates
# them through the API, two writes each), -pod-shape small writes Pods of
# one container, four labels and a short status instead, and creates
# Secrets of 16 KB through the API (client throttling off), once per size,
# and runs every contender in a fresh process, alternated, WatchList on and
# off (the client's choice; the server serves both): ours (examples/builtin's
# generated informers, protobuf), ours-projection (PodSummary, SecretKeys),
# ours-projection-interned (the same with InternStrings), client-go-typed
# (client-go's informer over a protobuf clientset, as kube-controller-manager
# configures it: the anchor of every ratio), controller-runtime (its cache,
# protobuf for built-ins), client-go-metadata (metadatainformer) and
# controller-runtime-metadata (PartialObjectMetadata). Prints one table of
# medians per kind, size and mode with client-go-typed/contender ratios (>1:
# the contender is better) and the content type each contender was answered
# with; -json FILE writes every run (hack/plotscale draws them). A contender
# that dies (OOM-killed, crashed, timed out) is a row that says so with its
# last peak RSS. Every flag is passed on to the driver (see `-h`); the
# defaults are -pods 50000 -secrets 10000 -secret-bytes 16384 -runs 3
# (-runs-off N runs fewer with WatchList off).
# Time, on 2 shared cores: kube-apiserver ready in 10-60 s; -seed etcd
# costs ~0.3 ms of CPU per realistic Pod before the server starts (the
# log line "seeded ..." gives it, the rate and the server's RSS), then the
# server's first LIST decodes them; -seed etcd-live and api cost ~1.4 ms of
# the server's CPU per realistic Pod (~0.4 ms per small one), the server
# taking each Pod in as an event; 10k Secrets ~3.5 min; a run at 20k Pods
# 5-15 s. Above ~20k realistic Pods the server process holds more than 3 GB
# (~12 GB at 100k): run it under `flock /work/bigmem.lock` on shared machines.
# The server's settings: -server-flags "--name=value ..." (extra
# kube-apiserver flags), -server-gogc and -server-gomemlimit (the server
# process's GOGC and GOMEMLIMIT, not the contenders'); its memory (RSS:
# anonymous and file-backed, i.e. etcd's bbolt mapping; Go heap after a GC)
# is logged once it is ready, and its RSS at each contender's sync is a row
# of the tables. The server holds ~11 KB of Go heap per small Pod (the
# watch cache's decoded Pods). -contender-memmax
# MiB runs every contender in a memory cgroup with that hard limit (no
# GOMEMLIMIT), so that at a million Pods a contender that outgrows the
# machine is OOM-killed (a row that says so, with its last RSS), not the
# server.
# Flags for digging: -server-cpuprofile DIR, -client-cpuprofile DIR (CPU
# profile start → synced, and a heap profile once synced, after a GC), -v,
# -server-heapprofile DIR (the server's heap once ready and after each run),
# -disable-compression (no gzip for any contender), -hold (keep the seeded
# server up afterwards and print its kubeconfig, to run ./contender by hand
# with BENCHBUILTIN_CONFIG set, e.g. under GODEBUG=gctrace=1).
# The next Kubernetes minor beside this one: with NEXT=1 the script also
# builds ./contender on bench/builtin/next.mod (the k8s.io client libraries
# raised to the next minor, on the Go it needs; hack/update-bench-next.sh
# writes it) and passes it as -contender-bin-next; a contender named
# NAME@next in -contenders runs from it, against the same v1.37.2 server, and
# its ratios are taken against client-go-typed@next (client-go-typed@next's
# against client-go-typed). The tables' header names the libraries of both.
# Usage: hack/bench-e2e-builtin.sh [flags]
#   e.g. hack/bench-e2e-builtin.sh -pods 2000 -secrets 500 -runs 1   (quick)
#   NEXT=1 hack/bench-e2e-builtin.sh -secrets "" \
#     -contenders ours,ours-projection,client-go-typed,ours@next,client-go-typed@next
set -euo pipefail
cd "$(dirname "$0")/../bench/builtin"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/bench-builtin" .
go build -o "$bin/contender" ./contender
next=()
if [ "${NEXT:-}" = 1 ]; then
  GOTOOLCHAIN=$(awk '$1 == "toolchain" { print $2 }' next.mod) \
    go build -modfile=next.mod -o "$bin/contender-next" ./contender
  next=(-contender-bin-next "$bin/contender-next")
fi
"$bin/bench-builtin" -contender-bin "$bin/contender" "${next[@]}" "$@"
