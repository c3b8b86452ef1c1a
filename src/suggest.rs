//! Did-you-mean for what people mistype (variant ids, benchmark names,
//! results directories), by edit distance (strsim's Damerau-Levenshtein:
//! a swapped pair of letters is one edit), and the checks that say "does
//! not exist" where that is the case.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

/// The known names closest to `given`: within one edit per three letters
/// (at least one), case ignored, the closest first (at most three).
pub fn closest<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let g = given.to_lowercase();
    let limit = (g.chars().count() / 3).max(1);
    let mut near: Vec<(usize, &str)> = known
        .into_iter()
        .map(|k| (strsim::damerau_levenshtein(&g, &k.to_lowercase()), k))
        .filter(|(d, _)| *d <= limit)
        .collect();
    near.sort();
    near.dedup();
    let best = near.first().map(|(d, _)| *d);
    near.into_iter()
        .filter(|(d, _)| Some(*d) == best)
        .take(3)
        .map(|(_, k)| k)
        .collect()
}

/// `did you mean a?` / `did you mean a or b?`, or nothing.
pub fn did_you_mean<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let near = closest(given, known);
    match near.as_slice() {
        [] => None,
        [one] => Some(format!("did you mean {one}?")),
        [first @ .., last] => Some(format!("did you mean {} or {last}?", first.join(", "))),
    }
}

/// The error for a variant id the languages file does not have.
pub fn unknown_variant(id: &str, file: &Path, known: &[&str]) -> anyhow::Error {
    let hint = did_you_mean(id, known.iter().copied())
        .map(|d| format!(": {d}"))
        .unwrap_or_default();
    anyhow::anyhow!(
        "unknown variant {id:?} in {}{hint} (`langbench list` shows all {})",
        file.display(),
        known.len()
    )
}

/// Directories beside `dir` (in its parent) that hold records, as paths
/// written like `dir`.
fn results_dirs_beside(dir: &Path) -> Vec<PathBuf> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = std::fs::read_dir(&parent) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| holds_records(&e.path()))
        .map(|e| match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.join(e.file_name()),
            _ => PathBuf::from(e.file_name()),
        })
        .collect();
    out.sort();
    out
}

/// Whether `dir` holds run or ws records.
pub fn holds_records(dir: &Path) -> bool {
    [crate::store::RUNS, crate::ws::WS_RECORDS]
        .iter()
        .any(|f| dir.join(f).is_file())
}

/// A results directory beside `dir` whose name is close to its name.
pub fn similar_results_dir(dir: &Path) -> Option<String> {
    let name = dir.file_name()?.to_string_lossy().into_owned();
    let beside = results_dirs_beside(dir);
    let names: Vec<String> = beside
        .iter()
        .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
        .collect();
    let near = closest(&name, names.iter().map(String::as_str));
    let first = near.first()?;
    beside
        .iter()
        .find(|p| p.file_name().is_some_and(|f| f.to_string_lossy() == *first))
        .map(|p| p.display().to_string())
}

/// Checks that `dir` (named on the command line as `what`, e.g. `--balance-from`)
/// is a results directory: it exists, is a directory and holds records.
pub fn results_dir(dir: &Path, what: &str) -> Result<()> {
    let shown = dir.display();
    if !dir.exists() {
        let hint = similar_results_dir(dir)
            .map(|d| format!(": did you mean {d}?"))
            .unwrap_or_default();
        bail!("{what} {shown} does not exist{hint}");
    }
    if !dir.is_dir() {
        bail!("{what} {shown} is not a directory (a results directory is one)");
    }
    if !holds_records(dir) {
        bail!(
            "{what} {shown} holds no records ({} or {}): not a results directory",
            crate::store::RUNS,
            crate::ws::WS_RECORDS
        );
    }
    Ok(())
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
    fn a_missing_results_directory_does_not_exist_and_a_near_one_is_named() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("2026");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join(crate::store::RUNS), "").unwrap();
        std::fs::create_dir(d.path().join("empty")).unwrap();
        std::fs::write(d.path().join("file"), "").unwrap();
        let err = |p: &Path| results_dir(p, "compare").unwrap_err().to_string();
        let typo = d.path().join("2062");
        assert_eq!(
            err(&typo),
            format!(
                "compare {} does not exist: did you mean {}?",
                typo.display(),
                real.display()
            )
        );
        let far = d.path().join("nothing-like-it");
        assert_eq!(
            err(&far),
            format!("compare {} does not exist", far.display())
        );
        assert!(err(&d.path().join("empty")).contains("holds no records"));
        assert!(err(&d.path().join("file")).contains("is not a directory"));
        assert!(results_dir(&real, "compare").is_ok());
    }
}
