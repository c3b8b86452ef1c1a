#!/usr/bin/env bash
# Builds langbench's container image from Debian's packages alone: no base
# image from a registry. mmdebstrap makes a minimal Debian root filesystem
# from Debian's archive, the container runtime imports it as the base, and
# deploy/Dockerfile adds langbench, the repository's languages file and
# programs, and the toolchains (from Debian, npm, PyPI, Maven Central:
# `langbench toolchains install`). deploy/README.md says how to run it.
#
# Usage: deploy/build-image.sh
#   TAG        the image (default localhost/langbench:latest)
#   VARIANTS   variant ids whose toolchains the image gets, space-separated
#              (default: every variant; deploy/rehearse.sh uses a few)
#   RELEASE    the Debian release (default: the one this machine runs, as
#              the edition's reference machine is Debian 12, bookworm)
#   MIRROR     Debian's archive (default: the first of this machine's apt
#              sources, else http://deb.debian.org/debian)
#   INCLUDE    more Debian packages for the base, comma-separated
#              (deploy/rehearse.sh: python3-pip, which its tests use)
#   RUNTIME    podman (default) or docker
#   LANGBENCH_BIN  a langbench binary to copy in instead of building the
#              static one (it must run on the image's Debian release)
#   LANGBENCH_ALLOW_CHANGED=1  build from a languages file or programs that
#              differ from the committed ones (see below)
#
# langbench is built on this machine (`cargo install-static`: glibc linked
# in statically) and copied in: Debian's own rustc (1.63 in bookworm) is
# older than langbench needs, and a toolchain from rustup would come from
# outside Debian.
#
# The image's `toolchains install` runs with --no-sandbox (an image build
# cannot create langbench's sandbox: `docker build` grants no
# CAP_SYS_ADMIN), so it only builds from the committed, reviewed languages
# file and programs: a change not yet committed is refused unless
# LANGBENCH_ALLOW_CHANGED=1 says you have read it.
set -euo pipefail
cd "$(dirname "$0")/.."
runtime=${RUNTIME:-podman}
tag=${TAG:-localhost/langbench:latest}
release=${RELEASE:-$(sed -n "s/^VERSION_CODENAME=//p" /etc/os-release 2>/dev/null)}
release=${release:-bookworm}
mirror=${MIRROR:-$(grep -hE '^(URIs:|deb )' /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null |
    grep -om1 'http[^ ]*debian/\?$' || true)}
mirror=${mirror:-http://deb.debian.org/debian}

if [ "${LANGBENCH_ALLOW_CHANGED:-}" != 1 ] && git rev-parse --git-dir >/dev/null 2>&1 &&
    ! git diff --quiet HEAD -- languages.toml programs; then
    echo "error: languages.toml or programs/ differ from the committed ones (git diff HEAD -- languages.toml programs);" >&2
    echo "  the image installs their toolchains uncontained: commit them, or set LANGBENCH_ALLOW_CHANGED=1 once you have read the change" >&2
    exit 2
fi

need() {
    local missing=()
    for tool in "$@"; do command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}"); done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "+ apt-get install ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}
if [ "$runtime" = podman ]; then need podman:podman mmdebstrap:mmdebstrap runc:runc; else need mmdebstrap:mmdebstrap; fi

work=$(mktemp -d /var/tmp/langbench-image.XXXXXX)
trap 'rm -rf "$work"' EXIT

# 1. langbench, static (unless given).
bin=${LANGBENCH_BIN:-target/static/bin/langbench}
if [ -z "${LANGBENCH_BIN:-}" ]; then
    echo "+ cargo install-static"
    cargo install-static --quiet
fi
# 2. The base: Debian's minimal system (minbase: apt, dpkg, coreutils,
#    bash) and what langbench itself uses: certificates for the
#    registries, GNU time and git (check --changed-since). One layer,
#    rebuilt when the release or this list changes.
includes=ca-certificates,time,git${INCLUDE:+,$INCLUDE}
base=localhost/langbench-debian:$release
label="$release $mirror $includes"
if [ "$("$runtime" image inspect --format '{{index .Config.Labels "langbench.base"}}' "$base" 2>/dev/null)" != "$label" ]; then
    echo "+ mmdebstrap --variant=minbase --include=$includes $release ($mirror)"
    mmdebstrap --quiet --variant=minbase --include="$includes" "$release" "$work/rootfs.tar" "$mirror"
    "$runtime" import --quiet --change "LABEL langbench.base=\"$label\"" --change 'CMD ["/bin/bash"]' \
        "$work/rootfs.tar" "$base" >/dev/null
    rm -f "$work/rootfs.tar"
fi
# 3. The context: only what the image holds (not target/).
ctx=$work/context
mkdir -p "$ctx/langbench/results/2026"
mkdir -p "$ctx/bin"
cp "$bin" "$ctx/bin/langbench"
cp -r languages.toml programs "$ctx/langbench/"
# The previous edition's records: what `run --balance-from results/2026`
# (deploy/kubernetes/edition.yaml) balances the shards by.
cp results/2026/runs.jsonl results/2026/sessions.jsonl "$ctx/langbench/results/2026/"
build=("$runtime" build)
if [ "$runtime" = podman ]; then
    # This machine's quirks, not the image's: crun cannot use a hybrid
    # cgroup hierarchy (runc can).
    build+=(--runtime runc)
fi
echo "+ $runtime build -f deploy/Dockerfile -t $tag (variants: ${VARIANTS:-all})"
"${build[@]}" -f deploy/Dockerfile --build-arg BASE="$base" --build-arg VARIANTS="${VARIANTS:-}" \
    -t "$tag" "$ctx"
"$runtime" image inspect --format "$tag: {{.Size}} bytes" "$tag"
