#!/usr/bin/env bash
# Regenerates everything generated in this module:
#   - deepcopy functions (controller-gen object) next to the API types,
#   - CRD manifests with structural schemas (controller-gen crd) in manifests/,
#   - listers, informers, index funcs and the factory (informer-gen) in generated/.
# controller-gen is a `tool` dependency of this module; informer-gen is run from
# this repository through the module's replace directive.
# Usage: hack/update-codegen.sh   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."

go tool controller-gen \
  object paths=./apis/... \
  crd:crdVersions=v1 paths=./apis/... output:crd:artifacts:config=manifests

go run github.com/informer-gen/informer-gen/cmd/informer-gen \
  --output-dir ./generated \
  --output-pkg github.com/informer-gen/informer-gen/examples/crd/generated \
  ./apis/...
