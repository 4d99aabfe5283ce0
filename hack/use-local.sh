#!/usr/bin/env bash
# Makes a Go module use informer-gen from this clone, before the module is
# published: adds require and replace lines for github.com/informer-gen/informer-gen
# and its integrations (controllerruntime, prometheus) pointing at this
# checkout, informer-gen as a Go tool (unless --no-tool), then runs go mod tidy.
#
# Usage: hack/use-local.sh [--no-tool] [/path/to/your/module]   (default: .)
#
# Afterwards:
#   go tool github.com/informer-gen/informer-gen/cmd/informer-gen --help
# and imports of github.com/informer-gen/informer-gen/... (the runtime, the
# integrations) resolve to this checkout. go mod tidy keeps a require only for
# what the module imports; the replace lines stay, so an integration imported
# later resolves here too: run go mod tidy after generating code and after
# importing an integration. Once the module is tagged, drop the replace lines
# and use go get ...@version instead (see docs/migrating.md).
set -euo pipefail

tool=1
target=.
for arg in "$@"; do
  case "$arg" in
    --no-tool) tool=0 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "use-local.sh: unknown flag $arg (see --help)" >&2; exit 2 ;;
    *) target=$arg ;;
  esac
done

root=$(cd "$(dirname "$0")/.." && pwd -P)
if [ ! -f "$target/go.mod" ]; then
  echo "use-local.sh: $target has no go.mod (run go mod init there first)" >&2
  exit 1
fi
target=$(cd "$target" && pwd -P)
case "$target/" in
  "$root"/*) echo "use-local.sh: $target is inside this checkout; its modules already replace with relative paths" >&2; exit 1 ;;
esac

# A module with a replace to a directory and no version of its own is
# required at the zero pseudo-version, as go mod tidy would write it.
zero=v0.0.0-00010101000000-000000000000
args=()
for mod in "" /integrations/controllerruntime /integrations/prometheus; do
  path=github.com/informer-gen/informer-gen$mod
  args+=("-require=$path@$zero" "-replace=$path=$root$mod")
done
if [ "$tool" = 1 ]; then
  args+=("-tool=github.com/informer-gen/informer-gen/cmd/informer-gen")
fi

cd "$target"
go mod edit "${args[@]}"
go mod tidy
echo "$(go list -m) now uses informer-gen from $root"
echo "run go mod tidy again after generating code and after importing an integration"
