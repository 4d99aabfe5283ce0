#!/usr/bin/env bash
# Runtime benchmarks before vs after a change, with alternated binaries: the
# test binaries of BASE_REV and of the working tree are built once, then run
# one after the other, -test.count 1 each, ROUNDS times (A B A B ...), so
# that load drifting on a shared machine hits both alike; then the medians
# and ratio after/before of every metric (hack/benchcompare). In bench/,
# the impl=client-go rows are the same code in both builds: their ratio is
# the noise floor.
# Usage: hack/bench-compare.sh BASE_REV [bench regexp] [rounds]   (defaults: '.', 5)
# PKGS overrides the packages (default: the runtime's benchmark packages and
# bench/); BENCHTIME sets -test.benchtime; OUT keeps the raw output there.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: hack/bench-compare.sh BASE_REV [bench regexp] [rounds]}
pattern=${2:-.}
rounds=${3:-5}
pkgs=${PKGS:-"runtime/informer runtime/reflector runtime/internal/fifo runtime/internal/engine/untypedlw bench"}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
tree=$out/base-tree
rm -rf "$tree" && mkdir -p "$tree"
git archive "$base" | tar -x -C "$tree"
go build -o "$out/benchcompare" ./hack/benchcompare
for p in $pkgs; do
	bin=$(echo "$p" | tr / _).test
	(cd "$tree" && go test -c -o "$out/before-$bin" "./$p")
	go test -c -o "$out/after-$bin" "./$p"
done
args=(-test.run '^$' -test.bench "$pattern" -test.benchmem -test.count 1)
if [ -n "${BENCHTIME:-}" ]; then args+=(-test.benchtime "$BENCHTIME"); fi
: >"$out/before.txt"
: >"$out/after.txt"
for r in $(seq "$rounds"); do
	for p in $pkgs; do
		bin=$(echo "$p" | tr / _).test
		# Each binary runs in its own tree's package directory (testdata).
		(cd "$tree/$p" && "$out/before-$bin" "${args[@]}") >>"$out/before.txt"
		(cd "$p" && "$out/after-$bin" "${args[@]}") >>"$out/after.txt"
	done
	echo "round $r of $rounds done; load: $(uptime)" >&2
done
echo "base $base ($(git rev-parse --short "$base")), after: working tree of $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' + changes'); raw output in $out"
"$out/benchcompare" "$out/before.txt" "$out/after.txt"
