#!/usr/bin/env python3
"""Paired reads with known truth from other simulators' error profiles, for `gatemap eval correct`.

  scripts/sim_profile_reads.py PROFILE REF.fa PAIRS PREFIX [SEED]

PROFILE: art   ART (art_illumina, HiSeq 2500 profile): empirical quality profiles, errors
               drawn from the qualities (most on low-quality bases, 3' tails)
         mason mason_simulator's Illumina model: mismatches rising towards the 3' end,
               qualities only slightly lower on errors
Writes PREFIX_1.fq PREFIX_2.fq and the reads without sequencing errors, PREFIX_1.true.fq
PREFIX_2.true.fq (same names, order and lengths). Indel errors are turned off in both
simulators so that a true read is the reference segment its SAM record names (the rare
pair with an indel all the same, from mason, is left out).
Needs art_illumina / mason_simulator (Debian: art-nextgen-simulation-tools, seqan-apps).
"""
import os
import re
import subprocess
import sys

COMPLEMENT = str.maketrans("ACGTNacgtn", "TGCANtgcan")


def read_fasta(path):
    seqs, name, parts = {}, None, []
    with open(path) as f:
        for line in f:
            if line.startswith(">"):
                if name is not None:
                    seqs[name] = "".join(parts).upper()
                name, parts = line[1:].split()[0], []
            else:
                parts.append(line.strip())
    if name is not None:
        seqs[name] = "".join(parts).upper()
    return seqs


def truths_from_sam(sam, ref):
    """(name, mate) -> the read's true bases in sequencing orientation."""
    truth = {}
    with open(sam) as f:
        for line in f:
            if line.startswith("@"):
                continue
            q = line.split("\t", 10)
            flag, pos, cigar = int(q[1]), int(q[3]), q[5]
            ops = re.findall(r"(\d+)([MIDNSHP=X])", cigar)
            if any(op not in "M=X" for _, op in ops):
                truth[(q[0], 0)] = None  # an indel all the same (mason, rarely): the pair is left out
                continue
            length = sum(int(n) for n, _ in ops)
            seg = ref[q[2]][pos - 1:pos - 1 + length]
            if flag & 16:
                seg = seg.translate(COMPLEMENT)[::-1]
            truth[(q[0], 1 if flag & 64 else 2)] = seg
    return truth


def write_fastq_and_truth(fq, mate, truth, out, out_true):
    with open(fq) as f, open(out, "w") as o, open(out_true, "w") as t:
        while True:
            head = f.readline()
            if not head:
                break
            seq, plus, qual = f.readline(), f.readline(), f.readline()
            name = head[1:].split()[0]
            key = name[:-2] if name.endswith(("/1", "/2")) else name
            if (key, 0) in truth:
                continue
            true = truth[(key, mate)]
            if len(true) != len(seq.strip()):
                sys.exit(f"{fq}: read {name}: length differs from its SAM record")
            o.write(head + seq + plus + qual)
            t.write(head + true + "\n" + plus + qual)


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    profile, ref_path, pairs, prefix = sys.argv[1:5]
    seed = sys.argv[5] if len(sys.argv) == 6 else "7"
    tmp = prefix + ".sim"
    if profile == "art":
        cmd = ["art_illumina", "-ss", "HS25", "-i", ref_path, "-p", "-l", "150", "-c", pairs, "-m", "400", "-s", "50",
               "-ir", "0", "-ir2", "0", "-dr", "0", "-dr2", "0", "-sam", "-na", "-rs", seed, "-o", tmp]
        fq1, fq2, sam = tmp + "1.fq", tmp + "2.fq", tmp + ".sam"
    elif profile == "mason":
        fq1, fq2, sam = tmp + "_1.fq", tmp + "_2.fq", tmp + ".sam"
        cmd = ["mason_simulator", "-ir", ref_path, "-n", pairs, "-o", fq1, "-or", fq2, "-oa", sam,
               "--illumina-read-length", "150", "--illumina-prob-insert", "0", "--illumina-prob-deletion", "0",
               "--fragment-mean-size", "400", "--seed", seed, "-q"]
        os.environ["PATH"] += os.pathsep + "/usr/lib/seqan/bin"
    else:
        sys.exit(f"unknown profile '{profile}' (art, mason)")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    truth = truths_from_sam(sam, read_fasta(ref_path))
    for mate, fq in ((1, fq1), (2, fq2)):
        write_fastq_and_truth(fq, mate, truth, f"{prefix}_{mate}.fq", f"{prefix}_{mate}.true.fq")
    for path in (fq1, fq2, sam):
        os.remove(path)


if __name__ == "__main__":
    main()
