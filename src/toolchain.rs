//! What is installed: executables on PATH, toolchain versions, and the
//! installer driven by the `install` tables of languages.toml.

use std::time::Duration;

use anyhow::{Result, bail};

use crate::config::Variant;
use crate::record::VariantInfo;
use crate::spawn::{Request, Spawner};

/// Installation state and version of one variant.
pub fn inspect(spawner: &Spawner, v: &Variant) -> VariantInfo {
    let missing = v.missing();
    let version = if missing.is_empty() {
        version(spawner, v).unwrap_or_else(|e| format!("unknown ({e})"))
    } else {
        String::new()
    };
    VariantInfo {
        id: v.id.clone(),
        language: v.language.clone(),
        flags: v.flags.clone(),
        version,
        installed: missing.is_empty(),
        missing,
        install_hint: v.install.describe(),
    }
}

/// Runs the variant's version command (through the spawner, with a timeout)
/// and picks the version out of its output.
pub fn version(spawner: &Spawner, v: &Variant) -> Result<String> {
    let dir = tempfile::tempdir()?;
    let mut req = Request::new(v.version.expand(&Default::default()), dir.path());
    req.env = v.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    req.timeout = Some(Duration::from_secs(120));
    let out = spawner.run(&req)?;
    let text = format!("{}\n{}", out.stdout.text(), out.stderr.text());
    match v.parse_version(&text) {
        Some(ver) => Ok(ver),
        None => bail!(
            "no version in the output of `{}`: {:?}",
            v.version.text,
            text.trim().chars().take(120).collect::<String>()
        ),
    }
}
