//! The template engine: a command of `languages.toml` split into words,
//! its `{placeholder}`s, and their substitution (shell-quoted inside an
//! explicit `sh -c` script).

use std::collections::BTreeSet;
use std::path::Path;

use regex::Regex;

/// A command template: words split like a shell would (but never run by
/// one), with `{placeholder}`s substituted inside words. In the script of
/// an explicit `sh -c '…'` (or bash, dash, …) the values are substituted
/// shell-quoted, so a path with a space or a `$(…)` stays one literal word.
#[derive(Debug, Clone)]
pub struct Template {
    pub text: String,
    pub(super) words: Vec<String>,
    /// Index of the word that a shell runs as a script (`sh -c SCRIPT`).
    pub(super) script: Option<usize>,
}

/// Values for the placeholders of a template.
#[derive(Debug, Clone, Default)]
pub(crate) struct Vars {
    pub src: String,
    pub dir: String,
    pub build: String,
    pub n: Option<u64>,
    pub port: Option<u16>,
}

impl Vars {
    pub(super) fn get(&self, name: &str) -> Option<String> {
        match name {
            "src" => Some(self.src.clone()),
            "dir" => Some(self.dir.clone()),
            "build" => Some(self.build.clone()),
            "exe" => Some(format!("{}/prog", self.build)),
            "n" => self.n.map(|n| n.to_string()),
            "port" => self.port.map(|p| p.to_string()),
            _ => None,
        }
    }
}

pub(super) static PLACEHOLDER: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"\{([A-Za-z_][A-Za-z0-9_]*)\}").expect("valid regex"));

pub(super) const SHELLS: [&str; 6] = ["sh", "bash", "dash", "zsh", "ksh", "mksh"];

impl Template {
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let words = shell_words::split(text).map_err(|e| format!("cannot split {text:?}: {e}"))?;
        if words.is_empty() {
            return Err("empty command".into());
        }
        let is_shell = Path::new(&words[0])
            .file_name()
            .is_some_and(|n| SHELLS.iter().any(|s| n == *s));
        let script = words
            .iter()
            .position(|w| w == "-c")
            .filter(|_| is_shell)
            .map(|i| i + 1)
            .filter(|i| *i < words.len());
        if let Some(i) = script {
            check_script_quoting(&words[i])?;
        }
        Ok(Template {
            text: text.to_string(),
            words,
            script,
        })
    }

    /// Placeholder names used in the template.
    pub(super) fn placeholders(&self) -> BTreeSet<String> {
        self.words
            .iter()
            .flat_map(|w| PLACEHOLDER.captures_iter(w).map(|c| c[1].to_string()))
            .collect()
    }

    /// The argv with placeholders substituted.
    pub(crate) fn expand(&self, vars: &Vars) -> Vec<String> {
        self.words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if Some(i) == self.script {
                    expand_with(w, vars, |v| shell_words::quote(&v).into_owned())
                } else {
                    expand_str(w, vars)
                }
            })
            .collect()
    }

    /// The program (first word) when it is a plain name, not a placeholder.
    pub(super) fn program(&self) -> Option<&str> {
        let w = self.words.first()?;
        (!w.contains('{')).then_some(w.as_str())
    }
}

/// A placeholder inside quotes of a shell script would be quoted twice
/// (langbench quotes every value it substitutes there), so it is refused.
pub(super) fn check_script_quoting(script: &str) -> Result<(), String> {
    for m in PLACEHOLDER.find_iter(script) {
        let (mut single, mut double, mut escaped) = (false, false, false);
        for c in script[..m.start()].chars() {
            match c {
                _ if escaped => escaped = false,
                '\\' if !single => escaped = true,
                '\'' if !double => single = !single,
                '"' if !single => double = !double,
                _ => {}
            }
        }
        if single || double || escaped {
            return Err(format!(
                "placeholder {} is inside quotes in a shell script: langbench substitutes \
                 placeholders there already quoted; remove the quotes around it",
                m.as_str()
            ));
        }
    }
    Ok(())
}

pub(super) fn expand_str(s: &str, vars: &Vars) -> String {
    expand_with(s, vars, |v| v)
}

pub(super) fn expand_with(s: &str, vars: &Vars, quote: impl Fn(String) -> String) -> String {
    PLACEHOLDER
        .replace_all(s, |c: &regex::Captures| {
            vars.get(&c[1])
                .map(&quote)
                .unwrap_or_else(|| c[0].to_string())
        })
        .into_owned()
}
