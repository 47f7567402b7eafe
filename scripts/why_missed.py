#!/usr/bin/env python3
"""Why each missed truth variant was missed (issue #41): for every truth variant that the
calls lack (position and alleles after `bcftools norm`), the site's pileup (samtools
mpileup: reads at MAPQ >= --min-mapq and all reads, alt-supporting bases) and whether
`gatemap call --min-qual 0` proposes it, and at what QUAL. One TSV line per miss and a
count per reason on stderr:
  no_alt_reads        no read at MAPQ >= min-mapq carries the alt allele
  low_mapq            alt reads exist only below --min-mapq
  one_alt_read        a single alt read (never activates a region)
  filtered_by_qual    proposed, QUAL below the default --min-qual
  genotyped_ref       proposed as an allele, genotyped 0/0
  not_proposed        alt reads present, never an allele (activity, assembly, pileup)
Usage: why_missed.py TRUTH.vcf.gz CALLS.vcf.gz READS.bam REF.fa [--gatemap BIN] [--min-mapq 20]
"""
import argparse
import collections
import subprocess
import sys


def variants(vcf, ref):
    """(contig, pos, ref, alt) -> genotype, split and normalized by bcftools."""
    cmd = f"bcftools norm -m -both -f {ref} {vcf} 2>/dev/null | bcftools query -f '%CHROM\\t%POS\\t%REF\\t%ALT\\t[%GT]\\t%QUAL\\n'"
    out = {}
    for line in subprocess.run(cmd, shell=True, check=True, capture_output=True, text=True).stdout.splitlines():
        c, p, r, a, gt, q = line.split("\t")
        out[(c, int(p), r, a)] = (gt, q)
    return out


def alt_reads(bases):
    """Reads whose base differs from the reference or that start an indel after it, in
    samtools mpileup's base column (^Q read starts, $ ends, +N.../-N... indels)."""
    n, i = 0, 0
    while i < len(bases):
        ch = bases[i]
        if ch == "^":
            i += 2
            continue
        if ch in "+-":
            j = i + 1
            while j < len(bases) and bases[j].isdigit():
                j += 1
            n += 1
            i = j + int(bases[i + 1:j])
            continue
        if ch in "ACGTNacgtn":
            n += 1
        i += 1
    return n


def pileup(bam, ref, contig, pos, min_mapq):
    """Reads over pos and those whose base or indel there differs from the reference."""
    counts = {}
    for q in (min_mapq, 0):
        cmd = ["samtools", "mpileup", "-B", "-Q", "0", "-q", str(q), "-f", ref, "-r", f"{contig}:{pos}-{pos}", bam]
        out = subprocess.run(cmd, capture_output=True, text=True).stdout.split("\t")
        depth = int(out[3]) if len(out) > 4 else 0
        bases = out[4] if len(out) > 4 else ""
        alt = alt_reads(bases)
        counts[q] = (depth, alt)
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("truth"), ap.add_argument("calls"), ap.add_argument("bam"), ap.add_argument("ref")
    ap.add_argument("--gatemap", default="gatemap")
    ap.add_argument("--min-mapq", type=int, default=20)
    a = ap.parse_args()
    truth, calls = variants(a.truth, a.ref), variants(a.calls, a.ref)
    missed = [v for v in truth if v not in calls]
    q0 = {}
    if missed:
        tmp = a.calls + ".q0.vcf.gz"
        subprocess.run([a.gatemap, "call", "--min-qual", "0", "-v", "1", "-r", a.ref, "-o", tmp, a.bam], check=True,
                       stderr=subprocess.DEVNULL)
        q0 = variants(tmp, a.ref)
    reasons = collections.Counter()
    print("contig\tpos\tref\talt\ttruth_gt\tdepth\talt_reads\tdepth_all\talt_reads_all\tqual_at_q0\treason")
    for v in sorted(missed):
        c, p, r, alt = v
        pile = pileup(a.bam, a.ref, c, p, a.min_mapq)  # an indel shows at its anchor base
        (depth, alt_n), (depth_all, alt_all) = pile[a.min_mapq], pile[0]
        proposed = q0.get(v)
        if proposed and proposed[0] not in ("0/0", "0|0"):
            reason = "filtered_by_qual"
        elif proposed:
            reason = "genotyped_ref"
        elif alt_n == 0:
            reason = "low_mapq" if alt_all > 0 else "no_alt_reads"
        elif alt_n == 1:
            reason = "one_alt_read"
        else:
            reason = "not_proposed"
        reasons[reason] += 1
        qual = proposed[1] if proposed else "."
        print(f"{c}\t{p}\t{r}\t{alt}\t{truth[v][0]}\t{depth}\t{alt_n}\t{depth_all}\t{alt_all}\t{qual}\t{reason}")
    print(f"# {len(missed)} of {len(truth)} truth variants missed: " +
          ", ".join(f"{k} {n}" for k, n in reasons.most_common()), file=sys.stderr)


if __name__ == "__main__":
    main()
