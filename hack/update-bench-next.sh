#!/usr/bin/env bash
# Writes bench/builtin/next.mod and next.sum: bench/builtin's go.mod and go.sum
# with the k8s.io libraries of the contender's graph (api, apimachinery,
# client-go, and apiextensions-apiserver for controller-runtime) raised to the
# next Kubernetes minor and the Go release it needs, as hack/update-next.sh
# does for the root module. Only the contender binary is built with it
# (go build -modfile=next.mod ./contender, see hack/bench-e2e-builtin.sh with
# NEXT=1): the API server stays k8s.io/kubernetes v1.37.2 on go.mod, and its
# packages do not compile against the next minor's staging modules, which is
# why tidy runs with -e (it reports their missing packages and writes the
# rest). Not named go.mod, so hack/test.sh does not take it for a module.
# Usage: hack/update-bench-next.sh; NEXT_K8S=v0.38.0 hack/update-bench-next.sh
set -euo pipefail
cd "$(dirname "$0")/../bench/builtin"

k8s=${NEXT_K8S:-v0.38.0-beta.0}
toolchain=${NEXT_GO:-go1.27.3}
lang=${toolchain#go}; lang=${lang%.*}.0

cp go.mod next.mod
cp go.sum next.sum
export GOTOOLCHAIN=$toolchain
edits=(-go="$lang" -toolchain="$toolchain")
for m in api apimachinery client-go; do
  edits+=(-require="k8s.io/$m@$k8s")
done
for m in api apimachinery client-go apiextensions-apiserver; do
  edits+=(-replace="k8s.io/$m=k8s.io/$m@$k8s")
done
go mod edit "${edits[@]}" next.mod
go mod tidy -e -modfile=next.mod 2>/dev/null
# The build is the check that next.mod and next.sum hold what the contender
# needs.
go build -modfile=next.mod -o /dev/null ./contender
echo "bench/builtin/next.mod: k8s.io libraries $k8s, $toolchain"
