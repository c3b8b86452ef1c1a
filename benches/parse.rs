//! Parsing time of a languages file of 1,000 to 8,000 variants: it should
//! grow linearly (it was quadratic: 8,000 variants took 14 s). A benchmark,
//! not a test: it prints, it asserts nothing.
//!
//!     cargo bench --bench parse

use std::time::Instant;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    for b in ["assoc", "num-comb", "str-comb"] {
        let p = dir.path().join("programs").join(b);
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join(format!("{}.sh", b.replace('-', "_"))), "").unwrap();
    }
    let path = dir.path().join("languages.toml");
    let mut previous: Option<f64> = None;
    for n in [1_000, 2_000, 4_000, 8_000] {
        let text = langbench::config::synthetic(n);
        let started = Instant::now();
        let l = langbench::config::Languages::parse(&text, &path).unwrap();
        let s = started.elapsed().as_secs_f64();
        assert_eq!(l.variants.len(), n);
        let ratio = previous.map_or(String::new(), |p| {
            format!("  ×{:.2} for ×2 variants", s / p)
        });
        println!("{n:>6} variants: {:>8.1} ms{ratio}", s * 1000.0);
        previous = Some(s);
    }
}
