#!/usr/bin/env bash
# Checks that everything generated in this module is up to date without
# touching the working tree: deepcopy functions and CRD manifests
# (controller-gen, regenerated into a temporary copy of the module and diffed)
# and informer-gen's output (informer-gen --verify). Exits non-zero naming
# what is stale. Usage: hack/verify-codegen.sh
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== deepcopy and CRD manifests (controller-gen)"
# controller-gen writes next to its input: run it on a copy of the module.
cp -r go.mod go.sum apis manifests "$tmp"/
sed -i "s#=> ../..#=> $(cd ../.. && pwd)#" "$tmp/go.mod"
(cd "$tmp" && go tool controller-gen \
  object paths=./apis/... \
  crd:crdVersions=v1 paths=./apis/... output:crd:artifacts:config=manifests)
if ! diff -r apis "$tmp/apis" || ! diff -r manifests "$tmp/manifests"; then
  echo "deepcopy or CRD manifests are stale: run examples/crd/hack/update-codegen.sh" >&2
  status=1
fi

echo "== informers and listers (informer-gen --verify)"
if ! go tool informer-gen --verify \
    --output-dir ./generated \
    --output-pkg github.com/informer-gen/informer-gen/examples/crd/generated \
    ./apis/...; then
  echo "generated/ is stale: run examples/crd/hack/update-codegen.sh" >&2
  status=1
fi
exit $status
