#!/usr/bin/env bash
# scripts/placeable_snps.py on a genome built to hold each case (exit 77 without python3):
# two copies of a 700-base segment that differ at one base (a at 350 in A, b in B), and
# four truth SNPs: A:350 to a third base (the window is one base from both copies: a
# tie, MAPQ 0), A:350 to b (the window is copy B: placed there, away from its SNP), A:100
# (the window still holds A's own base at 350: placeable) and one in unique sequence.
set -euo pipefail
gatemap=$1 script=$2
command -v python3 > /dev/null || exit 77
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
python3 - <<'PY'
import random
rng = random.Random(7)
rand = lambda n: "".join(rng.choice("ACGT") for _ in range(n))
seg = list(rand(700))
a = seg[350]
b = "ACGT"[("ACGT".index(a) + 1) % 4]
third = "ACGT"[("ACGT".index(a) + 2) % 4]
copy_b = seg[:]; copy_b[350] = b
genome = rand(3000) + "".join(seg) + rand(3000) + "".join(copy_b) + rand(3000)
open("ref.fa", "w").write(">c\n" + "\n".join(genome[i:i + 60] for i in range(0, len(genome), 60)) + "\n")
start_a = 3000
snps = [(start_a + 350, a, third), (start_a + 350, a, b), (start_a + 100, seg[100], "ACGT"[("ACGT".index(seg[100]) + 1) % 4]),
        (1500, genome[1500], "ACGT"[("ACGT".index(genome[1500]) + 1) % 4])]
with open("truth.vcf", "w") as f:
    f.write("##fileformat=VCFv4.2\n##contig=<ID=c,length=%d>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n" % len(genome))
    for p, r, alt in sorted(snps):
        f.write("c\t%d\t.\t%s\t%s\t.\t.\t.\n" % (p + 1, r, alt))
PY
"$gatemap" index -v 1 -o ref.gmi ref.fa
python3 "$script" windows ref.fa truth.vcf 250 > windows.fq
"$gatemap" map -v 1 ref.gmi windows.fq | python3 "$script" count - > count.txt
cat count.txt
grep -qx $'snps\t4' count.txt
grep -qx $'unplaceable\t2' count.txt
# From the reference alone, on a genome with two identical 1200-base copies: tiles wholly
# inside a copy are ties (left out); unique sequence, and tiles reaching past a copy's end
# into unique sequence, are placeable.
mkdir tiles && cd tiles
python3 - <<'PY'
import random
rng = random.Random(8)
rand = lambda n: "".join(rng.choice("ACGT") for _ in range(n))
seg = rand(1200)
genome = rand(3000) + seg + rand(3000) + seg + rand(3000)  # copies at [3000, 4200) and [7200, 8400)
open("ref.fa", "w").write(">c\n" + "\n".join(genome[i:i + 60] for i in range(0, len(genome), 60)) + "\n")
PY
"$gatemap" index -v 1 -o ref.gmi ref.fa
python3 "$script" tiles ref.fa 250 50 > tiles.fq
"$gatemap" map -v 1 ref.gmi tiles.fq | python3 "$script" bed - 50 > placeable.bed
cat placeable.bed
python3 - <<'PY'
spans = [tuple(int(x) for x in l.split()[1:3]) for l in open("placeable.bed")]
inside = lambda p: any(b <= p < e for b, e in spans)
assert all(inside(p) for p in (1500, 3100, 5600, 9900)), spans  # unique, or a tile reaching past the copy
assert not any(inside(p) for p in (3600, 7800)), spans  # a copy's middle: every tile there is a tie
PY
