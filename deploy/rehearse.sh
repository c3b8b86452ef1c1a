#!/usr/bin/env bash
# A rehearsal of the Kubernetes edition on this machine, with podman:
#   1. the image, from Debian's packages (deploy/build-image.sh), with the
#      toolchains of a few variants;
#   2. the shard container under the runtime's default security settings:
#      langbench must refuse, naming the missing privilege (never run
#      uncontained);
#   3. the attack rows of tests/attacks.rs inside the container, under the
#      pod's security settings (read from deploy/kubernetes/edition.yaml);
#   4. the Indexed Job's command (edition.yaml) for every index, in
#      parallel containers, each with its own results directory (the
#      subPathExpr), then merge.yaml's command over them; every shard's
#      session must say it was contained, and the merged table is printed.
# The pod spec's fields become podman's options one for one (pod_flags
# below); a field this script does not know fails the rehearsal.
#
# Usage: deploy/rehearse.sh   (as root; installs podman, runc, mmdebstrap,
# python3-yaml from Debian where missing)
#   SHARDS    shards (default 2)        SIZE   size (default tiny)
#   VARIANTS  variant ids (default: c-tcc python3 perl gawk mawk lua5.4)
#   ATTACKS   0: skip step 3            KEEP   1: keep the image and results
#   TESTS_BIN the integration tests' binary (default: cargo builds it)
#   WORK      where the results go (default: a temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
shards=${SHARDS:-2}
size=${SIZE:-tiny}
variants=${VARIANTS:-c-tcc python3 perl gawk mawk lua5.4}
tag=localhost/langbench:rehearsal
work=${WORK:-$(mktemp -d /var/tmp/langbench-rehearsal.XXXXXX)}
mkdir -p "$work"
export DEBIAN_FRONTEND=noninteractive
missing=()
for t in podman:podman runc:runc mmdebstrap:mmdebstrap; do
    command -v "${t%%:*}" >/dev/null || missing+=("${t#*:}")
done
python3 -c 'import yaml' 2>/dev/null || missing+=(python3-yaml)
if [ ${#missing[@]} -gt 0 ]; then
    echo "+ apt-get install ${missing[*]}"
    apt-get install -y -qq "${missing[@]}" >/dev/null
fi
podman --version
containers=()
cleanup() {
    for c in "${containers[@]}"; do podman rm -f "$c" >/dev/null 2>&1 || true; done
    if [ "${KEEP:-}" != 1 ]; then
        podman rmi -f "$tag" >/dev/null 2>&1 || true
        [ -n "${WORK:-}" ] || rm -rf "$work"
    fi
}
trap cleanup EXIT

# This machine's own limits, not the pod's: podman asks the runtime for
# RLIMIT_NOFILE/NPROC above what root may set here (no CAP_SYS_RESOURCE),
# and crun cannot use a hybrid cgroup hierarchy (runc can).
host=(--runtime runc --ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=32768:32768)
# And a pod's default where podman's differs: no limit on the number of
# processes (the kubelet's podPidsLimit is -1 unless set; podman's 2048
# would stop a fork bomb before langbench's own --max-processes does).
host+=(--pids-limit=-1)

# podman options for a container of a manifest (FILE CONTAINER INDEX):
# one line each, from its pod and container securityContext; a field
# without a podman equivalent here is an error, so nothing is rehearsed
# with settings other than the manifest's.
pod_flags() {
    python3 - "$@" <<'EOF'
import sys, yaml
path, name, index = sys.argv[1], sys.argv[2], int(sys.argv[3])
job = next(d for d in yaml.safe_load_all(open(path)) if d and d.get("kind") == "Job")
pod = job["spec"]["template"]["spec"]
c = next(c for c in pod["containers"] if c["name"] == name)
out = []
# A podman container has no service-account token to leave out; the
# manifests' NetworkPolicy (their second document) is not rehearsed.
known_pod = {"restartPolicy", "hostUsers", "nodeSelector", "containers", "volumes", "automountServiceAccountToken"}
for k in pod:
    if k not in known_pod:
        sys.exit(f"{path}: pod field {k} has no podman equivalent in deploy/rehearse.sh")
if pod.get("hostUsers") is False:
    # The kubelet gives each pod 65536 ids of its own.
    base = 200000 + 65536 * index
    out += [f"--uidmap=0:{base}:65536", f"--gidmap=0:{base}:65536"]
sc = c.get("securityContext", {})
for k, v in sc.items():
    if k == "capabilities":
        out += [f"--cap-add={x}" for x in v.get("add", [])]
        out += [f"--cap-drop={x}" for x in v.get("drop", [])]
    elif k == "seccompProfile":
        if v["type"] == "Unconfined":
            out.append("--security-opt=seccomp=unconfined")
        elif v["type"] != "RuntimeDefault":
            sys.exit(f"{path}: seccompProfile {v}")
    elif k == "appArmorProfile":
        if v["type"] != "Unconfined":
            sys.exit(f"{path}: appArmorProfile {v}")
        out.append("--security-opt=apparmor=unconfined")
    elif k == "procMount":
        if v == "Unmasked":
            out.append("--security-opt=unmask=ALL")
    elif k == "allowPrivilegeEscalation":
        if v is False:
            out.append("--security-opt=no-new-privileges")
    elif k == "privileged":
        if v:
            out.append("--privileged")
    else:
        sys.exit(f"{path}: securityContext.{k} has no podman equivalent in deploy/rehearse.sh")
print("\n".join(out))
EOF
}

# The container's command, env and mount of a manifest (FILE CONTAINER
# FIELD): `command` (its command + args, one word a line), `env` (NAME=value
# lines), `subpath` (the results mount's subPathExpr).
manifest() {
    python3 - "$@" <<'EOF'
import sys, yaml
path, name, field = sys.argv[1:4]
job = next(d for d in yaml.safe_load_all(open(path)) if d and d.get("kind") == "Job")
pod = job["spec"]["template"]["spec"]
c = next(c for c in pod["containers"] if c["name"] == name)
if field == "command":
    print("\0".join(c.get("command", []) + c.get("args", [])), end="")
elif field == "env":
    print("\n".join(f"{e['name']}={e.get('value', '')}" for e in c.get("env", [])))
elif field == "subpath":
    print(next((m.get("subPathExpr", m.get("subPath", "")) for m in c.get("volumeMounts", []) if m["mountPath"] == "/results"), ""))
EOF
}

echo "== 1. the image (variants: $variants)"
start=$(date +%s)
TAG=$tag VARIANTS=$variants INCLUDE=python3-pip deploy/build-image.sh
echo "image built in $(($(date +%s) - start)) s"

edition=deploy/kubernetes/edition.yaml
merge=deploy/kubernetes/merge.yaml
mapfile -d '' -t shard_cmd < <(manifest "$edition" shard command)
mapfile -t shard_env < <(manifest "$edition" shard env)
subpath=$(manifest "$edition" shard subpath)
mapfile -t defaults < <(pod_flags "$edition" shard 0 | grep -v -e '^--uidmap' -e '^--gidmap' -e '^--cap' -e '^--security-opt')
env_args=()
for e in "${shard_env[@]}"; do
    case ${e%%=*} in
    SHARDS) env_args+=(-e "SHARDS=$shards") ;;
    SIZE) env_args+=(-e "SIZE=$size") ;;
    VARIANTS) env_args+=(-e "VARIANTS=$variants") ;;
    *) env_args+=(-e "$e") ;;
    esac
done

echo "== 2. the shard under podman's default security settings: must refuse"
mkdir -p "$work/default"
set +e
podman run --rm "${host[@]}" "${defaults[@]}" -e JOB_COMPLETION_INDEX=0 "${env_args[@]}" \
    -v "$work/default:/results" "$tag" "${shard_cmd[@]}" >"$work/default.log" 2>&1
code=$?
set -e
cat "$work/default.log"
if [ "$code" != 2 ] || ! grep -q "the kernel refused langbench's sandbox" "$work/default.log" ||
    ! grep -q "CAP_SYS_ADMIN" "$work/default.log" || [ -e "$work/default/shard-1/runs.jsonl" ]; then
    echo "rehearsal FAILED: under the defaults the shard did not refuse with the missing privilege (exit $code)" >&2
    exit 1
fi
echo "refused as it must (exit 2), nothing measured"

if [ "${ATTACKS:-1}" != 0 ]; then
    echo "== 3. tests/attacks.rs inside the container, under the pod's settings"
    tests_bin=${TESTS_BIN:-}
    [ -n "$tests_bin" ] || tests_bin=$(cargo test --release --locked --test tests --no-run --message-format=json 2>/dev/null |
        python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "tests" and m.get("executable"):
        print(m["executable"])' | tail -1)
    mapfile -t flags < <(pod_flags "$edition" shard 0)
    echo "+ podman run ${flags[*]} ... $(basename "$tests_bin") attacks::"
    # The worktree at its own path, read-only: the tests find langbench
    # (target/release) and the repository there.
    # This machine reaches the registries through an egress proxy whose
    # CA only the host trusts: the host's bundle, read-only, for the row
    # whose `prepare` step downloads from PyPI (through langbench's proxy).
    ca=()
    bundle=/etc/ssl/certs/ca-certificates.crt
    [ ! -f "$bundle" ] || ca=(-v "$bundle:$bundle:ro")
    # Left out: the rows whose toolchain the image has not (Maven; gcc,
    # for check's row about a fast C program): they run outside, in the
    # test command.
    podman run --rm "${host[@]}" "${flags[@]}" "${ca[@]}" -v "$repo:$repo:ro" -w / -e HOME=/root \
        --entrypoint "$tests_bin" "$tag" attacks:: --skip maven --skip r4_row06_a_fast_c_program --test-threads 2
fi

echo "== 4. the Indexed Job: $shards shards in parallel, then the merge Job"
results=$work/volume
mkdir -p "$results"
pids=()
for ((i = 0; i < shards; i++)); do
    dir=$results/${subpath//\$(JOB_COMPLETION_INDEX)/$i}
    mkdir -p "$dir"
    mapfile -t flags < <(pod_flags "$edition" shard "$i")
    # Each shard on a core of its own, as the static CPU manager gives a
    # Guaranteed pod (here one core each: the machine has $(nproc)).
    cpu=$((i % $(nproc)))
    name=langbench-rehearsal-$$-$i
    containers+=("$name")
    echo "+ podman run ${flags[*]} --cpuset-cpus=$cpu -e JOB_COMPLETION_INDEX=$i -v $dir:/results:U $tag ${shard_cmd[*]}"
    podman run --name "$name" "${host[@]}" "${flags[@]}" --cpuset-cpus="$cpu" \
        -e "JOB_COMPLETION_INDEX=$i" "${env_args[@]}" -v "$dir:/results:U" "$tag" "${shard_cmd[@]}" \
        >"$work/shard-$i.log" 2>&1 &
    pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
        echo "shard index $i failed:" >&2
        failed=1
    fi
    tail -5 "$work/shard-$i.log"
done
[ "$failed" = 0 ] || exit 1
for s in "$results"/*/shard-*/sessions.jsonl; do
    containment=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["containment"])' "$s")
    echo "$s: $containment"
    case $containment in none*)
        echo "rehearsal FAILED: a shard ran uncontained" >&2
        exit 1
        ;;
    esac
done
mapfile -d '' -t merge_cmd < <(manifest "$merge" merge command)
mapfile -t flags < <(pod_flags "$merge" merge 0)
echo "+ podman run ${flags[*]} -v $results:/results:U $tag ${merge_cmd[*]}"
podman run --rm "${host[@]}" "${flags[@]}" -v "$results:/results:U" "$tag" "${merge_cmd[@]}"
echo "== the merged edition ($results/edition/summary.md)"
cat "$results/edition/summary.md"
# Every shard is its own session, even started in one second as pid 1
# (issue #42: the ids once collided and the table said "in 1 session").
if ! grep -q "in $shards sessions" "$results/edition/summary.md"; then
    echo "rehearsal FAILED: the merged table does not count $shards sessions" >&2
    exit 1
fi
echo "rehearsal passed"
