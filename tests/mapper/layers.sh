#!/usr/bin/env bash
# mapper/'s folders keep their order (docs/ARCHITECTURE.md): a file includes mapper/
# headers only from its own folder or the folders below it, and no file in a folder
# includes one at mapper/'s top (the stages, the Mapper, the run). Lowest first:
#   align/, filter/ -> base/ -> seeding/ -> verify/ -> mapper/ (top).
# Prints every include that breaks it; exits 1 if any does.
set -uo pipefail
cd "${1:-$(dirname "$0")/../..}/mapper"
declare -A below=([align]="align" [filter]="filter" [base]="align filter base"
                  [seeding]="align base seeding" [verify]="align filter base seeding verify")
bad=0
for dir in */; do
  dir=${dir%/}
  [ -n "${below[$dir]:-}" ] || { echo "mapper/$dir: a folder the order does not name"; bad=1; continue; }
  while IFS=: read -r file included; do
    target=${included#mapper/}
    case $target in
      */*) folder=${target%%/*} ;;
      *) folder=top ;;
    esac
    case " ${below[$dir]} " in
      *" $folder "*) ;;
      *) echo "mapper/$file includes mapper/$target: $dir/ may include only ${below[$dir]}"; bad=1 ;;
    esac
  done < <(grep -oH '#include "mapper/[^"]*"' "$dir"/* | sed 's/#include "\(.*\)"/\1/')
done
[ $bad = 0 ] && echo "mapper/: every include goes down the order"
exit $bad
