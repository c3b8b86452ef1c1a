//! The benchmarks and their sizes (see `docs/benchmarks.md`).
#![warn(missing_docs)]

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A benchmark. Its serde name (`num-comb`) is its name everywhere: in
/// records, `languages.toml`, `programs/<name>/`, the command line and the
/// tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bench {
    /// String associative array: a map from string to float, set or
    /// incremented under 3·N keys.
    Assoc,
    /// Numeric comb sort.
    NumComb,
    /// String comb sort.
    StrComb,
    /// WebSocket echo server, measured under load (`langbench ws`).
    WsEcho,
}

impl Bench {
    /// Every benchmark, in table order.
    pub(crate) const ALL: [Bench; 4] =
        [Bench::Assoc, Bench::NumComb, Bench::StrComb, Bench::WsEcho];
    /// The benchmarks that run a program to completion and check its output.
    pub(crate) const CPU: [Bench; 3] = [Bench::Assoc, Bench::NumComb, Bench::StrComb];

    /// The benchmark's name: its serde name, so the two cannot drift apart.
    pub fn name(self) -> &'static str {
        serde_variant::to_variant_name(&self).expect("Bench is a unit enum")
    }

    /// Whether it runs a program to completion (not a server).
    pub fn is_cpu(self) -> bool {
        self != Bench::WsEcho
    }

    /// Whether a run at `n` holds so much memory (hundreds of MB to GBs)
    /// that the host's memory state is part of its time: assoc at a
    /// million keys or more. `run` probes the memory before each such
    /// run (`mem_probe`).
    pub(crate) fn memory_heavy(self, n: u64) -> bool {
        self == Bench::Assoc && n >= 1_000_000
    }

    /// The placeholders a command template of this benchmark may use.
    pub(crate) fn placeholders(self) -> &'static [&'static str] {
        match self {
            Bench::WsEcho => &["src", "dir", "build", "exe", "port"],
            _ => &["src", "dir", "build", "exe", "n"],
        }
    }
}

impl fmt::Display for Bench {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Bench {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Bench::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Bench::ALL.iter().map(|b| b.name()).collect();
                format!(
                    "unknown benchmark {s:?} (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// The largest N `--size` accepts: the reference output of assoc at N
/// takes about 170 bytes per N (2 GB at 12,000,000), computed by langbench.
pub(crate) const MAX_N: u64 = 50_000_000;

/// A size selection: a named edition size, or one N for every benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Size {
    /// N = 1,000 everywhere: for tests and `langbench check`.
    Tiny,
    /// The 2020 edition: assoc 1,230,000, comb sorts 10,000,000.
    Ed2020,
    /// The 2021 edition and later: assoc 12,000,000, comb sorts 10,000,000.
    #[default]
    Ed2021,
    /// This N for every benchmark.
    Explicit(u64),
}

impl Size {
    /// The N this size means for `bench`.
    pub(crate) fn n(self, bench: Bench) -> u64 {
        match (self, bench) {
            (Size::Explicit(n), _) => n,
            (Size::Tiny, _) => 1_000,
            (Size::Ed2020, Bench::Assoc) => 1_230_000,
            (Size::Ed2021, Bench::Assoc) => 12_000_000,
            (Size::Ed2020 | Size::Ed2021, _) => 10_000_000,
        }
    }

    /// The name stored in records: `tiny`, `2020`, `2021` or N.
    pub(crate) fn label(self) -> String {
        match self {
            Size::Tiny => "tiny".into(),
            Size::Ed2020 => "2020".into(),
            Size::Ed2021 => "2021".into(),
            Size::Explicit(n) => n.to_string(),
        }
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

impl FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "tiny" => Ok(Size::Tiny),
            "2020" => Ok(Size::Ed2020),
            "2021" => Ok(Size::Ed2021),
            // A year other than the two that name sizes is far more often
            // an edition meant than that N: a 2,022-element run of every
            // variant is not what `--size 2022` asks for. Written with a
            // separator (2_022), it is that N.
            _ if s.len() == 4
                && s.chars().all(|c| c.is_ascii_digit())
                && (1990..=2099).contains(&s.parse::<u32>().unwrap_or(0)) =>
            {
                Err(format!(
                    "{s} looks like a year, but only 2020 and 2021 name sizes (the 2020 edition's, \
                     and the 2021 edition's, which every edition since uses): did you mean 2021, \
                     with `--out results/{s}` for that edition's directory? For N = {},{} write {}_{}",
                    &s[..1],
                    &s[1..],
                    &s[..1],
                    &s[1..]
                ))
            }
            _ => match s.replace(['_', ','], "").parse::<u64>() {
                Ok(n) if (1..=MAX_N).contains(&n) => Ok(Size::Explicit(n)),
                _ => Err(format!(
                    "bad size {s:?}: expected tiny, 2020, 2021 or N from 1 to {MAX_N} \
                     (langbench computes the expected output itself: assoc needs about \
                     170 bytes per N)"
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_sizes_match_the_editions() {
        assert_eq!(Size::Ed2020.n(Bench::Assoc), 1_230_000);
        assert_eq!(Size::Ed2021.n(Bench::Assoc), 12_000_000);
        assert_eq!(Size::Ed2021.n(Bench::StrComb), 10_000_000);
        assert_eq!(Size::Tiny.n(Bench::NumComb), 1_000);
        assert_eq!("1_000".parse::<Size>(), Ok(Size::Explicit(1000)));
        assert!("zero".parse::<Size>().is_err());
        assert!("0".parse::<Size>().is_err());
        // A year that names no size is asked about, not taken as N.
        let e = "2022".parse::<Size>().unwrap_err();
        assert!(
            e.contains("did you mean 2021, with `--out results/2022`")
                && e.contains("For N = 2,022 write 2_022"),
            "{e}"
        );
        assert_eq!("2_022".parse::<Size>(), Ok(Size::Explicit(2022)));
        assert_eq!("1989".parse::<Size>(), Ok(Size::Explicit(1989)));
    }

    #[test]
    fn bench_names_round_trip() {
        let names: Vec<&str> = Bench::ALL.iter().map(|b| b.name()).collect();
        assert_eq!(names, ["assoc", "num-comb", "str-comb", "ws-echo"]);
        for b in Bench::ALL {
            assert_eq!(b.name().parse::<Bench>(), Ok(b));
            assert_eq!(serde_json::to_string(&b).unwrap(), format!("\"{b}\""));
        }
        assert!("assocc".parse::<Bench>().unwrap_err().contains("num-comb"));
    }
}
