//! Did-you-mean for what people mistype (variant ids, benchmark names,
//! results directories: see `store::results_dir`), by edit distance
//! (strsim's Damerau-Levenshtein: a swapped pair of letters is one edit).

use std::path::Path;

/// The known names closest to `given`: within one edit per three letters
/// (at least one), case ignored, the closest first (at most three). Failing
/// those, the names that contain it (`gcc` for `c-gcc` and `go-gccgo`; at
/// least two letters), the shortest first (at most three).
pub(crate) fn closest<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let g = given.to_lowercase();
    let limit = (g.chars().count() / 3).max(1);
    let known: Vec<&str> = known.into_iter().collect();
    let mut near: Vec<(usize, &str)> = known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&g, &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= limit)
        .collect();
    if near.is_empty() && g.chars().count() >= 2 {
        near = known
            .iter()
            .filter(|k| k.to_lowercase().contains(&g))
            .map(|k| (k.len(), *k))
            .collect();
        near.sort();
        near.dedup();
        return near.into_iter().take(3).map(|(_, k)| k).collect();
    }
    near.sort();
    near.dedup();
    let best = near.first().map(|(d, _)| *d);
    near.into_iter()
        .filter(|(d, _)| Some(*d) == best)
        .take(3)
        .map(|(_, k)| k)
        .collect()
}

/// Whether `a` and `b` differ only in their digits (`shard1` and
/// `shard2`, `2026` and `2027`): numbered siblings, named so on purpose,
/// never a typo of each other.
pub(crate) fn numbered_siblings(a: &str, b: &str) -> bool {
    let letters = |s: &str| {
        s.chars()
            .filter(|c| !c.is_ascii_digit())
            .collect::<String>()
    };
    a != b && letters(a) == letters(b)
}

/// Whether a new name `given`, beside an existing `near` one, is a typo of
/// it rather than a name chosen on purpose: at most two edits apart
/// (strsim's Damerau-Levenshtein, case ignored), both at least four
/// letters long, neither the other with a suffix after a separator
/// (`2026-rounds-xeon` beside `2026-rounds`, `2026-b` beside `2026`), and
/// not numbered siblings. `resluts` beside `results` is one; `d` beside
/// `c` and `crystal-release-free` beside `crystal-release-box` are not
/// (issue #64: the guard stopped a maintainer naming a second CPU model's
/// directory).
pub(crate) fn typo_of(given: &str, near: &str) -> bool {
    let (g, n) = (given.to_lowercase(), near.to_lowercase());
    let extends = |long: &str, short: &str| {
        long.strip_prefix(short)
            .is_some_and(|rest| rest.starts_with(['-', '_', '.']))
    };
    g != n
        && g.chars().count().min(n.chars().count()) >= 4
        && strsim::damerau_levenshtein(&g, &n) <= 2
        && !extends(&g, &n)
        && !extends(&n, &g)
        && !numbered_siblings(&g, &n)
}

/// `did you mean a?` / `did you mean a or b?`, or nothing.
pub(crate) fn did_you_mean<'a>(
    given: &str,
    known: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let near = closest(given, known);
    match near.as_slice() {
        [] => None,
        [one] => Some(format!("did you mean {one}?")),
        [first @ .., last] => Some(format!("did you mean {} or {last}?", first.join(", "))),
    }
}

/// The error for a variant id the languages file does not have.
pub(crate) fn unknown_variant(id: &str, file: &Path, known: &[&str]) -> anyhow::Error {
    let hint = did_you_mean(id, known.iter().copied())
        .map(|d| format!(": {d}"))
        .unwrap_or_default();
    anyhow::anyhow!(
        "unknown variant {id:?} in {}{hint} (`langbench list` shows all {})",
        file.display(),
        known.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_names_within_a_few_edits() {
        let ids = ["c-gcc", "c-tcc", "c-clang", "go", "python3", "pypy3"];
        assert_eq!(closest("c-gc", ids), ["c-gcc"]);
        assert_eq!(closest("C-GCC", ids), ["c-gcc"]);
        assert_eq!(closest("pyhton3", ids), ["python3"], "a swap is one edit");
        assert_eq!(closest("c-xcc", ids), ["c-gcc", "c-tcc"]);
        assert!(closest("rust", ids).is_empty());
        // No near spelling: the names that contain it.
        let ids2 = ["c-gcc", "go-gccgo", "c-tcc", "go"];
        assert_eq!(closest("gcc", ids2), ["c-gcc", "go-gccgo"]);
        assert_eq!(
            did_you_mean("GCC", ids2).as_deref(),
            Some("did you mean c-gcc or go-gccgo?")
        );
        assert!(
            closest("g", ["go-gccgo"]).is_empty(),
            "one letter is no hint"
        );
        assert_eq!(
            did_you_mean("c-xcc", ids).as_deref(),
            Some("did you mean c-gcc or c-tcc?")
        );
        let e = unknown_variant("c-gc", Path::new("languages.toml"), &ids).to_string();
        assert_eq!(
            e,
            "unknown variant \"c-gc\" in languages.toml: did you mean c-gcc? (`langbench list` shows all 6)"
        );
    }

    #[test]
    fn a_typo_is_a_near_name_not_a_chosen_one() {
        assert!(typo_of("resluts", "results"));
        assert!(typo_of("2O26", "2026"));
        assert!(!typo_of("Results", "results"));
        // The names issue #64 was refused.
        assert!(!typo_of("2026-rounds-xeon", "2026-rounds"));
        assert!(!typo_of("2026-b", "2026"));
        assert!(!typo_of("crystal-release-free", "crystal-release-box"));
        assert!(!typo_of("d", "c"));
        assert!(!typo_of("shard2", "shard1"));
        assert!(!typo_of("2026", "2026_old"));
    }

    #[test]
    fn numbered_siblings_differ_only_in_digits() {
        assert!(numbered_siblings("shard1", "shard2"));
        assert!(numbered_siblings("2027", "2026"));
        assert!(!numbered_siblings("resluts", "results"));
        assert!(!numbered_siblings("2026", "2026"));
        assert!(!numbered_siblings("2026b", "2026"));
    }
}
