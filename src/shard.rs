//! `--shard K/N`: a deterministic partition of the selected variants over N
//! machines, like `cargo nextest --partition count:K/N`. By variant, so a
//! variant's cells (and its warm toolchain caches) stay on one machine; the
//! same on every machine for the same selection, whatever order the ids were
//! given in.

use std::fmt;
use std::str::FromStr;

use crate::config::Variant;

/// Shard `k` of `n` (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("bad shard {s:?}: expected K/N with 1 <= K <= N, e.g. 2/3");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl Shard {
    /// This shard's items: sorted by `id`, every N-th from the K-th, so the
    /// shards differ in size by at most one.
    pub fn select<'a, T>(&self, items: &[&'a T], id: impl Fn(&T) -> &str) -> Vec<&'a T> {
        let mut sorted: Vec<&'a T> = items.to_vec();
        sorted.sort_by(|a, b| id(a).cmp(id(b)));
        sorted
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.n == self.k - 1)
            .map(|(_, t)| t)
            .collect()
    }

    /// `run --shard K/N`: this shard's variants, named on stderr (so each
    /// machine's log says what it ran).
    pub fn variants<'a>(&self, variants: &[&'a Variant]) -> Vec<&'a Variant> {
        let mine = self.select(variants, |v| v.id.as_str());
        eprintln!(
            "shard {self}: {} of the selected variants: {}",
            mine.len(),
            mine.iter()
                .map(|v| v.id.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        );
        mine
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_item_once_whatever_the_order() {
        let ids = [
            "go",
            "c-gcc",
            "python3",
            "java",
            "node",
            "rust-rustc",
            "php",
        ];
        let items: Vec<&&str> = ids.iter().collect();
        let mut reversed = items.clone();
        reversed.reverse();
        let mut all: Vec<&str> = Vec::new();
        for k in 1..=3 {
            let s = Shard { k, n: 3 };
            let a: Vec<&str> = s.select(&items, |x| x).into_iter().copied().collect();
            let b: Vec<&str> = s.select(&reversed, |x| x).into_iter().copied().collect();
            assert_eq!(a, b, "the same shard whatever the given order");
            assert!((2..=3).contains(&a.len()));
            all.extend(a);
        }
        all.sort();
        let mut want = ids.to_vec();
        want.sort();
        assert_eq!(all, want);
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { k: 2, n: 3 }));
    }
}
