#!/usr/bin/env python3
"""How many truth SNPs no short-read pair can place (issue #41's whole-chromosome ceiling).

For every truth SNP the reference around it with the alt allele in the middle, HALF bases
each side (250: about a fragment), is written as a read; a mapper maps them. A window at
MAPQ 0 has an equally good place elsewhere, one placed away from its SNP a better one:
no pair of reads from it is placed there, and the SNP cannot be called from uniquely
placed reads. The count bounds SNP recall: (SNPs - unplaceable) / SNPs.
  placeable_snps.py windows REF.fa TRUTH.vcf.gz [HALF] > windows.fq
  <mapper> REF windows.fq | placeable_snps.py count -
Nearby truth variants are left out of each window (the reference around the SNP).

The same from the reference alone, as GIAB's mappability strata are made: a window of
2*HALF+1 reference bases every STEP bases; where the mapper places it at its own place
with MAPQ > 0, the STEP bases around its middle are placeable. Their BED (merged) is the
confident regions for `gatemap eval vcf --bed` (hap.py -f), independent of truth and calls.
  placeable_snps.py tiles REF.fa [HALF] [STEP] > tiles.fq
  <mapper> REF tiles.fq | placeable_snps.py bed - [STEP] > placeable.bed
"""
import gzip
import sys


def read_fasta(path):
    contigs, name, parts = {}, None, []
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        for line in f:
            if line.startswith(">"):
                if name is not None:
                    contigs[name] = "".join(parts).upper()
                name, parts = line[1:].split()[0], []
            else:
                parts.append(line.strip())
    if name is not None:
        contigs[name] = "".join(parts).upper()
    return contigs


def windows(ref_path, vcf_path, half):
    ref = read_fasta(ref_path)
    with gzip.open(vcf_path, "rt") if vcf_path.endswith(".gz") else open(vcf_path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            contig, pos, _, r, alts = line.split("\t")[:5]
            seq, p = ref.get(contig, ""), int(pos) - 1
            for a in alts.split(","):
                if len(r) != 1 or len(a) != 1 or p < half or p + half + 1 > len(seq):
                    continue
                w = seq[p - half:p] + a + seq[p + 1:p + half + 1]
                if "N" not in w:
                    sys.stdout.write(f"@{contig}:{pos}:{a}\n{w}\n+\n{'I' * len(w)}\n")


def tiles(ref_path, half, step):
    for contig, seq in read_fasta(ref_path).items():
        for mid in range(half, len(seq) - half, step):
            w = seq[mid - half:mid + half + 1]
            if "N" not in w:
                sys.stdout.write(f"@{contig}:{mid + 1}\n{w}\n+\n{'I' * len(w)}\n")


def bed(sam, step):
    runs = []  # (contig, begin, end), 0-based half-open, in the mapper's output order
    for line in sam:
        if line.startswith("@"):
            continue
        f = line.split("\t")
        flag = int(f[1])
        if flag & 0x904 or f[4] == "0":  # unmapped, secondary, supplementary, or a tie
            continue
        contig, mid = f[0].rsplit(":", 1)
        if f[2] != contig or not int(f[3]) <= int(mid) < int(f[3]) + len(f[9]):  # placed elsewhere
            continue
        begin = int(mid) - 1 - step // 2
        runs.append((contig, max(0, begin), begin + step))
    runs.sort()
    merged = []
    for contig, b, e in runs:
        if merged and merged[-1][0] == contig and b <= merged[-1][2]:
            merged[-1][2] = max(merged[-1][2], e)
        else:
            merged.append([contig, b, e])
    for contig, b, e in merged:
        sys.stdout.write(f"{contig}\t{b}\t{e}\n")


def count(sam):
    placed = unplaceable = 0
    for line in sam:
        if line.startswith("@"):
            continue
        f = line.split("\t")
        flag = int(f[1])
        if flag & 0x900:  # secondary, supplementary
            continue
        contig, pos, _ = f[0].rsplit(":", 2)
        at_snp = not flag & 0x4 and f[2] == contig and int(f[3]) <= int(pos) < int(f[3]) + len(f[9])
        if at_snp and f[4] != "0":
            placed += 1
        else:
            unplaceable += 1
    total = placed + unplaceable
    print(f"snps\t{total}\nunplaceable\t{unplaceable}\nrecall_ceiling\t{placed / max(total, 1):.5f}")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "windows":
        windows(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 250)
    elif len(sys.argv) == 3 and sys.argv[1] == "count":
        count(sys.stdin if sys.argv[2] == "-" else open(sys.argv[2]))
    elif len(sys.argv) >= 3 and sys.argv[1] == "tiles":
        tiles(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 250, int(sys.argv[4]) if len(sys.argv) > 4 else 50)
    elif len(sys.argv) >= 3 and sys.argv[1] == "bed":
        bed(sys.stdin if sys.argv[2] == "-" else open(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 50)
    else:
        sys.exit(__doc__)
