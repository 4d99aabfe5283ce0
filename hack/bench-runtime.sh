#!/usr/bin/env bash
# Runs the runtime benchmarks (bench/ and runtime/...) (ours and client-go v0.37.2 side by side, same inputs,
# one run) and prints the median of each metric and the ratio in our favour.
# Usage: hack/bench-runtime.sh [-count N] [bench regexp]   (defaults: 5, '.')
set -euo pipefail
cd "$(dirname "$0")/.."
count=5
if [ "${1:-}" = "-count" ]; then count=$2; shift 2; fi
pattern=${1:-.}
go build -o /dev/null ./hack/benchratio
go test -run '^$' -bench "$pattern" -benchmem -count "$count" -timeout 60m ./bench/ ./runtime/... | go run ./hack/benchratio
