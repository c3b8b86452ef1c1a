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
//! A static build (`-C target-feature=+crt-static`, README) is left to
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
}
