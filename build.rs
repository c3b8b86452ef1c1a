//! Links the langbench binary as a position-dependent executable.
//!
//! Every `langbench measure` pays langbench's own start-up, and a PIE of
//! this size carries ~17,000 relative relocations: the dynamic loader
//! applies them at every start, writing (and so copying) ~330 KB of
//! relocated data. That is about 0.4 ms of a ~2.5 ms `measure -- true` on
//! the reference machine, and those copied pages are also what a command
//! forked from langbench starts its peak RSS with (benches/overhead.py
//! measures both). Without PIE the linker resolves them once. The objects
//! stay position-independent (only the final link changes), so the test
//! binaries and proc-macros are unaffected; the cost is ASLR for
//! langbench's own code (libraries, heap and stack stay randomized).
//!
//! A static build (`-C target-feature=+crt-static`, docs/measurement.md) is left to
//! rustc: `-no-pie` on top of its `-static-pie` links a binary that
//! crashes at start; `-C relocation-model=static` makes it non-PIE.
fn main() {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let crt_static = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    if var("CARGO_CFG_TARGET_OS") == "linux" && !crt_static {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
    git_revision();
}

/// `LANGBENCH_GIT_REV`: the checkout's short revision, recorded with every
/// run (`record::langbench_version`); empty outside a git checkout (a
/// crates.io or tarball build). Rebuilt when HEAD moves.
fn git_revision() {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let rev = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_default();
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{r}");
        }
        if let Some(common) = git(&["rev-parse", "--git-common-dir"]) {
            println!("cargo:rerun-if-changed={common}/packed-refs");
            if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
                println!("cargo:rerun-if-changed={common}/{r}");
            }
        }
    }
    println!("cargo:rustc-env=LANGBENCH_GIT_REV={rev}");
}
