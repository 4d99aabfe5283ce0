#!/usr/bin/env bash
# Regenerates everything generated in this module:
#   - deepcopy functions (controller-gen object) next to the API types,
#   - CRD manifests with structural schemas (controller-gen crd) in manifests/,
#   - listers, informers, index funcs and the factory (informer-gen) in generated/.
# controller-gen and informer-gen are `tool` dependencies of this module (go.mod's
# tool lines; informer-gen resolves to this repository through the replace
# directive), which is how a CRD project would pin both: `go get -tool`.
# Usage: hack/update-codegen.sh   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."

go tool controller-gen \
  object paths=./apis/... \
  crd:crdVersions=v1 paths=./apis/... output:crd:artifacts:config=manifests

go tool informer-gen \
  --output-dir ./generated \
  --output-pkg github.com/informer-gen/informer-gen/examples/crd/generated \
  ./apis/...
