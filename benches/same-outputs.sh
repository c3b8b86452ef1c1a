#!/bin/sh
# Behaviour check for a change that must not change any output (a
# refactoring): runs the same commands with two langbench binaries, each on
# its own copy of results/ (and of languages.toml and programs/, which the
# reports read), then compares everything they wrote and printed.
#
#   benches/same-outputs.sh OLD_BINARY NEW_BINARY [WORKDIR]
#
# Build OLD_BINARY from the unchanged tree first (cargo build --release; cp
# target/release/langbench somewhere). Run from the repository's root.
# Exit 0: identical. What differs by nature is masked before comparing, and
# listed here: results.json's `generated_at`, each spreadsheet's creation
# time (docProps/core.xml; the .xlsx files are compared unzipped) and the
# results directories' `.lock` files (the pid, time and binary of the last
# command that held the lock).
set -eu
old=$(realpath "$1")
new=$(realpath "$2")
work=${3:-$(mktemp -d /tmp/same-outputs.XXXXXX)}
repo=$(pwd)
rm -rf "$work/old" "$work/new" "$work/tree"

# run SIDE NAME ARGS...: one command in SIDE's copy, its stdout, stderr and
# exit code kept under out/NAME.
run() {
    side=$1 name=$2
    shift 2
    bin=$old
    [ "$side" = new ] && bin=$new
    (cd "$work/tree" && env -u LANGBENCH_LANGUAGES "$bin" "$@" \
        >"out/$name.stdout" 2>"out/$name.stderr"; echo "$?" >"out/$name.code") || true
}

dirs=$(cd "$repo/results" && for d in */; do echo "${d%/}"; done)
for side in old new; do
    # Each side runs in the same place, $work/tree (paths are in outputs:
    # a dist toolchain's directory name hashes the languages file's
    # directory), then moves to $work/$side.
    mkdir -p "$work/tree/out"
    cp -a "$repo/results" "$repo/languages.toml" "$repo/programs" "$work/tree/"
    # Every derived file of a records directory is removed, so that what
    # is compared is what this side's `report` wrote (a writer that skips
    # an unchanged file would otherwise leave the committed one).
    for r in "$work"/tree/results/*/; do
        if [ -e "$r/runs.jsonl" ] || [ -e "$r/ws.jsonl" ]; then
            # reproduced/*.json are records too (`reproduce --store`):
            # kept, or the reproducibility checks' facts and ranks are
            # never compared.
            find "$r" -mindepth 1 ! -path "${r}reproduced/*" ! -name '*.jsonl' -type f -delete
        fi
    done
    run $side report-check-before report --check results/*
    for d in $dirs; do
        run $side "report-$d" report "results/$d"
    done
    run $side report-check report --check results/*
    run $side compare compare results/2021 results/2026
    run $side compare-relative compare results/2021 results/2026 --relative-to c-tcc
    run $side compare-md compare results/2021 results/2026 --format markdown
    run $side compare-csv compare results/2021 results/2026 --format csv
    run $side compare-out compare results/2021 results/2026 --out out/compare-dir
    run $side history history results/2020 results/2021 results/2026 --relative-to c-tcc
    run $side history-out history results/2020 results/2021 results/2026 \
        --relative-to c-tcc --out out/history-dir
    # The version cache is shared: a first `list` may probe what the
    # other side's left stale; the second one is compared.
    run $side list-json list --json
    run $side list-json list --json
    run $side plan run --plan --shard 1/5 --balance-from results/2026
    run $side plan-json run --plan --json --balance-from results/2026
    run $side expected expected num-comb --size tiny
    run $side error-compare compare results/2021 results/2062
    run $side error-report report results/202
    run $side error-history history results/2021 results/nothing
    run $side help --help
    for c in run ws ws-client measure list check new toolchains import compare history \
        merge report expected; do
        run $side "help-$c" "$c" --help
    done
    for c in install prune clear-caches; do
        run $side "help-toolchains-$c" toolchains "$c" --help
    done
    run $side help-ws-merge ws merge --help
    # What differs by nature: masked, and the spreadsheets unzipped.
    mv "$work/tree" "$work/$side"
    find "$work/$side" -name results.json -exec \
        sed -i 's/"generated_at": "[^"]*"/"generated_at": "(masked)"/' {} +
    find "$work/$side" -name '*.xlsx' | while read -r x; do
        mkdir "$x.d"
        (cd "$x.d" && unzip -q "$x")
        rm "$x"
        sed -i 's|<dcterms:created[^<]*</dcterms:created>|(masked)|; s|<dcterms:modified[^<]*</dcterms:modified>|(masked)|' \
            "$x.d/docProps/core.xml"
    done
    find "$work/$side" -name .lock -delete
    # The binary's own name in --help's usage lines.
    sed -i "s|$(basename "$old")|langbench|g; s|$(basename "$new")|langbench|g" "$work/$side"/out/help*.stdout
done
if diff -r "$work/old" "$work/new"; then
    echo "identical: $work/old and $work/new"
else
    echo "DIFFERENT (above): $work/old and $work/new" >&2
    exit 1
fi
