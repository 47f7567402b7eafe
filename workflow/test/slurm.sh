#!/usr/bin/env bash
# The workflow through a real SLURM: a one-node cluster started here (munged, slurmctld,
# slurmd with a generated slurm.conf: the machine's CPUs, a stand-in "gpu" gres, state and
# logs in a temporary folder, all stopped at the end whatever happens), the workflow
# submitted with the project's profile (workflow/profiles/slurm), and checked:
#  1. every rule ran as a SLURM job (the cluster's job completion log), GPU rules with
#     their GPU request;
#  2. each sample's VCF equals the one a local run (`--cores`) gives, and its BAM has one
#     @RG per lane;
#  3. a job that fails is reported as failed (Snakemake through the profile's status
#     script) and the run ends in error;
#  4. after one shard's BAM is deleted, a re-run submits only that shard's job and what
#     depends on it.
# Skipped (exit 77, saying why) where a cluster cannot start: not root, SLURM or munge not
# installed (scripts/deps.sh --test installs them), or the daemons do not come up.
# Usage: workflow/test/slurm.sh path/to/gatemap
set -euo pipefail
gatemap=$(realpath "${1:?usage: slurm.sh path/to/gatemap}")
repo=$(realpath "$(dirname "$0")/../..")
skip() { echo "slurm.sh: skipped: $*" >&2; exit 77; }
[[ $(id -u) == 0 ]] || skip "starting slurmctld/slurmd needs root"
for tool in munged slurmctld slurmd sbatch scontrol snakemake samtools bcftools; do
  command -v "$tool" > /dev/null || skip "$tool is not installed (scripts/deps.sh --test)"
done

work=$(mktemp -d)
stop_cluster() {
  for pid in "$work"/slurmd.pid "$work"/slurmctld.pid "$work"/munge/pid; do
    [[ -s $pid ]] && kill "$(cat "$pid")" 2> /dev/null || true
  done
  sleep 1
  [[ -n "${KEEP:-}" ]] && echo "kept: $work" >&2 || rm -rf "$work"
}
trap stop_cluster EXIT
cd "$work"

# The cluster: one node, this machine.
node=$(hostname -s)
cpus=$(nproc)
port=$((20000 + RANDOM % 20000))
mkdir -p state spool log munge
head -c 1024 /dev/urandom > munge/munge.key
chmod 600 munge/munge.key
munged --key-file="$PWD/munge/munge.key" --socket="$PWD/munge/sock" --pid-file="$PWD/munge/pid" \
  --log-file="$PWD/munge/log" --seed-file="$PWD/munge/seed" -f || skip "munged did not start"
cat > slurm.conf << EOF
ClusterName=gatemaptest
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$PWD/munge/sock
CredType=cred/munge
StateSaveLocation=$PWD/state
SlurmdSpoolDir=$PWD/spool
SlurmctldPidFile=$PWD/slurmctld.pid
SlurmdPidFile=$PWD/slurmd.pid
SlurmctldLogFile=$PWD/log/slurmctld.log
SlurmdLogFile=$PWD/log/slurmd.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=3600
JobCompType=jobcomp/filetxt
JobCompLoc=$PWD/log/jobs.txt
GresTypes=gpu
NodeName=$node CPUs=$cpus RealMemory=4000 Gres=gpu:1 State=UNKNOWN
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=ALL MaxTime=INFINITE State=UP
EOF
# One "GPU" whose device file is /dev/null: jobs may ask for it (the job gets
# CUDA_VISIBLE_DEVICES=0, as on a GPU node); gatemap finds no GPU and runs its CPU twins.
printf 'AutoDetect=off\nNodeName=%s Name=gpu File=/dev/null\n' "$node" > gres.conf
export SLURM_CONF=$PWD/slurm.conf
slurmctld -f "$SLURM_CONF" || skip "slurmctld did not start (log/slurmctld.log)"
slurmd -f "$SLURM_CONF" || skip "slurmd did not start (log/slurmd.log)"
for _ in $(seq 60); do
  sinfo -h -o %t 2> /dev/null | grep -q idle && break
  sleep 1
done
sinfo -h -o %t | grep -q idle || { tail -n 5 log/slurmctld.log log/slurmd.log >&2; skip "the node did not become idle"; }

# Data: two samples of two lanes, each lane two shards.
g() { "$gatemap" "$@" 2>> sim.log; }
g sim genome --length 150000 --contigs 2 --seed 11 -o ref.fa
g sim variants ref.fa --seed 21 -o donor
printf 'sample\tread_group\tfastq_1\tfastq_2\n' > samples.tsv
for s in 1 2; do
  for lane in 1 2; do
    g sim reads ref.fa --vcf donor.truth.vcf.gz -n 3000 --seed $((100 * s + lane)) --gz -o s${s}_L$lane
    printf 's%d\ts%d_L%d\t%s\t%s\n' "$s" "$s" "$lane" "$PWD/s${s}_L${lane}_1.fq.gz" "$PWD/s${s}_L${lane}_2.fq.gz" >> samples.tsv
  done
done
config() {  # OUTDIR [more entries]: the workflow's config, in the array CONFIG
  CONFIG=(gatemap="$gatemap" reference="$PWD/ref.fa" samples="$PWD/samples.tsv" outdir="$PWD/$1" shard_reads=1500
          scatter=3 device=0 "threads={index: 1, correct: 1, map: 1, markdup: 1, call: 1}" "${@:2}")
}
snakefile=$repo/workflow/Snakefile
# As a user runs it on a cluster (workflow/README.md), the memory and time scaled down.
on_slurm() {  # OUTDIR "MORE CONFIG" [more snakemake options]
  local out=$1 more=$2
  shift 2
  config "$out" $more
  snakemake -s "$snakefile" --profile "$repo/workflow/profiles/slurm" --jobs 4 --latency-wait 5 \
    --default-resources mem_mb=500 runtime=30 gpu=0 partition=batch "$@" --config "${CONFIG[@]}"
}

on_slurm slurm "" > slurm_run.log 2>&1 || { tail -40 slurm_run.log >&2; echo "FAIL: the run through SLURM failed" >&2; exit 1; }
config local
snakemake -s "$snakefile" --cores 2 --quiet --config "${CONFIG[@]}" > local_run.log 2>&1 \
  || { tail -40 local_run.log >&2; exit 1; }

fail=0
for rule in index shard map merge_markdup scatter call concat; do
  n=$(grep -c "Name=gatemap-$rule[- ].*JobState=COMPLETED" log/jobs.txt || true)
  if (( n == 0 )); then
    echo "FAIL: no SLURM job of rule $rule completed" >&2
    fail=1
  fi
done
expect_jobs() {  # RULE COUNT [after line]: completed jobs of RULE in the job log (from line on)
  local n
  n=$(tail -n +"${3:-1}" log/jobs.txt | grep -c "Name=gatemap-$1[- ].*JobState=COMPLETED" || true)
  if [[ "$n" != "$2" ]]; then
    echo "FAIL: $n SLURM jobs of rule $1, expected $2" >&2
    fail=1
  fi
}
expect_jobs map 8
expect_jobs call 6
# GPU rules asked for the GPU: SLURM noted the gres on their jobs.
scontrol show job -o > jobs_shown.txt
if [[ $(grep "JobName=gatemap-map" jobs_shown.txt | grep -c "gres:gpu:1") == 0 ]]; then
  echo "FAIL: the map jobs did not ask SLURM for a GPU" >&2
  grep -m 1 "JobName=gatemap-map" jobs_shown.txt >&2
  fail=1
fi
for s in 1 2; do
  if ! diff <(bcftools view -H local/vcf/s$s.vcf.gz) <(bcftools view -H slurm/vcf/s$s.vcf.gz) > /dev/null; then
    echo "FAIL: sample s$s: the VCF through SLURM differs from the local run's" >&2
    fail=1
  fi
  groups=$(samtools view -H slurm/bam/s$s.bam | grep -c '^@RG')
  [[ "$groups" == 2 ]] || { echo "FAIL: sample s$s's BAM has $groups @RG lines for 2 lanes" >&2; fail=1; }
done

# A re-run after one shard's BAM is deleted submits that shard, its sample's merge, calls
# and concat, nothing else.
before=$(($(wc -l < log/jobs.txt) + 1))
rm slurm/mapped/s1/s1_L2/00001.bam
on_slurm slurm "" > rerun.log 2>&1 || { tail -40 rerun.log >&2; echo "FAIL: the re-run through SLURM failed" >&2; exit 1; }
expect_jobs map 1 "$before"
expect_jobs merge_markdup 1 "$before"
expect_jobs call 3 "$before"
expect_jobs concat 1 "$before"
expect_jobs index 0 "$before"
expect_jobs shard 0 "$before"

# A job that fails (map with an option out of range) is reported as failed and the run
# ends in error, naming the rule.
if on_slurm failing "map_options=--max-cand=0" --restart-times 0 > failing.log 2>&1; then
  echo "FAIL: a run whose map jobs fail ended with success" >&2
  fail=1
fi
grep -q "Error in rule map" failing.log || { echo "FAIL: Snakemake did not report the failed map job" >&2; fail=1; }
grep -q "JobState=FAILED" log/jobs.txt || { echo "FAIL: SLURM has no failed job" >&2; fail=1; }

if (( fail )); then
  tail -20 slurm_run.log >&2
  exit 1
fi
echo "SLURM: $(grep -c 'JobState=COMPLETED' log/jobs.txt) jobs completed, VCFs equal the local run's, re-run and failure as expected"
