#!/usr/bin/env bash
# Generator performance, side by side with code-generator v0.37.2 (docs/performance.md, "Generator").
#
# Runs, in one run and on the same input, our cmd/informer-gen and
# k8s.io/code-generator's lister-gen + informer-gen, invoked with the flags
# kube_codegen.sh's kube::codegen::gen_client passes them, and prints a table
# of medians and ratios:
#
#   crd   a one-type CRD project (sample-controller's Foo): wall time and peak RSS,
#         ours against the two upstream commands together (lister-gen, then
#         informer-gen; their peak is the larger of the two, since they run one
#         after the other). upstream's informer-gen needs a versioned clientset,
#         so client-gen runs first, untimed.
#   cold  (only with --case cold) the crd and kapi cases once more (crd-cold,
#         kapi-cold), every run with an empty GOCACHE: the first run on a fresh
#         machine or CI job. Target: >= 2x faster than upstream, peak
#         RSS no worse. One timed run each (--runs does not apply): slow.
#   kapi  every k8s.io/api group-version (each directory with a register.go or a
#         +groupName): wall time, generated .go files and non-blank lines, and
#         whether all output compiles (upstream's informers against client-go's
#         own clientset, k8s.io/client-go/kubernetes).
# For crd and kapi, the output is compiled with `go build` (dependencies built
# first, untimed) and what that costs is reported too; upstream's figure for crd
# includes the clientset its informers need. Peak RSS of `go build` is that of
# its largest single process, one package's compile: each compile runs under
# `-toolexec 'benchcodegen toolexec'` (for both contenders alike; it adds a
# small process per tool run and does not change build-cache keys), which
# records its own peak RSS and CPU, and the largest compiles are printed and
# reported ("largest single compile"), so the package that sets the peak is named.
#
# All binaries are built first (warm build caches), one untimed warm-up run of
# every command follows, then --runs timed runs alternate ours and upstream;
# old output is deleted before every run, untimed, as kube_codegen.sh does, and
# each run's output is compared with the first run's (determinism is reported).
# Everything runs under nice: the machine may be shared.
#
# Exit status: 0 when every generator succeeded and all output compiles, 1
# otherwise. Targets are reported in the table, never asserted.
#
# Usage: hack/bench-codegen.sh [--runs N] [--case crd|kapi|cold]... [--kapi-exclude GV,...] [--keep]
#   --runs N          timed runs per generator (default 5; the median is reported)
#   --case C          run only case C (repeatable; default: crd and kapi)
#   --kapi-exclude L  comma-separated group-versions (e.g. admission/v1) left out of
#                     kapi for both generators; for diagnosis only, the issue's
#                     figure is over all of them
#   --keep            keep the work directory (generated trees, results.tsv)
# Environment: BENCH_CODEGEN_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/informer-gen-bench)
#   holds the module that builds code-generator (Go's own caches keep builds warm).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CODEGEN_VERSION=v0.37.2 # k8s.io/code-generator, the version compared against
CACHE=${BENCH_CODEGEN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/informer-gen-bench}
HEADER=$ROOT/hack/benchcodegen/testdata/crd/boilerplate.go.txt # same header for both
RUNS=5
CASES=()
KEEP=false
KAPI_EXCLUDE=

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=${2:?--runs needs a number}; shift 2 ;;
    --case) CASES+=("${2:?--case needs crd, kapi or cold}"); shift 2 ;;
    --kapi-exclude) KAPI_EXCLUDE=${2?--kapi-exclude needs a list}; shift 2 ;;
    --keep) KEEP=true; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#CASES[@]} -gt 0 ] || CASES=(crd kapi)
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "--runs wants a positive number, got $RUNS" >&2; exit 2; }
for c in "${CASES[@]}"; do
  case "$c" in crd|kapi|cold) ;; *) echo "unknown case $c (want crd, kapi or cold)" >&2; exit 2 ;; esac
done

log() { printf '\n>> [%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { printf 'bench-codegen: %s\n' "$*" >&2; exit 1; }

# What the script needs. Go builds everything else, including the helper that
# measures peak RSS (no dependency on /usr/bin/time).
command -v go >/dev/null || die "go is not on PATH"
NICE=()
if command -v nice >/dev/null; then NICE=(nice -n 10); fi

# Binaries go to the work directory, not the cache: several runs of this script
# may share a machine, and each must time the generator it built.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-codegen.XXXXXX")
if $KEEP; then
  echo "work directory: $WORK" >&2
else
  trap 'rm -rf "$WORK"' EXIT
fi
BIN=$WORK/bin
mkdir -p "$BIN/upstream" "$CACHE"

log "building the measuring helper and our generator"
(cd "$ROOT" && "${NICE[@]}" go build -o "$BIN/benchcodegen" ./hack/benchcodegen) || die "hack/benchcodegen does not build"
(cd "$ROOT" && "${NICE[@]}" go build -o "$BIN/informer-gen" ./cmd/informer-gen) || die "our generator (cmd/informer-gen) does not build"
BENCH=$BIN/benchcodegen
OURS=$BIN/informer-gen

log "building k8s.io/code-generator $CODEGEN_VERSION (client-gen, lister-gen, informer-gen)"
# A module of its own, so the versions are code-generator's, not ours, and the
# root go.mod is never touched. Kept in the cache, made in a temp dir and
# renamed into place, so reruns are warm and concurrent first runs do not clash.
UPMOD=$CACHE/code-generator-$CODEGEN_VERSION
if [ ! -f "$UPMOD/go.sum" ]; then
  tmpmod=$(mktemp -d "$CACHE/code-generator.XXXXXX")
  (cd "$tmpmod" && go mod init bench.local/upstream >/dev/null 2>&1 &&
    GOFLAGS=-mod=mod go get "k8s.io/code-generator@$CODEGEN_VERSION") || die "cannot fetch k8s.io/code-generator@$CODEGEN_VERSION"
  if [ -e "$UPMOD" ]; then rm -rf "$tmpmod"; else mv "$tmpmod" "$UPMOD"; fi # another run may have won the race
fi
(cd "$UPMOD" && GOFLAGS=-mod=mod "${NICE[@]}" go build -o "$BIN/upstream/" \
  k8s.io/code-generator/cmd/client-gen k8s.io/code-generator/cmd/lister-gen k8s.io/code-generator/cmd/informer-gen) ||
  die "cannot build code-generator $CODEGEN_VERSION"
UP=$BIN/upstream

RESULTS=$WORK/results.tsv
RUNID=r$(date +%s)$$ # in the temp modules' paths: generated packages are new to the build cache
: >"$RESULTS"

# new_module DIR PATH makes DIR a Go module PATH that has the root module's
# requirements (k8s.io/api, apimachinery, client-go at the pinned versions) and
# requires our module through a replace to the working tree.
new_module() {
  local dir=$1 path=$2
  mkdir -p "$dir"
  sed -e "s#^module .*#module $path#" "$ROOT/go.mod" >"$dir/go.mod"
  cp "$ROOT/go.sum" "$dir/go.sum"
  (cd "$dir" &&
    go mod edit -require=github.com/informer-gen/informer-gen@v0.0.0-00010101000000-000000000000 \
      -replace=github.com/informer-gen/informer-gen="$ROOT")
}

# compiles CASE CONTENDER DIR GENPREFIX PATTERN... builds the generated packages
# and records whether they compile and what compiling them costs. Their
# dependencies (client-go, our runtime) are built first, untimed, so the figure
# is the generated code's own; module paths carry $RUNID, so it is never a
# build-cache hit from an earlier run.
compiles() {
  local c=$1 who=$2 dir=$3 genprefix=$4 ok=1 deps=()
  shift 4
  log "$c: compiling $who's output ($*)"
  mapfile -t deps < <(cd "$dir" && GOFLAGS=-mod=mod go list -e -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' "$@" | grep -v "^$genprefix" | grep .)
  if [ ${#deps[@]} -gt 0 ]; then
    (cd "$dir" && GOFLAGS=-mod=mod "${NICE[@]}" go build "${deps[@]}") >/dev/null 2>&1 || true # errors show below
  fi
  local clog=$WORK/compiles-$c-$who.tsv
  rm -f "$clog"
  if ! "${NICE[@]}" "$BENCH" measure -case "$c" -results "$RESULTS" -runs 1 -warmup=false -prefix compile_ -dir "$dir" -- \
    "@$who" env GOFLAGS=-mod=mod go build -toolexec "$BENCH toolexec -log $clog" "$@"; then
    echo "bench-codegen: $c: $who's generated code does not compile" >&2
    ok=0
  fi
  "$BENCH" compiles -case "$c" -contender "$who" -results "$RESULTS" -trim "$genprefix" "$clog" >&2 || ok=0
  printf '%s\t%s\tcompiles\t%s\n' "$c" "$who" "$ok" >>"$RESULTS"
  [ "$ok" = 1 ]
}

# crd_module sets up the one-type CRD module once: the API package and the
# clientset upstream's informer-gen imports.
crd_module() {
  local m=$WORK/crd mp=bench.local/$RUNID/crd
  [ -f "$m/go.mod" ] && return 0
  new_module "$m" "$mp" || return 1
  cp -R "$ROOT/hack/benchcodegen/testdata/crd/apis" "$m/" || return 1
  # kube_codegen.sh runs client-gen first; upstream's informer-gen imports the
  # clientset it writes. Not timed: the issue compares lister-gen + informer-gen.
  (cd "$m" && "$UP/client-gen" -v 0 --go-header-file "$HEADER" \
    --output-dir "$m/generated/upstream/clientset" --output-pkg "$mp/generated/upstream/clientset" \
    --clientset-name versioned --apply-configuration-package "" \
    --input-base "$m/apis" --plural-exceptions "" --prefers-protobuf=false \
    --input samplecontroller/v1alpha1) || { echo "bench-codegen: crd: client-gen failed" >&2; return 1; }
}

# crd_measure CASE RUNS [measure flags...] times both generators on the CRD module.
crd_measure() {
  local c=$1 runs=$2 m=$WORK/crd mp=bench.local/$RUNID/crd
  shift 2
  local pkgs=("$mp/apis/samplecontroller/v1alpha1") out=$m/generated
  printf '%s\t%s\tinputs\t%s\n' "$c" ours ${#pkgs[@]} "$c" upstream ${#pkgs[@]} >>"$RESULTS"
  "${NICE[@]}" "$BENCH" measure -case "$c" -results "$RESULTS" -runs "$runs" -dir "$m" "$@" \
    -clean "$out/ours" -clean "$out/upstream/listers" -clean "$out/upstream/informers" \
    -stable "ours=$out/ours" -stable "upstream=$out/upstream/listers" -stable "upstream=$out/upstream/informers" -- \
    @ours "$OURS" --go-header-file "$HEADER" \
      --output-dir "$out/ours" --output-pkg "$mp/generated/ours" "${pkgs[@]}" \
    @upstream:lister-gen "$UP/lister-gen" -v 0 --go-header-file "$HEADER" \
      --output-dir "$out/upstream/listers" --output-pkg "$mp/generated/upstream/listers" \
      --plural-exceptions "" "${pkgs[@]}" \
    @upstream:informer-gen "$UP/informer-gen" -v 0 --go-header-file "$HEADER" \
      --output-dir "$out/upstream/informers" --output-pkg "$mp/generated/upstream/informers" \
      --versioned-clientset-package "$mp/generated/upstream/clientset/versioned" \
      --listers-package "$mp/generated/upstream/listers" \
      --plural-exceptions "" "${pkgs[@]}"
}

case_crd() {
  local m=$WORK/crd mp=bench.local/$RUNID/crd out=$WORK/crd/generated
  log "crd: one-type CRD project (sample-controller's Foo) in $m"
  crd_module || return 1
  crd_measure crd "$RUNS" || return 1
  "$BENCH" lines -header "$HEADER" -case crd -contender ours -results "$RESULTS" "$out/ours" || return 1
  "$BENCH" lines -header "$HEADER" -case crd -contender upstream -results "$RESULTS" "$out/upstream/listers" "$out/upstream/informers" || return 1
  local ok=0
  compiles crd ours "$m" "$mp/generated/" ./generated/ours/... || ok=1
  compiles crd upstream "$m" "$mp/generated/" ./generated/upstream/... || ok=1
  return $ok
}

# The crd and kapi cases once more, each generator run with an empty GOCACHE:
# what the first run on a fresh CI machine costs (go list's module index and
# anything a loader compiles are rebuilt every run).
case_cold() {
  log "cold: the crd and kapi cases with an empty GOCACHE per run (one timed run each)"
  crd_module || return 1
  crd_measure crd-cold 1 -cold-gocache || return 1
  kapi_module || return 1
  kapi_measure kapi-cold 1 -cold-gocache
}

# kapi_module sets up the k8s.io/api module once and sets KAPI_PKGS to every
# group-version package.
KAPI_PKGS=()
kapi_module() {
  local m=$WORK/kapi mp=bench.local/$RUNID/kapi
  [ ${#KAPI_PKGS[@]} -gt 0 ] && return 0
  new_module "$m" "$mp" || return 1
  local apidir
  apidir=$(cd "$m" && go list -m -f '{{.Dir}}' k8s.io/api) || return 1
  # Every group-version directory: it has a register.go or declares +groupName.
  local gvs=()
  mapfile -t gvs < <(cd "$apidir" && {
    find . -name register.go
    grep -rlE --include='*.go' '^[[:space:]]*//[[:space:]]*\+groupName=' .
  } | xargs -n1 dirname | sed 's#^\./##' | LC_ALL=C sort -u)
  [ ${#gvs[@]} -gt 0 ] || { echo "bench-codegen: kapi: no group-versions found in $apidir" >&2; return 1; }
  if [ -n "$KAPI_EXCLUDE" ]; then
    local x kept=()
    for x in "${gvs[@]}"; do
      [[ ",$KAPI_EXCLUDE," == *",$x,"* ]] || kept+=("$x")
    done
    echo "kapi: excluded by --kapi-exclude: $KAPI_EXCLUDE (${#gvs[@]} -> ${#kept[@]} group-versions)" >&2
    gvs=("${kept[@]}")
  fi
  KAPI_PKGS=("${gvs[@]/#/k8s.io/api/}")
  echo "kapi: ${#KAPI_PKGS[@]} group-versions from $apidir" >&2
}

# kapi_measure CASE RUNS [measure flags...] times both generators on k8s.io/api.
kapi_measure() {
  local c=$1 runs=$2 m=$WORK/kapi mp=bench.local/$RUNID/kapi
  shift 2
  local pkgs=("${KAPI_PKGS[@]}") out=$m/generated
  printf '%s\t%s\tinputs\t%s\n' "$c" ours ${#pkgs[@]} "$c" upstream ${#pkgs[@]} >>"$RESULTS"
  # What Kubernetes passes for k8s.io/api: without it upstream names the
  # informer method Endpointses and its output does not compile against
  # client-go's clientset.
  local plurals=Endpoints:Endpoints
  "${NICE[@]}" "$BENCH" measure -case "$c" -results "$RESULTS" -runs "$runs" -dir "$m" "$@" \
    -clean "$out/ours" -clean "$out/upstream" -stable "ours=$out/ours" -stable "upstream=$out/upstream" -- \
    @ours "$OURS" --go-header-file "$HEADER" \
      --output-dir "$out/ours" --output-pkg "$mp/generated/ours" \
      --plural-exceptions "$plurals" "${pkgs[@]}" \
    @upstream:lister-gen "$UP/lister-gen" -v 0 --go-header-file "$HEADER" \
      --output-dir "$out/upstream/listers" --output-pkg "$mp/generated/upstream/listers" \
      --plural-exceptions "$plurals" "${pkgs[@]}" \
    @upstream:informer-gen "$UP/informer-gen" -v 0 --go-header-file "$HEADER" \
      --output-dir "$out/upstream/informers" --output-pkg "$mp/generated/upstream/informers" \
      --versioned-clientset-package k8s.io/client-go/kubernetes \
      --listers-package "$mp/generated/upstream/listers" \
      --plural-exceptions "$plurals" "${pkgs[@]}"
}

case_kapi() {
  local m=$WORK/kapi mp=bench.local/$RUNID/kapi out=$WORK/kapi/generated
  log "kapi: every k8s.io/api group-version in $m"
  kapi_module || return 1
  kapi_measure kapi "$RUNS" || return 1

  "$BENCH" lines -header "$HEADER" -case kapi -contender ours -results "$RESULTS" "$out/ours" || return 1
  "$BENCH" lines -header "$HEADER" -case kapi -contender upstream -results "$RESULTS" "$out/upstream" || return 1
  local ok=0
  compiles kapi ours "$m" "$mp/generated/" ./generated/ours/... || ok=1
  compiles kapi upstream "$m" "$mp/generated/" ./generated/upstream/... || ok=1
  return $ok
}

status=0
for c in "${CASES[@]}"; do
  if ! "case_$c"; then
    echo "bench-codegen: case $c FAILED (see above)" >&2
    status=1
  fi
done

log "results after ${SECONDS}s ($RUNS timed runs each, medians; ratios are upstream/ours for costs, ours/upstream for sizes)"
echo "machine: $(nproc 2>/dev/null || echo '?') cores, $(go version | cut -d' ' -f3-), code-generator $CODEGEN_VERSION"
"$BENCH" report "$RESULTS"
if [ $status -ne 0 ]; then
  echo "bench-codegen: FAILED: a generator failed or its output does not compile (see above)" >&2
fi
exit $status
