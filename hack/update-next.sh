#!/usr/bin/env bash
# Writes hack/next.mod and hack/next.sum: the root module's go.mod and go.sum
# with k8s.io/api, apimachinery and client-go raised to the next Kubernetes
# minor and the Go release it needs. hack/test.sh runs the root module's
# tests a second time with them (go test -modfile=hack/next.mod), so that a
# user who takes the new client-go the day it is out gets a runtime and a
# generator that were tested there. Run it after changing go.mod, and to move
# the second leg to a newer release: NEXT_K8S=v0.38.0 hack/update-next.sh.
# runtime/internal/apiversion's TestNextModFollowsGoMod fails when next.mod
# lags go.mod.
set -euo pipefail
cd "$(dirname "$0")/.."

k8s=${NEXT_K8S:-v0.38.0-beta.0}
toolchain=${NEXT_GO:-go1.27.3}

cp go.mod hack/next.mod
cp go.sum hack/next.sum
export GOTOOLCHAIN=$toolchain
# The go line names the language (the release's .0), the toolchain line the
# release hack/test.sh runs the leg with.
lang=${toolchain#go}; lang=${lang%.*}.0
go get -modfile=hack/next.mod "go@$lang" "toolchain@$toolchain" \
  "k8s.io/api@$k8s" "k8s.io/apimachinery@$k8s" "k8s.io/client-go@$k8s"
go mod tidy -modfile=hack/next.mod
echo "hack/next.mod: k8s.io libraries $k8s, $toolchain"
