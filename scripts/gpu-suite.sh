#!/usr/bin/env bash
# Runs ON the GPU machine, from the repository root, after scripts/gpu-test.sh built and
# bundled here (send it with carry [".gpu-bundle"]). One stage per call, results in $OUT:
#   tests   GPU test suites                         -> gpu.txt tests.log
#   filter  GateKeeper accuracy and throughput      -> filter.tsv bench.log
#   map     end-to-end mapping, filter gpu/cpu/off  -> demo.txt map.log ncu.txt
#   mapfilter  GateKeeper on vs off end to end, e = 2/5/8, best and -a (after map) -> mapfilter.tsv
#   real    real reads (NA12878, HG002 chr20 slices, x REAL_COPIES) on all of chr20: filter
#           gpu/cpu/off at e = 2/5/8, best and -a, records compared -> real.tsv real.log
#   index   a GRCh37-sized (3.1 Gbp) synthetic build -> index.log
#   bigmap  (after index, same machine) 500 k pairs mapped on it, filter gpu/cpu/off, then
#           on vs off at e = 2/5/8, best and -a -> bigmap.log bigfilter.tsv
#   correct corrector tests, throughput vs CPU twin and Lighter -> correct_tests.log correct.tsv correct.log
#   ecoli   corrector: EC_PAIRS (1 M) simulated 2x150 pairs of E. coli MG1655 (bundle:
#           data/real/MG1655-K12.fasta.gz) or, with EC_GENOME=chr20, of GRCh37 chr20 (bundle:
#           data/real/20.part*-of-6.fa.gz); gatemap correct GPU and CPU twin (gm_old: the
#           build in bin/gatemap-old) vs Lighter -t 16 (bin/lighter carried), EC_ROUNDS rounds
#           alternating; wall, peak RSS, errors fixed and introduced (gatemap eval correct;
#           EC_EVAL=0 skips the truth and the scoring); EC_EXTRA: more gatemap options,
#           EC_TAG: a suffix for the file names -> ecoli.tsv ecoli.log
#   call    caller tests, gatemap call with the GPU vs the CPU pair-HMM -> call_tests.log call.tsv call.log
#   pairhmm pair-HMM tests, GCUPS, 10s file, accuracy -> pairhmm_tests.log pairhmm.tsv pairhmm_bench.log
#   compare two builds (bin/gatemap-old, bin/gatemap): records with filter gpu/cpu/off on simulated
#           and real reads, calls and corrections with the GPU and the CPU -> compare.txt
#   ab      the two builds' speed side by side (AB_PAIRS simulated pairs and single reads) -> ab.txt
#   pairhmm60  the PairHMM project's 1m.in concatenated 60 times: gatemap pairhmm vs gpuPairHMM
#           (bin/gpuPairHMM, built from ../shared/peers), alternating, PH_ROUNDS rounds; outputs
#           compared (PH_EXTRA: more gatemap options, e.g. -v 4 for the engine's time split)
#           -> pairhmm60.tsv pairhmm60.log
#   mapbench  GRCh37 chr20 (63 Mbp, from the bundle), MB_PAIRS (1 M) simulated 2x150 pairs:
#           gatemap (GPU seeding + filter, GPU with the filter off, CPU seeding + GPU filter,
#           CPU), minimap2 -ax sr and bwa mem (bin/minimap2, bin/bwa carried; MB_BWA=0 skips
#           it) with the same threads, MB_ROUNDS rounds alternating; wall, peak RSS, peak GPU
#           memory, accuracy; records compared (MB_TOOLS: a subset; gm_old: bin/gatemap-old
#           on the GPU, another build side by side) -> mapbench.tsv
#           mapbench_raw.tsv mapbench.log (plot it here: scripts/plot_mapbench.py; the GPU
#           machine has no matplotlib)
#   mapbench37  the same on the 3.1 Gbp `--like grch37` genome, MB37_PAIRS (500 k) pairs,
#           MB37_TOOLS (default gm_gpu gm_cpuseed; with minimap2 its index is built first, which
#           takes most of a call)
#           -> mapbench37.tsv mapbench37_raw.tsv mapbench37.log
#   sort    fq2bam: `map` vs `map --sort --markdup` vs `map | samtools fixmate | sort | markdup`
#           (bin/samtools carried), SORT_PAIRS (1 M) pairs of the `--like grch37 --scale
#           SORT_SCALE` (0.03) genome, SORT_ROUNDS (3) rounds alternating (scripts/bench_sort.sh;
#           SORT_OLD=1 adds bin/gatemap-old's --sort --markdup; SORT_LEVELS="1" adds both
#           gatemap commands at those BAM compression levels) -> sort.tsv sort.log
#   devices scripts/bench_devices.sh on chr20 (bundle: data/real/20.part*-of-6.fa.gz; its env:
#           PAIRS COV ROUNDS GZ SAM): --device 0 / 0,1 / all -> devices.tsv devices_runs.log
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=.gpu-bundle/run
T=$(nproc)
json_get() { grep -o "\"$1\": [0-9.e+-]*" "$2" | head -1 | cut -d' ' -f2; }
# GateKeeper on vs off: EDITS thresholds, best and -a, one TSV line per run (stage times
# from --stats), records of gpu and off compared.   filter_table INDEX READS1 READS2 TSV EDITS
filter_table() {
  local idx=$1 r1=$2 r2=$3 tsv=$4 edits=$5 mode e f flag st w j=/tmp/filter_table.json
  printf "mode\te\tfilter\twall_s\tseed_s\tfilter_s\tverify_s\tfallback_s\tfinish_s\toutput_s\tcandidates_verified\trecords\n" \
    > "$tsv"
  for mode in best all; do
    for e in $edits; do
      flag=; [ $mode = all ] && flag=-a
      for f in gpu off; do
        st=$(date +%s%N)
        $B gatemap map -t "$T" $flag -e "$e" --filter $f --stats $j -o /tmp/filter_table_$f.sam "$idx" "$r1" "$r2" \
          2> /dev/null
        w=$(awk -v a="$st" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
        printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" $mode "$e" $f "$w" "$(json_get seed $j)" \
          "$(json_get filter $j)" "$(json_get verify $j)" "$(json_get fallback $j)" "$(json_get finish $j)" \
          "$(json_get output $j)" "$(json_get verified $j)" "$(json_get records $j)" >> "$tsv"
      done
      cmp -s <(grep -v '^@PG' /tmp/filter_table_gpu.sam) <(grep -v '^@PG' /tmp/filter_table_off.sam) \
        || echo "# e=$e $mode: RECORDS DIFFER" >> "$tsv"
    done
  done
}
# Times mapping tools on the same reads, alternating rounds: wall, peak RSS, peak GPU
# memory; records of gatemap's settings compared; medians, ratio to minimap2 and
# accuracy at MAPQ 60/20/1.   map_tools PREFIX TOOLS ROUNDS NAME (PREFIX.gmi/.mmi/.fa,
# reads $D/pe_1.fq $D/pe_2.fq, log $L) -> NAME.tsv NAME_raw.tsv
map_tools() {
  local prefix=$1 tools=$2 rounds=$3 name=$4 round tool gm cmd smi st w mm rss gpum acc
  printf "round\ttool\twall_s\trss_mb\tgpu_peak_mb\n" > "$OUT/${name}_raw.tsv"
  for round in $(seq "$rounds"); do
    for tool in $tools; do
      [ $tool = bwa ] && [ "$round" -gt 1 ] && continue  # slow: run once, for its time and accuracy
      gm=".gpu-bundle/bin/gatemap map -t $T -o $D/$tool.sam --stats $D/$tool.json"
      case $tool in
        gm_gpu) cmd="$gm --backend gpu $prefix.gmi" ;;
        gm_gpu_off) cmd="$gm --backend gpu --filter off $prefix.gmi" ;;
        gm_gpu_enc) cmd="$gm --backend gpu --encode-on-device $prefix.gmi" ;;
        gm_cpuseed) cmd="$gm --backend gpu --cpu-seed $prefix.gmi" ;;
        gm_cpu) cmd="$gm --backend cpu $prefix.gmi" ;;
        gm_old) cmd=".gpu-bundle/bin/gatemap-old map -t $T -o $D/$tool.sam --stats $D/$tool.json --backend gpu $prefix.gmi" ;;
        minimap2) cmd=".gpu-bundle/bin/minimap2 -ax sr -t $T -o $D/$tool.sam $prefix.mmi" ;;
        bwa) cmd=".gpu-bundle/bin/bwa mem -t $T -o $D/$tool.sam $prefix.fa" ;;
      esac
      # The last round's output is removed before the clock starts: deleting a 1.3 GB file
      # takes 0.25-0.35 s (the tool's open or rename would otherwise pay it in its time).
      # And the last tool's 1.3 GB still being written back to disk is flushed first, so
      # that the tool after it does not pay for it (session 16: the tool run right after
      # minimap2 was the slowest in every round).
      rm -f $D/$tool.sam $D/$tool.json
      sync
      nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > /tmp/gpumem.txt &
      smi=$!
      st=$(date +%s%N)
      echo "## round $round $tool: $cmd" >> $L
      $B time -f %M -o /tmp/rss.txt $cmd $D/pe_1.fq $D/pe_2.fq 2>> $L
      w=$(awk -v a="$st" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
      kill $smi; wait $smi 2> /dev/null
      [ -s $D/$tool.json ] && cat $D/$tool.json >> $L
      printf "%s\t%s\t%s\t%s\t%s\n" "$round" $tool "$w" "$(( $(tail -1 /tmp/rss.txt) / 1024 ))" \
        "$(sort -n /tmp/gpumem.txt | tail -1)" >> "$OUT/${name}_raw.tsv"
    done
  done
  for tool in gm_gpu_off gm_gpu_enc gm_cpuseed gm_cpu gm_old; do
    [ -s $D/$tool.sam ] || continue
    cmp -s <(grep -v '^@PG' $D/gm_gpu.sam) <(grep -v '^@PG' $D/$tool.sam) \
      && echo "records gm_gpu == $tool: identical" >> $L || echo "records gm_gpu != $tool: DIFFER" >> $L
  done
  # Medians, ratio to minimap2, accuracy at MAPQ 60 / 20 / 1 (fraction mapped, error rate).
  printf "tool\twall_s\tx_minimap2\trss_mb\tgpu_peak_mb\tmapq60_frac\tmapq60_err\tmapq20_frac\tmapq20_err\tmapq1_frac\tmapq1_err\n" \
    > "$OUT/$name.tsv"
  mm=$(awk '$2 == "minimap2" { print $3 }' "$OUT/${name}_raw.tsv" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  for tool in $tools; do
    read -r w rss gpum < <(awk -v t=$tool '$2 == t { print $3, $4, $5 }' "$OUT/${name}_raw.tsv" | sort -n |
      awk '{ w[NR] = $1; r[NR] = $2; g[NR] = $3 } END { m = int((NR + 1) / 2); print w[m], r[m], g[m] }')
    acc=$($B gatemap eval map $D/$tool.sam 2> /dev/null | awk '$1 == 60 { a = $3 "\t" $5 } $1 == 20 { b = $3 "\t" $5 }
      $1 == 1 { c = $3 "\t" $5 } END { print a "\t" b "\t" c }')
    printf "%s\t%s\t%.2f\t%s\t%s\t%s\n" $tool "$w" "$(awk -v a="$mm" -v b="$w" 'BEGIN { print (a == "" ? "nan" : a / b) }')" "$rss" "$gpum" "$acc" >> "$OUT/$name.tsv"
  done
}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,memory.free --format=csv; $B gatemap version; } \
  >> "$OUT/gpu.txt" 2>&1
for stage in "$@"; do
  case $stage in
    tests)
      for t in test_gpu_device test_filter_gpu test_mapper_gpu test_filter test_pairhmm_gpu test_correct_gpu; do
        $B $t; echo "$t exit $?"
      done > "$OUT/tests.log" 2>&1
      ;;
    filter)
      $B gatemap bench filter -t "$T" ${FILTER_BENCH_ARGS:-} -o "$OUT/filter.tsv" > "$OUT/bench.log" 2>&1
      ;;
    map)
      D=/tmp/gm_demo
      $B gatemap demo -t "$T" --scale 0.03 -n 500000 --dir $D > "$OUT/demo.txt" 2>> "$OUT/map.log"
      for f in gpu cpu off; do
        s=$(date +%s%N)
        $B gatemap map -t "$T" --filter $f --stats /tmp/map_$f.json -o $D/map_$f.sam $D/ref.gmi \
          $D/reads_1.fq.gz $D/reads_2.fq.gz 2>> "$OUT/map.log"
        echo "filter $f: wall $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$OUT/map.log"
        cat /tmp/map_$f.json >> "$OUT/map.log"
      done
      $B gatemap map -t "$T" --filter gpu --encode-on-device --stats /tmp/map_ge.json -o $D/map_ge.sam \
        $D/ref.gmi $D/reads_1.fq.gz $D/reads_2.fq.gz 2>> "$OUT/map.log"
      cat /tmp/map_ge.json >> "$OUT/map.log"
      for f in cpu off ge; do
        cmp -s <(grep -v '^@PG' $D/map_gpu.sam) <(grep -v '^@PG' $D/map_$f.sam) \
          && echo "records gpu == $f: identical" >> "$OUT/map.log" || echo "records gpu != $f: DIFFER" >> "$OUT/map.log"
      done
      $B gatemap eval map $D/map_gpu.sam >> "$OUT/map.log" 2>&1
      NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
      if [ -n "$NCU" ] && [ -z "${SKIP_NCU:-}" ]; then  # what bounds the kernel: one launch's counters
        eval "$($B --env)"
        timeout 240 "$NCU" --kernel-name regex:gatekeeper_kernel --launch-skip 3 --launch-count 1 \
          --section SpeedOfLight --section Occupancy --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
          .gpu-bundle/bin/gatemap bench filter --backend gpu --lengths 100 --edits 5 --pairs 30000000 \
          --accuracy-pairs 0 --reps 1 -o /tmp/ncu_bench.tsv > "$OUT/ncu.txt" 2>&1
      else
        echo "ncu not found" > "$OUT/ncu.txt"
      fi
      ;;
    mapfilter)
      D=/tmp/gm_demo
      [ -s $D/ref.gmi ] || $B gatemap demo -t "$T" --scale 0.03 -n 500000 --dir $D > /dev/null 2>&1
      filter_table $D/ref.gmi $D/reads_1.fq.gz $D/reads_2.fq.gz "$OUT/mapfilter.tsv" "2 5 8"
      ;;
    real)
      R=$PWD/.gpu-bundle/data/real D=/tmp/gm_real
      mkdir -p $D
      if [ ! -s $D/20.gmi ]; then
        for i in 1 2 3 4 5 6; do zcat $R/20.part$i-of-6.fa.gz; done > $D/20.fa
        $B gatemap index -t "$T" -o $D/20.gmi $D/20.fa > "$OUT/real.log" 2>&1
        for s in NA12878 HG002; do  # the slices repeated: long enough runs to time
          for i in $(seq "${REAL_COPIES:-10}"); do zcat $R/$s.r1.fq.gz; done > $D/$s.r1.fq
          for i in $(seq "${REAL_COPIES:-10}"); do zcat $R/$s.r2.fq.gz; done > $D/$s.r2.fq
        done
      fi
      printf "reads\tmode\te\tfilter\twall_s\tseed_s\tfilter_s\tverify_s\tfallback_s\tfinish_s\tcandidates_verified\tmapped\tproper_pairs\n" \
        > "$OUT/real.tsv"
      for s in NA12878 HG002; do
        for mode in best all; do
          for e in ${REAL_EDITS:-2 5 8}; do
            flag=; [ $mode = all ] && flag=-a
            for f in gpu cpu off; do
              st=$(date +%s%N)
              $B gatemap map -t "$T" $flag -e $e --filter $f --stats /tmp/real.json -o /tmp/real_$f.sam $D/20.gmi \
                $D/$s.r1.fq $D/$s.r2.fq 2>> "$OUT/real.log"
              w=$(awk -v a="$st" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
              j=/tmp/real.json
              printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" $s $mode $e $f "$w" "$(json_get seed $j)" \
                "$(json_get filter $j)" "$(json_get verify $j)" "$(json_get fallback $j)" "$(json_get finish $j)" \
                "$(json_get verified $j)" "$(json_get mapped $j)" "$(json_get proper_pairs $j)" >> "$OUT/real.tsv"
            done
            for f in cpu off; do
              cmp -s <(grep -v '^@PG' /tmp/real_gpu.sam) <(grep -v '^@PG' /tmp/real_$f.sam) \
                || echo "# $s e=$e $mode: RECORDS gpu != $f" >> "$OUT/real.tsv"
            done
          done
        done
      done
      ;;
    bigmap)
      G=/tmp/gm_grch37
      st=$(date +%s)
      $B gatemap sim reads $G/ref.fa -n "${BIGMAP_PAIRS:-500000}" -l 150 -t "$T" -o $G/pe > "$OUT/bigmap.log" 2>&1
      echo "sim reads: $(( $(date +%s) - st )) s" >> "$OUT/bigmap.log"
      for f in gpu cpu off; do
        st=$(date +%s%N)
        $B gatemap map -t "$T" --filter $f --stats /tmp/big_$f.json -o /tmp/big_$f.sam $G/ref.gmi $G/pe_1.fq \
          $G/pe_2.fq 2>> "$OUT/bigmap.log"
        echo "filter $f: wall $(( ($(date +%s%N) - st) / 1000000 )) ms" >> "$OUT/bigmap.log"
        cat /tmp/big_$f.json >> "$OUT/bigmap.log"
      done
      for f in cpu off; do
        cmp -s <(grep -v '^@PG' /tmp/big_gpu.sam) <(grep -v '^@PG' /tmp/big_$f.sam) \
          && echo "records gpu == $f: identical" >> "$OUT/bigmap.log" || echo "records gpu != $f: DIFFER" >> "$OUT/bigmap.log"
      done
      $B gatemap eval map /tmp/big_gpu.sam >> "$OUT/bigmap.log" 2>&1
      filter_table $G/ref.gmi $G/pe_1.fq $G/pe_2.fq "$OUT/bigfilter.tsv" "${BIGMAP_EDITS:-2 5 8}"
      ;;
    pairhmm)
      export GATEMAP_SHARED_DATA=$PWD/.gpu-bundle/data
      for t in test_pairhmm_gpu test_pairhmm; do $B $t; echo "$t exit $?"; done > "$OUT/pairhmm_tests.log" 2>&1
      $B gatemap bench pairhmm -t "$T" --file .gpu-bundle/data/pairhmm-carneiro/10s.in ${PAIRHMM_BENCH_ARGS:-} \
        -o "$OUT/pairhmm.tsv" > "$OUT/pairhmm_bench.log" 2>&1
      echo "bench exit $?" >> "$OUT/pairhmm_bench.log"
      NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
      if [ -n "$NCU" ] && [ -n "${PAIRHMM_NCU:-}" ]; then  # what bounds the kernel: one launch of the 128 x 128 set
        eval "$($B --env)"
        timeout 240 "$NCU" --kernel-name regex:pairhmm_kernel --launch-skip 2 --launch-count 1 \
          --section SpeedOfLight --section Occupancy --section ComputeWorkloadAnalysis --section WarpStateStats \
          --section InstructionStats .gpu-bundle/bin/gatemap bench pairhmm --sizes 128 --long-read-haps 0 --no-cpu \
          --reps 1 --gpu-cells 500000000 -o /tmp/ncu_ph.tsv > "$OUT/pairhmm_ncu.txt" 2>&1
      fi
      ;;
    correct)
      for t in test_correct_gpu test_correct; do $B $t; echo "$t exit $?"; done > "$OUT/correct_tests.log" 2>&1
      GATEMAP="$PWD/$B gatemap" LIGHTER=$PWD/.gpu-bundle/bin/lighter BACKENDS="${CORRECT_BACKENDS:-gpu cpu}" \
        MAP_READS=${CORRECT_MAP_READS:-0} EXTRA="${CORRECT_EXTRA:-}" SKIP_LIGHTER="${CORRECT_SKIP_LIGHTER:-}" \
        SETS="${CORRECT_SETS:-150:30 100:60}" bash scripts/bench_correct.sh /tmp/gm_correct > "$OUT/correct.tsv" \
        2> "$OUT/correct.log"
      echo "bench exit $?" >> "$OUT/correct.log"
      ;;
    ecoli)
      R=$PWD/.gpu-bundle/data/real L=$OUT/ecoli${EC_TAG:-}.log TSV=$OUT/ecoli${EC_TAG:-}.tsv
      D=/tmp/gm_ec_${EC_GENOME:-ecoli}_${EC_PAIRS:-1000000}
      mkdir -p $D
      if [ ! -s $D/p_1.fq ]; then
        rm -rf /tmp/gm_ec_*  # an earlier set's files: the disk holds one large set at a time
        mkdir -p $D
        if [ "${EC_GENOME:-ecoli}" = chr20 ]; then
          for i in 1 2 3 4 5 6; do zcat $R/20.part$i-of-6.fa.gz; done > $D/ec.fa
        else
          zcat $R/MG1655-K12.fasta.gz > $D/ec.fa
        fi
        truth=--truth-fastq; [ "${EC_EVAL:-1}" = 0 ] && truth=
        st=$(date +%s)
        $B gatemap sim reads $D/ec.fa -n "${EC_PAIRS:-1000000}" -l 150 --sub-rate 0.005 --indel-rate 0.0001 \
          $truth -t "$T" -o $D/p >> $L 2>&1
        echo "# simulated ${EC_PAIRS:-1000000} pairs in $(( $(date +%s) - st )) s" >> $L
        if [ -n "$truth" ]; then
          cat $D/p_1.fq $D/p_2.fq > $D/both.fq
          cat $D/p_1.true.fq $D/p_2.true.fq > $D/truth.fq
        fi
      fi
      glen=$(grep -v '^>' $D/ec.fa | tr -d '\n' | wc -c)
      printf "round\ttool\twall_s\tmax_rss_mb\terrors_before\tfixed\tintroduced\tfixed_minus_introduced\n" > $TSV
      for round in $(seq "${EC_ROUNDS:-2}"); do
        for tool in ${EC_TOOLS:-gm_gpu gm_cpu lighter}; do
          rm -rf $D/out && mkdir -p $D/out
          case $tool in
            gm_gpu | gm_cpu | gm_old) exe=gatemap; [ $tool = gm_old ] && exe=gatemap-old
              be=gpu; [ $tool = gm_cpu ] && be=cpu
              cmd=($exe correct -t "$T" --backend $be ${EC_EXTRA:-} --summary $D/out/summary -o $D/out/p_1.cor.fq \
                   -p $D/out/p_2.cor.fq $D/p_1.fq $D/p_2.fq) ;;
            lighter) cmd=(lighter -r $D/p_1.fq -r $D/p_2.fq -K 21 "$glen" -t "$T" -od $D/out) ;;
          esac
          echo "== round $round $tool: ${cmd[*]}" >> $L
          $B time -f "%e %M" -o $D/time.txt "$PWD/.gpu-bundle/bin/${cmd[0]}" "${cmd[@]:1}" >> $L 2>&1
          echo "exit $? $(cat $D/time.txt)" >> $L
          [ -s $D/out/summary ] && cat $D/out/summary >> $L
          if [ "${EC_EVAL:-1}" = 0 ]; then
            printf "%s\t%s\t%s\t%.1f\t\t\t\t\n" $round $tool "$(cut -d' ' -f1 $D/time.txt)" \
              "$(awk '{ print $2 / 1024 }' $D/time.txt)" >> $TSV
            continue
          fi
          cat $D/out/p_1.cor.fq $D/out/p_2.cor.fq > $D/cor.fq
          $B gatemap eval correct $D/both.fq $D/cor.fq $D/truth.fq > $D/eval.txt 2>> $L
          awk -v r=$round -v t=$tool -v w="$(cut -d' ' -f1 $D/time.txt)" -v m="$(cut -d' ' -f2 $D/time.txt)" '
            { v[$1] = $2 } END { printf "%s\t%s\t%s\t%.1f\t%d\t%d\t%d\t%d\n", r, t, w, m / 1024,
              v["error_rate_before"] * v["bases"] + 0.5, v["errors_fixed"], v["errors_introduced"],
              v["errors_fixed"] - v["errors_introduced"] }' $D/eval.txt >> $TSV
        done
      done
      rm -rf $D/out
      ;;
    call)
      $B test_caller > "$OUT/call_tests.log" 2>&1; echo "test_caller exit $?" >> "$OUT/call_tests.log"
      GATEMAP="$PWD/$B gatemap" BACKENDS="gpu cpu" SKIP_OTHERS=1 GVCF=1 GENOME_LEN=${CALL_GENOME_LEN:-5000000} \
        bash scripts/bench_call.sh /tmp/gm_call > "$OUT/call.tsv" 2> "$OUT/call.log"
      echo "bench exit $?" >> "$OUT/call.log"
      ;;
    pairhmm60)
      P=/tmp/gm_ph60 L="$OUT/pairhmm60.log"
      mkdir -p $P
      for i in $(seq 60); do cat .gpu-bundle/data/pairhmm-carneiro/1m.in; done > $P/x60.in
      printf "round\ttool\twall_s\n" > "$OUT/pairhmm60.tsv"
      for r in $(seq "${PH_ROUNDS:-3}"); do
        st=$(date +%s%N)
        $B gatemap pairhmm -t "$T" --backend gpu ${PH_EXTRA:-} -o $P/gatemap.txt $P/x60.in 2>> "$L"
        printf "%s\tgatemap\t%s\n" $r "$(awk -v a="$st" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')" \
          >> "$OUT/pairhmm60.tsv"
        st=$(date +%s%N)
        $B gpuPairHMM --inputfile $P/x60.in --outputfile $P/gpuPairHMM.txt >> "$L" 2>&1
        printf "%s\tgpuPairHMM\t%s\n" $r "$(awk -v a="$st" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')" \
          >> "$OUT/pairhmm60.tsv"
      done
      # gpuPairHMM writes per test case a "R H" line, then R lines of H values: one per line here.
      awk '{ if (!left) { left = $1; next } for (i = 1; i <= NF; i++) print $i; left-- }' $P/gpuPairHMM.txt > $P/gph_flat.txt
      wc -l $P/gatemap.txt $P/gph_flat.txt >> "$L"
      if [ -x .gpu-bundle/bin/gatemap-old ]; then  # the numbers of the previous build: unchanged?
        .gpu-bundle/run gatemap-old pairhmm -t "$T" --backend gpu -o $P/old.txt $P/x60.in 2>> "$L"
        cmp -s $P/old.txt $P/gatemap.txt && echo "# gatemap-old and gatemap: identical likelihoods" >> "$OUT/pairhmm60.tsv" \
          || echo "# gatemap-old and gatemap: likelihoods DIFFER" >> "$OUT/pairhmm60.tsv"
      fi
      paste $P/gatemap.txt $P/gph_flat.txt | awk '{d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d; if (d > 1e-3) n++}
        END {printf "max |gatemap - gpuPairHMM| = %g, pairs differing by > 1e-3: %d\n", m, n}' >> "$OUT/pairhmm60.tsv"
      ;;
    sort)
      LEVELS="${SORT_LEVELS:-}" OLD=$([ "${SORT_OLD:-0}" = 1 ] && echo "$PWD/$B gatemap-old") GATEMAP="$PWD/$B gatemap" \
        SAMTOOLS="$PWD/$B samtools" THREADS=$T bash scripts/bench_sort.sh /tmp/gm_sort "${SORT_SCALE:-0.03}" \
        "${SORT_PAIRS:-1000000}" "${SORT_ROUNDS:-3}" > "$OUT/sort.tsv" 2> "$OUT/sort.log"
      echo "bench exit $?" >> "$OUT/sort.log"
      cat /tmp/gm_sort/runs.log >> "$OUT/sort.log"
      ;;
    mapbench)
      R=$PWD/.gpu-bundle/data/real D=/tmp/gm_mb L=$OUT/mapbench.log
      mkdir -p $D
      if [ ! -s $D/20.gmi ]; then
        for i in 1 2 3 4 5 6; do zcat $R/20.part$i-of-6.fa.gz; done > $D/20.fa
        $B gatemap sim variants $D/20.fa -o $D/donor >> $L 2>&1
        $B gatemap sim reads $D/20.fa --vcf $D/donor.truth.vcf.gz -n "${MB_PAIRS:-1000000}" -l 150 -t "$T" \
          -o $D/pe >> $L 2>&1
        st=$(date +%s%N); $B gatemap index -t "$T" -o $D/20.gmi $D/20.fa >> $L 2>&1
        echo "gatemap index: $(( ($(date +%s%N) - st) / 1000000 )) ms" >> $L
        $B minimap2 -x sr -d $D/20.mmi $D/20.fa >> $L 2>&1
        [ "${MB_BWA:-1}" = 0 ] || $B bwa index $D/20.fa >> $L 2>&1
      fi
      tools=${MB_TOOLS:-gm_gpu gm_gpu_off gm_cpuseed gm_cpu minimap2}
      [ "${MB_BWA:-1}" = 0 ] || tools="$tools bwa"
      map_tools $D/20 "$tools" "${MB_ROUNDS:-3}" mapbench
      ;;
    mapbench37)
      D=/tmp/gm_mb37 L=$OUT/mapbench37.log
      mkdir -p $D
      st=$(date +%s)
      $B gatemap sim genome --like grch37 --scale 1 -t "$T" -o $D/ref.fa > $L 2>&1
      echo "sim genome: $(( $(date +%s) - st )) s" >> $L
      $B gatemap sim reads $D/ref.fa -n "${MB37_PAIRS:-500000}" -l 150 -t "$T" -o $D/pe >> $L 2>&1
      st=$(date +%s%N); $B gatemap index -t "$T" -o $D/ref.gmi $D/ref.fa >> $L 2>&1
      echo "gatemap index: $(( ($(date +%s%N) - st) / 1000000 )) ms" >> $L
      case " ${MB37_TOOLS:-} " in
        *" minimap2 "*)
          st=$(date +%s%N); $B minimap2 -x sr -t "$T" -d $D/ref.mmi $D/ref.fa >> $L 2>&1
          echo "minimap2 index: $(( ($(date +%s%N) - st) / 1000000 )) ms" >> $L ;;
      esac
      map_tools $D/ref "${MB37_TOOLS:-gm_gpu gm_cpuseed}" "${MB37_ROUNDS:-2}" mapbench37
      ;;
    devices)
      D=/tmp/gm_devices
      mkdir -p $D
      printf '#!/bin/sh\nexec %s/run gatemap "$@"\n' "$PWD/.gpu-bundle" > $D/gatemap
      printf '#!/bin/sh\nexec %s/run samtools "$@"\n' "$PWD/.gpu-bundle" > $D/samtools
      chmod +x $D/gatemap $D/samtools
      zcat .gpu-bundle/data/real/20.part*-of-6.fa.gz > $D/20.fa
      GATEMAP=$D/gatemap SAMTOOLS=$D/samtools bash scripts/bench_devices.sh $D/run $D/20.fa > "$OUT/devices.tsv" \
        2> "$OUT/devices.log"
      cp $D/run/runs.log "$OUT/devices_runs.log"
      ;;
    compare)
      eval "$($B --env)"
      C=/tmp/gm_compare
      real=; [ -d .gpu-bundle/data/real ] && real=.gpu-bundle/data/real  # left out when the bundle is full
      FILTERS="gpu cpu off" REAL_DIR=$real bash scripts/compare_records.sh .gpu-bundle/bin/gatemap-old \
        .gpu-bundle/bin/gatemap $C "${COMPARE_SCALE:-0.01}" "${COMPARE_PAIRS:-40000}" > "$OUT/compare.txt" 2>&1
      echo "compare_records exit $?" >> "$OUT/compare.txt"
      BACKENDS="gpu cpu" bash scripts/compare_call_correct.sh .gpu-bundle/bin/gatemap-old .gpu-bundle/bin/gatemap $C \
        >> "$OUT/compare.txt" 2>&1
      echo "compare_call_correct exit $?" >> "$OUT/compare.txt"
      ;;
    ab)
      eval "$($B --env)"
      A=/tmp/gm_ab
      mkdir -p $A
      G=.gpu-bundle/bin/gatemap
      source scripts/sim_data.sh
      sim_donor_set $A "${AB_SCALE:-0.03}" "${AB_PAIRS:-500000}"
      FILTERS="gpu cpu off" bash scripts/ab_map.sh .gpu-bundle/bin/gatemap-old $G $A "${AB_ROUNDS:-3}" > "$OUT/ab.txt" 2>&1
      cp $A/ab.tsv "$OUT/ab.tsv"
      ;;
    index)
      G=/tmp/gm_grch37
      mkdir -p $G
      s=$(date +%s)
      $B gatemap sim genome --like grch37 --scale 1 -t "$T" -o $G/ref.fa > "$OUT/index.log" 2>&1
      echo "sim genome: $(( $(date +%s) - s )) s, $(du -h $G/ref.fa | cut -f1)" >> "$OUT/index.log"
      /usr/bin/time -v $B gatemap index -t "$T" -o $G/ref.gmi $G/ref.fa >> "$OUT/index.log" 2>&1 \
        || $B gatemap index -t "$T" -o $G/ref.gmi $G/ref.fa >> "$OUT/index.log" 2>&1
      ls -l $G/ref.gmi >> "$OUT/index.log"
      sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
      printf '@r\nACGTACGTACGTACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIIIIIIIIIIIIIII\n' > $G/one.fq
      s=$(date +%s%N)
      $B gatemap map -t "$T" $G/ref.gmi $G/one.fq > /dev/null 2>> "$OUT/index.log"
      echo "cold load + map one read: $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$OUT/index.log"
      ;;
  esac
done
exit 0
