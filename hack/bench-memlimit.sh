#!/usr/bin/env bash
# Memory-limited start (issue 46): the smallest hard memory limit at which
# each contender syncs every Pod of a real kube-apiserver and stays up for
# 60 s of updates, the way a user's container is limited. It drives
# bench/builtin (the driver and ./contender, as hack/bench-e2e-builtin.sh):
# starts the kube-apiserver, writes N realistic Pods (the bench's shape: two
# containers and an init container, ~10 labels, status with conditions, two
# managedFields entries, the kube-api-access volume the server adds; default
# 88,000, the size of the cluster in the report that opened the issue)
# straight into its etcd (the driver's seeder; -seed api creates them
# through the API instead), then, for each contender, bisects a ladder of
# limits (MiB): every trial starts the contender in a fresh memory cgroup of
# its own (cgroup v1: /sys/fs/cgroup/memory/NAME with memory.limit_in_bytes
# and memory.memsw.limit_in_bytes when swap accounting is on; cgroup v2:
# memory.max and memory.swap.max=0 under -memlimit-cgroup-root, e.g.
# /sys/fs/cgroup) with GOMEMLIMIT at 90% of the limit, waits until it is
# synced (5 min at most), then patches 100 Pods per second (one annotation,
# round-robin) for 60 s and requires it to be alive and answering at the
# end. Each trial is printed as it ends ("memlimit {json}": the outcome —
# synced, killed (by the OOM killer: the cgroup's oom_kill count, or any
# SIGKILL), failed (not synced in time, or another error) — the cgroup's peak
# charge, memory.failcnt, the contender's own peak RSS), then one table: each
# contender's smallest passing limit and the outcome of the ladder's step
# below it.
# Needs root (it makes cgroups) and, for 88k Pods, ~12 GB for the server:
# on a shared machine run it under `flock /work/bigmem.lock`. Time: seeding
# 20k Pods took ~2 min at load 16 (88k: ~9 min); each trial is its sync plus
# 60 s, ~4 trials per contender (a 13-step ladder): 20k Pods and six
# contenders took 35 min.
# The defaults give each of the four contenders a short ladder of its own
# around its 88k limit (-memlimit-for), so that the bisection takes two or
# three trials each; other contenders bisect -memlimit's.
# Every flag after the defaults below goes to the driver and overrides them:
# -memlimit LADDER, -memlimit-for 'NAME=LADDER;...', -memlimit-gomemlimit PERCENT, -memlimit-hold, -memlimit-
# update-rate, -memlimit-sync-timeout, -memlimit-cgroup-root,
# -memlimit-base-bin BIN (runs contenders named NAME@base from another
# contender binary, for a before/after comparison in one run), -pods,
# -contenders, -watchlist (the first mode is used).
# Usage: hack/bench-memlimit.sh [flags]
#   e.g. flock /work/bigmem.lock hack/bench-memlimit.sh
#        hack/bench-memlimit.sh -pods 2000 -memlimit 32,48,64,96 -memlimit-for '' -memlimit-hold 10s   (quick)
set -euo pipefail
cd "$(dirname "$0")/../bench/builtin"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/bench-builtin" .
go build -o "$bin/contender" ./contender
"$bin/bench-builtin" -contender-bin "$bin/contender" \
  -pods 88000 -secrets "" -watchlist on \
  -contenders ours,ours-projection,client-go-typed,client-go-metadata \
  -memlimit 96,128,160,192,256,320,384,448,512,640,768,1024,1536,2048,2560 \
  -memlimit-for 'ours-projection=112,128,160,192,256;ours=448,512,640,768,1024;client-go-metadata=384,512,640,768,1024;client-go-typed=1536,2048,2560,3072' \
  "$@"
