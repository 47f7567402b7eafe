#!/usr/bin/env bash
# GPU calls of 2026-11-28 (s30): the corrector (#44) against the build before
# (bundle: `scripts/gpu-suite.sh bundle <gatemap of 7a30018>`: gatemap, gatemap-old, the GPU
# tests, lighter). From the repository root, results in $OUT:
#   bash docs/gpu-runs/2026-11-28-s30/run.sh tests ecoli gz
# ecoli: PAIRS (1000000) simulated 2x150 E. coli pairs (as scripts/bench_correct.sh makes
# them), ROUNDS (3) rounds of TOOLS ("new old lighter"), the order rotated each
# round (inturn: new writing the mates' files in turn, not at once); wall and peak RSS, the corrections compared with gatemap-old's, the -v 4 timeline
# and --summary of the first round's gatemap runs, errors scored once (gatemap eval correct).
# gz (after ecoli, the same pairs): as a user runs it, `gzip -1` FASTQ in and compressed
# FASTQ out (`-o c_1.fq.gz`), new and old, Lighter on the same .gz files; ROUNDS rounds;
# GZTOOLS adds l1 (`-l 1`) and bgzfgpu (`--bgzf-gpu`), each output compared with new's plain one.
set -uo pipefail
[ -d .gpu-bundle/bin ] || tar -xJf .gpu-bundle/pack.tar.xz -C .gpu-bundle
R=$PWD/.gpu-bundle/run
T=$(nproc)
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
for stage in "$@"; do
  case $stage in
    tests)
      for t in test_correct_gpu test_correct ${MORE_TESTS:-}; do
        $R $t 2>&1 | tail -n 30 >> "$OUT/tests.log"; echo "$t exit ${PIPESTATUS[0]}" >> "$OUT/tests.log"
      done ;;
    ecoli)
      P=${PAIRS:-1000000} W=/tmp/ec_$P
      mkdir -p $W && cd $W
      [ -s ref.fa ] || zcat "$OLDPWD/.gpu-bundle/data/real/MG1655-K12.fasta.gz" > ref.fa
      len=$(grep -v '^>' ref.fa | tr -d '\n' | wc -c)
      [ -s p_2.fq ] || $R gatemap sim reads ref.fa -n $P -l 150 --sub-rate 0.005 --indel-rate 0.0001 \
        --truth-fastq -t $T -o p 2> /dev/null
      f=$OUT/ecoli_$P.txt
      echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $T cores, $P pairs; wall s, peak RSS MB" > $f
      tools=(${TOOLS:-new old lighter})
      for r in $(seq 1 "${ROUNDS:-3}"); do
        for i in "${!tools[@]}"; do
          tool=${tools[$(( (i + r - 1) % ${#tools[@]} ))]}
          rm -rf o_$tool && mkdir o_$tool
          v=3; [ $r = 1 ] && v=4
          case $tool in
            new) cmd=($R gatemap correct -v $v -t $T --summary o_$tool/summary -o o_$tool/c_1.fq -p o_$tool/c_2.fq p_1.fq p_2.fq) ;;
            inturn) cmd=(env GATEMAP_EXP_MATES_IN_TURN=1 $R gatemap correct -v $v -t $T --summary o_$tool/summary -o o_$tool/c_1.fq -p o_$tool/c_2.fq p_1.fq p_2.fq) ;;
            old) cmd=($R gatemap-old correct -v $v -t $T --summary o_$tool/summary -o o_$tool/c_1.fq -p o_$tool/c_2.fq p_1.fq p_2.fq) ;;
            lighter) cmd=($R lighter -r p_1.fq -r p_2.fq -K 21 $len -t $T -od o_$tool) ;;
          esac
          sync
          st=${EPOCHREALTIME/./}
          /usr/bin/time -f "%e %M" -o time.txt "${cmd[@]}" 2>&1 > /dev/null | while IFS= read -r l; do
            now=${EPOCHREALTIME/./}; echo "$(( (now - st) / 1000 )) ms $l"; done > log_$tool
          echo "$(( (${EPOCHREALTIME/./} - st) / 1000 )) ms process ended" >> log_$tool
          echo "round $r $tool $(awk '{ printf "%s %.0f", $1, $2 / 1024 }' time.txt)" >> $f
          if [ $r = 1 ] && [ $tool != lighter ]; then
            { echo "== $tool"; cut -c1-600 log_$tool
              tr '\n' ' ' < o_$tool/summary; echo; } >> "$OUT/timeline_$P.txt"
          fi
          [ $tool = lighter ] || [ $tool = old ] || { [ -s o_old/c_2.fq ] && { cmp -s o_old/c_1.fq o_$tool/c_1.fq &&
            cmp -s o_old/c_2.fq o_$tool/c_2.fq && echo "  $tool: identical to old" || echo "  $tool: DIFFERS from old"; } >> $f; }
        done
      done
      if [ "${EVAL:-1}" = 1 ]; then
        cat p_1.fq p_2.fq > both.fq; cat p_1.true.fq p_2.true.fq > truth.fq
        for tool in new lighter; do
          cat o_$tool/*_1.*f*q o_$tool/*_2.*f*q > cor.fq
          echo "errors $tool: $($R gatemap eval correct both.fq cor.fq truth.fq 2> /dev/null | tr '\n' ' ')" >> $f
        done
        rm -f both.fq truth.fq cor.fq
      fi
      cd "$OLDPWD" ;;
    gz)
      P=${PAIRS:-1000000} W=/tmp/ec_$P
      cd $W
      len=$(grep -v '^>' ref.fa | tr -d '\n' | wc -c)
      [ -s p_1.fq.gz ] || { gzip -1 -c p_1.fq > p_1.fq.gz & gzip -1 -c p_2.fq > p_2.fq.gz; wait; }
      f=$OUT/gz_$P.txt
      echo "# $P pairs, gzip -1 in, .gz out (gatemap); wall s, peak RSS MB" > $f
      tools=(${GZTOOLS:-new old lighter})
      for r in $(seq 1 "${ROUNDS:-3}"); do
        for i in "${!tools[@]}"; do
          tool=${tools[$(( (i + r - 1) % ${#tools[@]} ))]}
          rm -rf g_$tool && mkdir g_$tool
          case $tool in
            inturn) cmd=(env GATEMAP_EXP_MATES_IN_TURN=1 $R gatemap correct -v 3 -t $T -o g_$tool/c_1.fq.gz -p g_$tool/c_2.fq.gz p_1.fq.gz p_2.fq.gz) ;;
            l1) cmd=($R gatemap correct -v 3 -l 1 -t $T -o g_$tool/c_1.fq.gz -p g_$tool/c_2.fq.gz p_1.fq.gz p_2.fq.gz) ;;
            bgzfgpu) cmd=($R gatemap correct -v 3 --bgzf-gpu -t $T -o g_$tool/c_1.fq.gz -p g_$tool/c_2.fq.gz p_1.fq.gz p_2.fq.gz) ;;
            new) cmd=($R gatemap correct -v 4 -t $T -o g_$tool/c_1.fq.gz -p g_$tool/c_2.fq.gz p_1.fq.gz p_2.fq.gz) ;;
            old) cmd=($R gatemap-old correct -v 3 -t $T -o g_$tool/c_1.fq.gz -p g_$tool/c_2.fq.gz p_1.fq.gz p_2.fq.gz) ;;
            lighter) cmd=($R lighter -r p_1.fq.gz -r p_2.fq.gz -K 21 $len -t $T -od g_$tool) ;;
          esac
          sync
          st=${EPOCHREALTIME/./}
          /usr/bin/time -f "%e %M" -o time.txt "${cmd[@]}" 2>&1 > /dev/null | while IFS= read -r l; do
            now=${EPOCHREALTIME/./}; echo "$(( (now - st) / 1000 )) ms $l"; done > glog_$tool
          echo "$(( (${EPOCHREALTIME/./} - st) / 1000 )) ms process ended" >> glog_$tool
          echo "round $r $tool $(awk '{ printf "%s %.0f", $1, $2 / 1024 }' time.txt)" >> $f
          [ $r = 1 ] && [ $tool = new ] && { echo "== gz new"; grep -v "counted k-mers of\|corrected [0-9]* reads" glog_$tool | cut -c1-600; } >> "$OUT/timeline_$P.txt"
        done
      done
      for tool in "${tools[@]}"; do
        [ $tool = lighter ] && continue
        cmp <(zcat g_$tool/c_1.fq.gz) o_new/c_1.fq && cmp <(zcat g_$tool/c_2.fq.gz) o_new/c_2.fq &&
          echo "$tool: gz output = plain output" >> $f || echo "$tool: gz output DIFFERS from plain output" >> $f
      done
      ls -la g_* >> $f
      cd "$OLDPWD" ;;
  esac
done
exit 0
