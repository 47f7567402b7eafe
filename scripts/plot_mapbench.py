#!/usr/bin/python3
"""Plots a `scripts/gpu-suite.sh mapbench` table (mapbench.tsv) as a PNG: wall time per
tool with its speed against minimap2, and the share of reads mapped and the error rate
at MAPQ >= 60, 20 and 1. Needs python3-matplotlib (scripts/deps.sh --bench).
Usage: scripts/plot_mapbench.py mapbench.tsv out.png [title]"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {
    "gm_gpu": "gatemap GPU",
    "gm_gpu_off": "gatemap GPU\nfilter off",
    "gm_gpu_enc": "gatemap GPU\nencode on device",
    "gm_cpuseed": "gatemap CPU seeding\nGPU filter",
    "gm_cpu": "gatemap CPU",
    "minimap2": "minimap2 -ax sr",
    "bwa": "bwa mem",
    "gm_old": "gatemap,\nanother build",
}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        rows = list({r["tool"]: r for r in csv.DictReader(f, delimiter="\t")}.values())  # a tool run twice a round: once
    tools = [LABELS.get(r["tool"], r["tool"]) for r in rows]
    wall = [float(r["wall_s"]) for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    bars = left.barh(tools, wall, color=["tab:green" if r["tool"].startswith("gm_gpu") else "tab:gray" for r in rows])
    for bar, r in zip(bars, rows):
        left.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, f" {float(r['x_minimap2']):.2f}x minimap2",
                  va="center", fontsize=8)
    left.invert_yaxis()
    left.set_xlabel("wall seconds (median)")
    left.set_xlim(0, max(wall) * 1.35)
    # gatemap's settings write the same records: one point for all of them (another
    # build's records are its own).
    scored = {}
    for r in rows:
        same = r["tool"].startswith("gm_") and r["tool"] != "gm_old"
        scored.setdefault("gatemap" if same else LABELS.get(r["tool"], r["tool"]).replace("\n", " "), r)
    for q, marker in (("60", "o"), ("20", "s"), ("1", "^")):
        points = [(float(r[f"mapq{q}_err"]), float(r[f"mapq{q}_frac"])) for r in scored.values()]
        right.scatter([p[0] for p in points], [p[1] for p in points], marker=marker, label=f"MAPQ >= {q}")
        for name, p in zip(scored, points):
            right.annotate(" " + name, p, fontsize=7)
    right.set_xscale("log")
    right.set_xlabel("error rate of mapped reads")
    right.set_ylabel("fraction of reads mapped")
    right.legend(fontsize=8)
    fig.suptitle(sys.argv[3] if len(sys.argv) > 3 else sys.argv[1])
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
