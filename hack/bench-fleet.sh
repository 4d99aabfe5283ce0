#!/usr/bin/env bash
# Fleet targets of issue 47 (docs/performance.md, "Fleets"): 100 clusters x
# 1,000 Foos in one process — the fixed heap per engaged cluster, engaging and
# disengaging one, one unreachable cluster out of 100, and the fleet in one
# process against one process per cluster (RSS and CPU).
#
# Builds bench/fleet's two commands and runs `bench-fleet run "$@"`: 3 clusters
# are real API servers of their own (examples/crd/localapi: etcd +
# apiextensions-apiserver on loopback, TLS and a token), the other 97 are
# namespaces of one more server behind a loopback TLS proxy that gives each a
# path prefix of its own (/clusters/<name>/…, kcp-style). The servers hold
# about 2 GB and the 100 member processes about as much again, so the run takes
# /work/bigmem.lock when that file exists (one such job on the machine at a
# time; BENCH_FLEET_NO_LOCK=1 skips the lock, for small trial runs). Figures
# are printed with the load average; nothing is asserted.
#
# Usage: hack/bench-fleet.sh [-clusters 100] [-direct 3] [-objects 1000] [-rounds 3] [-unreachable-rounds N] [-settle 10s] [-idle-wait 95s] [-skip-compare]
set -euo pipefail
cd "$(dirname "$0")/../bench/fleet"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/bench-fleet" .
go build -o "$bin/fleet-client" ./client
lock=()
if [[ -e /work/bigmem.lock && -z ${BENCH_FLEET_NO_LOCK:-} ]]; then
	lock=(flock /work/bigmem.lock)
fi
"${lock[@]}" "$bin/bench-fleet" run -client "$bin/fleet-client" "$@"
