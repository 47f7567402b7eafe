#!/usr/bin/env python3
"""Snakemake's cluster submit command for SLURM: sbatch with the job's threads, memory,
time, partition and, only where a rule asks for GPUs, --gres=gpu:N (SLURM rejects a gres
request on a cluster that declares none). One log per job in slurm-logs/RULE/, named by
rule and wildcards. Prints the job id. GATEMAP_SBATCH_ARGS adds site options (account,
QoS, constraints). Usage (by Snakemake): submit.py JOBSCRIPT"""
import json
import os
import re
import shlex
import subprocess
import sys


def job_properties(jobscript):
    # Snakemake writes the job's properties as JSON into the jobscript's "# properties = " line.
    with open(jobscript) as f:
        for line in f:
            m = re.match(r"# properties = (.*)", line)
            if m:
                return json.loads(m.group(1))
    raise SystemExit(f"submit.py: no properties line in {jobscript}")


def main():
    jobscript = sys.argv[-1]
    props = job_properties(jobscript)
    rule = props.get("rule") or props.get("groupid") or "job"
    wildcards = props.get("wildcards") or {}
    resources = props.get("resources") or {}
    name = "-".join(["gatemap", rule] + [re.sub(r"[^A-Za-z0-9_.]", "_", str(v)) for v in wildcards.values()])
    logs = os.path.join("slurm-logs", rule)
    os.makedirs(logs, exist_ok=True)
    cmd = ["sbatch", "--parsable", f"--job-name={name}", f"--cpus-per-task={props.get('threads', 1)}",
           f"--mem={resources.get('mem_mb', 16000)}", f"--time={resources.get('runtime', 240)}",
           f"--partition={resources.get('partition', 'batch')}", f"--output={logs}/{name}-%j.out"]
    gpus = int(resources.get("gpu", 0) or 0)
    if gpus > 0:
        cmd.append(f"--gres=gpu:{gpus}")
    cmd += shlex.split(os.environ.get("GATEMAP_SBATCH_ARGS", ""))
    cmd.append(jobscript)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    print(out.strip().split(";")[0])  # --parsable: "id" or "id;cluster"


if __name__ == "__main__":
    main()
