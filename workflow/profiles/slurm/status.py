#!/usr/bin/env python3
"""Snakemake's cluster status command for SLURM: prints success, running or failed for a
job id, from sacct where accounting is on, else from scontrol (which keeps finished
jobs for MinJobAge, 300 s by default). A job SLURM no longer knows counts as failed:
Snakemake then retries it (restart-times) rather than trusting half-written outputs.
Usage (by Snakemake): status.py JOBID"""
import subprocess
import sys

RUNNING = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "STAGE_OUT",
           "SIGNALING", "REQUEUE_HOLD", "REQUEUE_FED"}


def sacct_state(job):
    try:
        out = subprocess.run(["sacct", "-j", job, "-X", "-n", "-P", "-o", "State"], capture_output=True, text=True,
                             timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = out.stdout.split()
    return lines[0].split()[0] if out.returncode == 0 and lines else None


def scontrol_state(job):
    try:
        out = subprocess.run(["scontrol", "show", "job", "-o", job], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for field in out.stdout.split():
        if field.startswith("JobState="):
            return field.split("=", 1)[1]
    return None


def main():
    job = sys.argv[1]
    state = sacct_state(job) or scontrol_state(job)
    if state is None:
        print("failed")
    elif state == "COMPLETED":
        print("success")
    elif state in RUNNING:
        print("running")
    else:  # FAILED, CANCELLED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE
        print("failed")


if __name__ == "__main__":
    main()
