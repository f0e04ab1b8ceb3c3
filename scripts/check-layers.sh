#!/usr/bin/env bash
# Fails when a library file includes a layer above its own (docs/architecture.md):
#   core <- ops <- mech <- audit, ops <- budget
# i.e. core includes core only; ops: core, ops; mech: core, ops, mech;
# budget: core, ops, budget; audit: core, ops, mech, audit. Also fails on an
# include by a relative "../" path, and on a public header (lib/include)
# that includes an internal one (lib/src: "ops/pld/...", no "fdp/" prefix).
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A allowed=(
  [core]="core"
  [ops]="core ops"
  [mech]="core ops mech"
  [budget]="core ops budget"
  [audit]="core ops mech audit"
)
status=0
for layer in "${!allowed[@]}"; do
  for f in $(find "lib/src/$layer" "lib/include/fdp/$layer" -name '*.[ch]pp' 2>/dev/null); do
    while IFS= read -r inc; do
      target=${inc#fdp/}
      target=${target%%/*}
      if [[ " ${allowed[$layer]} " != *" $target "* ]]; then
        echo "check-layers: $f includes \"$inc\" ($layer may include: ${allowed[$layer]})" >&2
        status=1
      fi
    done < <(sed -n 's/^#include "\([a-z_]*\/[^"]*\)".*/\1/p' "$f" | grep -E '^(fdp/)?(core|ops|mech|budget|audit)/' || true)
  done
done
if grep -rn '#include "\.\./' lib; then
  echo "check-layers: relative includes above" >&2
  status=1
fi
if grep -rnE '#include "(core|ops|mech|budget|audit)/' lib/include; then
  echo "check-layers: public headers above include internal ones" >&2
  status=1
fi
[ "$status" -eq 0 ] && echo "check-layers: every include respects the layers"
exit "$status"
