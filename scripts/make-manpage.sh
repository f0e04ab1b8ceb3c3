#!/usr/bin/env bash
# Writes the fdp(1) man page from the binary's own help (Debian's help2man):
# `fdp --help` becomes the synopsis and description, and each command's
# `fdp help COMMAND` a subsection of COMMANDS, so the page cannot drift
# from the help. Usage: scripts/make-manpage.sh FDP_BINARY OUT.1
set -euo pipefail
fdp="$1"
out="$2"
include="$(mktemp)"
trap 'rm -f "$include"' EXIT
{
  echo "[COMMANDS]"
  for cmd in $("$fdp" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
    echo ".SS $cmd"
    echo ".nf"
    # (roff: a leading dot or quote would be a request; backslashes escape)
    "$fdp" help "$cmd" | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
    echo ".fi"
  done
  echo "[SEE ALSO]"
  echo "The project's docs/cli.md (the command-line contract) and docs/formulas.md."
} > "$include"
help2man --no-info --no-discard-stderr --name "f-differential privacy: trade-off functions, certified composition, audits" \
  --version-option=--version --help-option=--help --include "$include" "$fdp" > "$out"
