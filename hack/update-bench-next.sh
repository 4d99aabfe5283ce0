#!/usr/bin/env bash
# Writes next.mod and next.sum for the end-to-end bench modules,
# bench/builtin and bench/e2e: each one's go.mod and go.sum with the k8s.io
# libraries of the contender's graph (api, apimachinery, client-go, and
# apiextensions-apiserver for controller-runtime) raised to the next
# Kubernetes minor and the Go release it needs, as hack/update-next.sh does
# for the root module. Only the contender binary is built with it
# (go build -modfile=next.mod ./contender, see hack/bench-e2e-builtin.sh and
# hack/bench-e2e.sh with NEXT=1): the API servers stay on go.mod
# (bench/builtin's k8s.io/kubernetes v1.37.2, bench/e2e's
# apiextensions-apiserver v0.37.2), and their packages need not compile
# against the next minor (k8s.io/kubernetes's do not, for want of its
# staging modules), which is why tidy runs with -e (it reports their missing
# packages and writes the rest). Not named go.mod, so hack/test.sh does not
# take it for a module.
# Usage: hack/update-bench-next.sh [builtin|e2e ...]   (default: both)
#   NEXT_K8S=v0.38.0 hack/update-bench-next.sh
set -euo pipefail
cd "$(dirname "$0")/../bench"

k8s=${NEXT_K8S:-v0.38.0-beta.0}
toolchain=${NEXT_GO:-go1.27.3}
lang=${toolchain#go}; lang=${lang%.*}.0
export GOTOOLCHAIN=$toolchain

mods=("$@")
[ ${#mods[@]} -gt 0 ] || mods=(builtin e2e)
for mod in "${mods[@]}"; do
  case $mod in
  builtin | e2e) ;;
  *) echo "update-bench-next.sh: $mod is neither builtin nor e2e" >&2; exit 2 ;;
  esac
  (
    cd "$mod"
    cp go.mod next.mod
    cp go.sum next.sum
    edits=(-go="$lang" -toolchain="$toolchain")
    for m in api apimachinery client-go; do
      edits+=(-require="k8s.io/$m@$k8s")
    done
    for m in api apimachinery client-go apiextensions-apiserver; do
      edits+=(-replace="k8s.io/$m=k8s.io/$m@$k8s")
    done
    go mod edit "${edits[@]}" next.mod
    go mod tidy -e -modfile=next.mod 2>/dev/null
    # The build is the check that next.mod and next.sum hold what the
    # contender needs.
    go build -modfile=next.mod -o /dev/null ./contender
  )
  echo "bench/$mod/next.mod: k8s.io libraries $k8s, $toolchain"
done
