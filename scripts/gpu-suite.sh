#!/usr/bin/env bash
# The GPU machine's checks and benchmarks (../shared/GPU.md). Here: `scripts/gpu-suite.sh bundle
# [OLD_GATEMAP [BINARY...]]` builds (sm_90) and packs .gpu-bundle (GPU tests, samtools and lighter/
# minimap2/bwa where installed, OLD_GATEMAP as gatemap-old, BINARY... (e.g. gpuPairHMM), chr20, the
# NA12878/HG002 slices, E. coli, the pair-HMM files; `run` it with carry [".gpu-bundle"]). There:
# from the repository root, `bash scripts/gpu-suite.sh STAGE...`, results under $OUT:
#   tests, filter (gatemap bench filter), pairhmm (bench pairhmm on 10s.in)
#   compare    gatemap-old vs gatemap: records (filter COMPARE_FILTERS: gpu cpu off; simulated and real reads),
#              calls and corrections on the GPU and the CPU (scripts/compare.sh)
#   io         scripts/bench_io.sh on chr20: IO_PAIRS (1 M) pairs plain, gzip -1 and bgzip -> SAM,
#              BAM and a sorted, duplicate-marked BAM, beside strobealign and minimap2 (when
#              bundled) and gatemap-old, IO_ROUNDS (3) rounds; then IO_WHOLE (6300000: chr20 at 30x)
#   ab         the two builds' map speed, AB_ROUNDS rounds (scripts/compare.sh speed)
#   jobs       JOB (pairhmm60: pairhmm on 1m.in x 60; call10: call on 10 Mbp at 30x) for each
#              of BUILDS (e.g. "gatemap gatemap-old gpuPairHMM"), ROUNDS rounds alternating
#   mapbench   chr20, MB_PAIRS (1 M) pairs: MB_TOOLS (gm_gpu gm_gpu_off gm_cpuseed gm_cpu
#              minimap2; gm_old; bwa unless MB_BWA=0), MB_ROUNDS (3) rounds alternating: wall,
#              RSS, GPU memory, accuracy (scripts/plot_mapbench.py plots mapbench.tsv)
#   mapbench37 the same on the 3.1 Gbp --like grch37 genome (MB37_PAIRS, MB37_TOOLS, MB37_ROUNDS)
#   sort, call, correct, devices: scripts/bench_io.sh sort (SORT_*), bench_call.sh and
#              bench_correct.sh (GPU and CPU), bench_devices.sh on chr20
#   ecoli      bench_correct.sh profiles: EC_PAIRS (1 M) pairs of E. coli (EC_GENOME=chr20: of
#              chr20), EC_TOOLS (gm_gpu gm_cpu lighter), EC_ROUNDS (2), EC_EXTRA, EC_EVAL=0
#   index      a GRCh37-sized (3.1 Gbp) synthetic index: build and cold load
#   genome     scripts/bench_genome.sh GENOME_STAGES (prep20 chr20 old chr20x30 prep genome capped old_genome report) with
#              the real chr20 in the genome, GENOME_PAIRS (50 M) pairs, in /tmp/gm_genome:
#              genome.tsv (a row per step) and genome.log; touches /tmp/gm_genome/done at the end
#   cohort     scripts/bench_cohort.sh speed on chr20: 3 donors at 30x called alone and together,
#              joint of their gVCFs and of 10 (7 more donors at 10x); touches /tmp/gm_cohort/done
set -uo pipefail
OUT=${OUT:-gpu-out}
if [ "${1:-}" = bundle ]; then  # here: build and pack
  set -e
  cd "$(dirname "$0")/.."
  # In a folder of its own: the CI's build (every architecture) stays as it is.
  cmake -S . -B build-sm90 -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > /dev/null
  cmake --build build-sm90 -j "$(nproc)"
  tools=(); for t in samtools bcftools lighter minimap2 bwa; do command -v $t > /dev/null && tools+=("$(command -v $t)"); done
  ../shared/tools/gpu-bundle.sh build-sm90 build-sm90/apps/gatemap build-sm90/tests/test_{gpu_device,filter_gpu,filter,mapper_gpu} \
    build-sm90/tests/test_{pairhmm,pairhmm_gpu,correct,correct_gpu,caller} "${tools[@]}" "${@:3}"
  [ -z "${2:-}" ] || cp "$2" .gpu-bundle/bin/gatemap-old
  strip .gpu-bundle/bin/* 2> /dev/null || true; d=.gpu-bundle/data; mkdir -p $d/real
  cp -r ../shared/data/pairhmm-carneiro $d/
  cp ../shared/data/grch37-chr20/20.part*-of-6.fa.gz ../shared/data/ecoli-k12-mg1655/MG1655-K12.fasta.gz $d/real/
  for s in NA12878_S1 HG002_NIST_150bp_downsampled_30x; do
    samtools view -u -F 0x900 "../shared/data/grch37-chr20-deepvariant-testdata/$s.chr20.10_10p1mb.bam" |
      samtools collate -u -O - | samtools fastq -1 "$d/real/${s%%_*}.r1.fq.gz" -2 "$d/real/${s%%_*}.r2.fq.gz" \
      -s /dev/null -0 /dev/null - 2> /dev/null
  done
  (cd .gpu-bundle && tar -cJf pack.tar.xz bin && rm -rf bin) && du -sh .gpu-bundle  # the carry: at most 64 MiB
  exit 0
fi
# There: every bundled binary by its name on PATH, run from a copy of the bundle named by
# its checksum: a later call's carry replaces .gpu-bundle, which would pull the binaries
# from under a stage still running in the background (a genome run lost its `call` so).
B=/tmp/gm_bundle_$(md5sum .gpu-bundle/pack.tar.xz | cut -c1-12)
if [ ! -x "$B/bin/gatemap" ]; then
  rm -rf "$B.part" && mkdir -p "$B.part" && cp -r .gpu-bundle/run .gpu-bundle/MANIFEST .gpu-bundle/lib "$B.part/" &&
    tar -xJf .gpu-bundle/pack.tar.xz -C "$B.part" && mv "$B.part" "$B"
fi
BIN=$B/path && mkdir -p "$BIN" "$OUT"
for b in "$B"/bin/*; do
  printf '#!/bin/sh\nexec %s %s "$@"\n' "$B/run" "$(basename "$b")" > "$BIN/$(basename "$b")"
  chmod +x "$BIN/$(basename "$b")"
done
export PATH=$BIN:$PATH GATEMAP=$BIN/gatemap SAMTOOLS=$BIN/samtools LIGHTER=$BIN/lighter TIME=$BIN/time
[ -x "$BIN/time" ] || TIME=/usr/bin/time
T=$(nproc) R=$PWD/.gpu-bundle/data/real
chr20() { [ -s "$1" ] || zcat "$R"/20.part*-of-6.fa.gz > "$1"; }
ms() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
# map_tools PREFIX TOOLS ROUNDS NAME: the tools on $D/pe_{1,2}.fq in alternating rounds (wall,
# peak RSS, peak GPU memory), gatemap's records compared with gm_gpu's; medians, the ratio
# to minimap2 and accuracy at MAPQ 60/20/1 -> NAME.tsv, NAME_raw.tsv, log in $L
map_tools() {
  local prefix=$1 tools=$2 name=$4 round tool cmd smi st w mm
  printf "round\ttool\twall_s\trss_mb\tgpu_peak_mb\n" > "$OUT/${name}_raw.tsv"
  for round in $(seq "$3"); do
    for tool in $tools; do
      [ $tool = bwa ] && [ "$round" -gt 1 ] && continue  # slow: once, for its time and accuracy
      cmd="gatemap map -t $T -o $D/$tool.sam --stats $D/$tool.json --backend gpu"
      case $tool in
        gm_gpu) cmd="$cmd $prefix.gmi" ;;
        gm_gpu_off) cmd="$cmd --filter off $prefix.gmi" ;;
        gm_cpuseed) cmd="$cmd --cpu-seed $prefix.gmi" ;;
        gm_cpu) cmd="${cmd% gpu} cpu $prefix.gmi" ;;
        gm_old) cmd="gatemap-old ${cmd#gatemap } $prefix.gmi" ;;
        minimap2) cmd="minimap2 -ax sr -t $T -o $D/$tool.sam $prefix.mmi" ;;
        bwa) cmd="bwa mem -t $T -o $D/$tool.sam $prefix.fa" ;;
      esac
      rm -f $D/$tool.sam $D/$tool.json
      sync  # the last tool's output written back first, not during this one
      nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > /tmp/gpumem.txt &
      smi=$! st=$(date +%s%N)
      echo "## round $round $tool: $cmd" >> "$L"
      $TIME -f %M -o /tmp/rss.txt $cmd $D/pe_1.fq $D/pe_2.fq 2>> "$L"
      w=$(ms "$st"); kill $smi; wait $smi 2> /dev/null
      [ -s $D/$tool.json ] && cat $D/$tool.json >> "$L"
      printf "%s\t%s\t%.2f\t%s\t%s\n" "$round" $tool "$w" "$(( $(tail -1 /tmp/rss.txt) / 1024 ))" \
        "$(sort -n /tmp/gpumem.txt | tail -1)" >> "$OUT/${name}_raw.tsv"
    done
  done
  for tool in $tools; do
    case $tool in gm_*) [ $tool = gm_gpu ] || { cmp -s <(grep -v '^@PG' $D/gm_gpu.sam) <(grep -v '^@PG' $D/$tool.sam) \
      && echo "records gm_gpu == $tool: identical" || echo "records gm_gpu != $tool: DIFFER"; } >> "$L" ;; esac
  done
  printf "tool\twall_s\tx_minimap2\trss_mb\tgpu_peak_mb\tmapq60_frac\tmapq60_err\tmapq20_frac\tmapq20_err\tmapq1_frac\tmapq1_err\n" \
    > "$OUT/$name.tsv"
  median() { awk -v t=$1 -v c=$2 '$2 == t { print $c }' "$OUT/${name}_raw.tsv" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
  mm=$(median minimap2 3)
  for tool in $tools; do
    w=$(median $tool 3)
    acc=$(gatemap eval map $D/$tool.sam 2> /dev/null | awk '$1 == 60 { a = $3 "\t" $5 } $1 == 20 { b = $3 "\t" $5 }
      $1 == 1 { c = $3 "\t" $5 } END { print a "\t" b "\t" c }')
    printf "%s\t%s\t%s\t%s\t%s\t%s\n" $tool "$w" "$(awk -v a="$mm" -v b="$w" 'BEGIN { print (a == "" ? "nan" : a / b) }')" \
      "$(median $tool 4)" "$(median $tool 5)" "$acc" >> "$OUT/$name.tsv"
  done
}
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,memory.free --format=csv; gatemap version; } \
  >> "$OUT/gpu.txt" 2>&1
for stage in "$@"; do
  case $stage in
    tests)
      for t in test_gpu_device test_filter_gpu test_mapper_gpu test_filter test_pairhmm_gpu test_correct_gpu; do
        $t; echo "$t exit $?"
      done > "$OUT/tests.log" 2>&1 ;;
    filter) gatemap bench filter -t "$T" ${FILTER_BENCH_ARGS:-} -o "$OUT/filter.tsv" > "$OUT/filter.log" 2>&1 ;;
    pairhmm)
      GATEMAP_SHARED_DATA=$PWD/.gpu-bundle/data test_pairhmm > "$OUT/pairhmm_tests.log" 2>&1
      gatemap bench pairhmm -t "$T" --file .gpu-bundle/data/pairhmm-carneiro/10s.in -o "$OUT/pairhmm.tsv" \
        > "$OUT/pairhmm.log" 2>&1 ;;
    compare)
      FILTERS="${COMPARE_FILTERS:-gpu cpu off}" REAL_DIR=$R bash scripts/compare.sh records "$BIN/gatemap-old" "$BIN/gatemap" /tmp/gm_compare \
        "${COMPARE_SCALE:-0.01}" "${COMPARE_PAIRS:-40000}" > "$OUT/compare.txt" 2>&1
      echo "records exit $?" >> "$OUT/compare.txt"
      BACKENDS="gpu cpu" bash scripts/compare.sh calls "$BIN/gatemap-old" "$BIN/gatemap" /tmp/gm_compare >> "$OUT/compare.txt" 2>&1
      echo "calls exit $?" >> "$OUT/compare.txt" ;;
    ab)
      G=gatemap; source scripts/sim_data.sh
      sim_donor_set /tmp/gm_ab "${AB_SCALE:-0.03}" "${AB_PAIRS:-500000}"
      FILTERS="gpu cpu off" bash scripts/compare.sh speed "$BIN/gatemap-old" "$BIN/gatemap" /tmp/gm_ab "${AB_ROUNDS:-3}" \
        > "$OUT/ab.txt" 2>&1 ;;
    jobs)
      D=/tmp/gm_jobs; mkdir -p $D
      case $JOB in
        pairhmm60)
          [ -s $D/x60.in ] || for i in $(seq 60); do cat .gpu-bundle/data/pairhmm-carneiro/1m.in; done > $D/x60.in
          ext=txt; run() { if [ "$1" = gpuPairHMM ]; then gpuPairHMM --inputfile $D/x60.in --outputfile $D/$1.txt
                  else $1 pairhmm -t "$T" --backend gpu -v 4 -o $D/$1.txt $D/x60.in; fi; } ;;
        call10)
          BACKENDS=gpu SKIP_OTHERS=1 GENOME_LEN=10000000 bash scripts/bench_call.sh $D > /dev/null 2>&1
          ext=vcf; run() { $1 call -t "$T" --backend gpu -v 4 -r $D/ref.fa -o $D/$1.vcf $D/pe.bam; } ;;
      esac
      tsv=$OUT/ab_$JOB.tsv; rm -f $D/*.$ext; printf "round\tbuild\twall_s\n" > "$tsv"
      for r in $(seq "${ROUNDS:-3}"); do
        for b in $BUILDS; do st=$(date +%s%N); run $b >> "$OUT/ab_${JOB}_$b.log" 2>&1; printf "%s\t%s\t%s\n" $r $b "$(ms $st)" >> "$tsv"; done
      done; first=${BUILDS%% *}
      for b in ${BUILDS#"$first"}; do  # the others' outputs against the first's (VCF headers carry the command line)
        [ $b = gpuPairHMM ] && continue
        { [ -s $D/$first.$ext ] && [ -s $D/$b.$ext ] && cmp -s <(grep -v '^##' $D/$first.$ext) <(grep -v '^##' $D/$b.$ext); } \
          && echo "# $b: output as $first's" >> "$tsv" || echo "# $b: output DIFFERS from $first's (or missing)" >> "$tsv"
      done ;;
    mapbench)
      D=/tmp/gm_mb L=$OUT/mapbench.log && mkdir -p $D
      if [ ! -s $D/20.gmi ]; then
        chr20 $D/20.fa
        gatemap sim variants $D/20.fa -o $D/donor >> "$L" 2>&1
        gatemap sim reads $D/20.fa --vcf $D/donor.truth.vcf.gz -n "${MB_PAIRS:-1000000}" -l 150 -t "$T" -o $D/pe >> "$L" 2>&1
        gatemap index -t "$T" -o $D/20.gmi $D/20.fa >> "$L" 2>&1
        minimap2 -x sr -d $D/20.mmi $D/20.fa >> "$L" 2>&1
        [ "${MB_BWA:-1}" = 0 ] || bwa index $D/20.fa >> "$L" 2>&1
      fi
      tools=${MB_TOOLS:-gm_gpu gm_gpu_off gm_cpuseed gm_cpu minimap2}; [ "${MB_BWA:-1}" = 0 ] || tools="$tools bwa"
      map_tools $D/20 "$tools" "${MB_ROUNDS:-3}" mapbench ;;
    mapbench37)
      D=/tmp/gm_mb37 L=$OUT/mapbench37.log && mkdir -p $D
      gatemap sim genome --like grch37 --scale 1 -t "$T" -o $D/ref.fa > "$L" 2>&1
      gatemap sim reads $D/ref.fa -n "${MB37_PAIRS:-500000}" -l 150 -t "$T" -o $D/pe >> "$L" 2>&1
      gatemap index -t "$T" -o $D/ref.gmi $D/ref.fa >> "$L" 2>&1
      case " ${MB37_TOOLS:-} " in *" minimap2 "*) minimap2 -x sr -t "$T" -d $D/ref.mmi $D/ref.fa >> "$L" 2>&1 ;; esac
      map_tools $D/ref "${MB37_TOOLS:-gm_gpu gm_cpuseed}" "${MB37_ROUNDS:-2}" mapbench37 ;;
    sort)
      LEVELS="${SORT_LEVELS:-}" OLD=$([ "${SORT_OLD:-0}" = 1 ] && echo "$BIN/gatemap-old") THREADS=$T \
        bash scripts/bench_io.sh sort /tmp/gm_sort "${SORT_SCALE:-0.03}" "${SORT_PAIRS:-1000000}" "${SORT_ROUNDS:-3}" \
        > "$OUT/sort.tsv" 2> "$OUT/sort.log"
      cat /tmp/gm_sort/runs.log >> "$OUT/sort.log" ;;
    call)
      test_caller > "$OUT/call_tests.log" 2>&1
      BACKENDS="gpu cpu" SKIP_OTHERS=1 GVCF=1 GENOME_LEN=${CALL_GENOME_LEN:-5000000} \
        bash scripts/bench_call.sh /tmp/gm_call > "$OUT/call.tsv" 2> "$OUT/call.log" ;;
    correct)
      BACKENDS="gpu cpu" MAP_READS=0 SETS="${CORRECT_SETS:-150:30 100:60}" \
        bash scripts/bench_correct.sh /tmp/gm_correct > "$OUT/correct.tsv" 2> "$OUT/correct.log" ;;
    ecoli)
      ref=$R/MG1655-K12.fasta.gz d=/tmp/gm_ecoli/${EC_GENOME:-ecoli}_${EC_PAIRS:-1000000}
      for o in /tmp/gm_ecoli/*; do [ "$o" = "$d" ] || rm -rf "$o"; done  # the disk holds one large set at a time
      [ "${EC_GENOME:-ecoli}" = chr20 ] && { chr20 /tmp/gm_chr20.fa; ref=/tmp/gm_chr20.fa; }
      OLD=$BIN/gatemap-old REF=$ref PAIRS=${EC_PAIRS:-1000000} PROFILES=gatemap TOOLS="${EC_TOOLS:-gm_gpu gm_cpu lighter}" \
        ROUNDS=${EC_ROUNDS:-2} EXTRA="${EC_EXTRA:-}" EVAL=${EC_EVAL:-1} THREADS=$T \
        bash scripts/bench_correct.sh profiles $d > "$OUT/ecoli.tsv" 2> "$OUT/ecoli.log" ;;
    devices)
      chr20 /tmp/gm_devices.fa
      bash scripts/bench_devices.sh /tmp/gm_devices /tmp/gm_devices.fa > "$OUT/devices.tsv" 2> "$OUT/devices.log"
      cp /tmp/gm_devices/runs.log "$OUT/devices_runs.log" ;;
    index)
      G=/tmp/gm_grch37 && mkdir -p $G
      gatemap sim genome --like grch37 --scale 1 -t "$T" -o $G/ref.fa > "$OUT/index.log" 2>&1
      $TIME -v gatemap index -t "$T" -o $G/ref.gmi $G/ref.fa >> "$OUT/index.log" 2>&1
      ls -l $G/ref.gmi >> "$OUT/index.log"; sync; echo 3 > /proc/sys/vm/drop_caches 2> /dev/null
      printf '@r\nACGTACGTACGTACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIIIIIIIIIIIIIII\n' > $G/one.fq; st=$(date +%s%N)
      gatemap map -t "$T" $G/ref.gmi $G/one.fq > /dev/null 2>> "$OUT/index.log"
      echo "cold load + map one read: $(ms "$st") s" >> "$OUT/index.log" ;;
    io)
      chr20 /tmp/gm_chr20.fa
      old=; [ -x "$BIN/gatemap-old" ] && old=$BIN/gatemap-old
      OLD=$old STROBEALIGN=$(command -v strobealign || true) MINIMAP2=$(command -v minimap2 || true) THREADS=$T \
        PAIRS=${IO_PAIRS:-1000000} ROUNDS=${IO_ROUNDS:-3} WHOLE=${IO_WHOLE:-6300000} \
        bash scripts/bench_io.sh /tmp/gm_io /tmp/gm_chr20.fa > "$OUT/io.tsv" 2> "$OUT/io.log" ;;
    genome)
      chr20 /tmp/gm_chr20.fa; rm -f /tmp/gm_genome/done
      OUTDIR=/tmp/gm_genome PAIRS=${GENOME_PAIRS:-50000000} CHR20=/tmp/gm_chr20.fa LOG=$OUT/genome.log OLD=$BIN/gatemap-old \
        bash scripts/bench_genome.sh ${GENOME_STAGES:-prep20 chr20 old chr20x30 prep genome capped old_genome report} > "$OUT/genome.tsv" 2>> "$OUT/genome.log"
      echo "bench_genome exit $?" >> "$OUT/genome.log"; touch /tmp/gm_genome/done ;;
    cohort)  # bench_cohort.sh speed on chr20 (COHORT_* as its SPEED_SAMPLES, SPEED_DEPTH, JOINT_*)
      chr20 /tmp/gm_chr20.fa
      OUTDIR=/tmp/gm_cohort REF_FA=/tmp/gm_chr20.fa THREADS=$T SPEED_SAMPLES=${COHORT_SPEED_SAMPLES:-3} \
        SPEED_DEPTH=${COHORT_SPEED_DEPTH:-30} JOINT_SAMPLES=${COHORT_JOINT_SAMPLES:-10} JOINT_DEPTH=${COHORT_JOINT_DEPTH:-10} \
        bash scripts/bench_cohort.sh speed > "$OUT/cohort.tsv" 2> "$OUT/cohort.log"
      echo "bench_cohort exit $?" >> "$OUT/cohort.log"; cp /tmp/gm_cohort/runs.log "$OUT/cohort_runs.log"
      touch /tmp/gm_cohort/done ;;
    *) echo "unknown stage '$stage'" >&2 ;;
  esac
done
exit 0
