#!/usr/bin/env bash
# The house's order (docs/ARCHITECTURE.md): a product folder includes only the folders
# below it, and in a folder with rooms a room includes only itself and the rooms below
# it. Tables, lowest first ("top": the folder's own files). Prints every include that
# breaks the order; exits 1 if any does.
set -uo pipefail
cd "${1:-$(dirname "$0")/..}"
bad=0
say() { echo "$*"; bad=1; }

# The product folders, lowest first: each may include those before it.
order=(common gpu io index mapper caller correct sim eval bench apps)
for ((i = 0; i < ${#order[@]}; i++)); do
  dir=${order[$i]} allowed=" ${order[*]:0:$((i + 1))} "
  while IFS=: read -r file included; do
    folder=${included%%/*}
    case " ${order[*]} " in *" $folder "*) ;; *) continue ;; esac  # a system or third-party header
    case $allowed in *" $folder "*) ;; *) say "$file includes $included: $dir/ is below $folder/" ;; esac
  done < <(grep -rHo '#include "[a-z_]*/[^"]*"' "$dir" | sed 's/#include "\(.*\)"/\1/')
done

# rooms FOLDER ROOM=ALLOWED...: each room's files include FOLDER/ headers only from the
# rooms ALLOWED names (space-separated inside quotes); every room must be named.
rooms() {
  local folder=$1 spec room file included target from
  shift
  declare -A may=()
  for spec in "$@"; do may[${spec%%=*}]=" ${spec#*=} "; done
  for room in "$folder"/*/; do
    room=${room%/}; room=${room#"$folder"/}
    [ -n "${may[$room]:-}" ] || say "$folder/$room: a room the order does not name"
  done
  while IFS=: read -r file included; do
    target=${included#"$folder"/}
    case $target in */*) target=${target%%/*} ;; *) target=top ;; esac
    from=${file#"$folder"/}
    case $from in */*) from=${from%%/*} ;; *) from=top ;; esac
    case ${may[$from]:-} in *" $target "*) ;; *) say "$file includes $included: $folder/$from may include only:${may[$from]:- nothing}" ;; esac
  done < <(grep -rHo "#include \"$folder/[^\"]*\"" "$folder" | sed 's/#include "\(.*\)"/\1/')
}
rooms mapper "align=align" "filter=filter" "base=align filter base" "seeding=align base seeding" \
  "verify=align filter base seeding verify" "top=align filter base seeding verify top"
rooms io "top=top" "deflate=top deflate" "bam=top deflate bam" "sort=top deflate bam sort" \
  "reads=top reads" "text=top reads text"
rooms caller "pairhmm=pairhmm" "top=pairhmm top"
[ $bad = 0 ] && echo "every include goes down the order"
exit $bad
