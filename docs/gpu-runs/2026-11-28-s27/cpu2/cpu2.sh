cd "${1:-/tmp/c20}"  # a/gm: 2eee81b, b/gm: this build; chr20.gmi, pe_{1,2}.fq(.gz): 200 k pairs
for r in 1 2 3; do
  for in in fq fq.gz; do
    for d in a b; do
      s=$(date +%s%N)
      (cd $d && ./gm map -t 2 -o x.bam ../chr20.gmi ../pe_1.$in ../pe_2.$in 2>/dev/null)
      echo "round $r $d $in $(( ($(date +%s%N) - s) / 1000000 )) ms"
    done
  done
done
