//! Helpers for tests of the renderers, here and in the app (the
//! `testing` feature, which the app's dev-dependency turns on): a
//! spreadsheet read back by a real spreadsheet program.

use std::collections::HashMap;

/// A private LibreOffice profile that recalculates formulas of xlsx
/// files on load, or never does (then it shows the cached results).
pub struct Office {
    dir: tempfile::TempDir,
    soffice: std::path::PathBuf,
}

impl Office {
    pub fn new(recalc_on_load: bool) -> Office {
        let soffice = which::which("soffice").unwrap_or_else(|_| {
            panic!(
                "LibreOffice (`soffice`) is not on PATH: the xlsx tests open the \
                 workbook in it to check what a spreadsheet program reads \
                 (Debian: apt-get install libreoffice-calc)"
            )
        });
        let dir = tempfile::Builder::new()
            .prefix("lo-profile-")
            .tempdir()
            .unwrap();
        let user = dir.path().join("profile/user");
        std::fs::create_dir_all(&user).unwrap();
        // OOXMLRecalcMode: 0 always recalculate, 1 never, 2 ask.
        let mode = if recalc_on_load { 0 } else { 1 };
        std::fs::write(
            user.join("registrymodifications.xcu"),
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>{mode}</value></prop></item>
</oor:items>
"#
            ),
        )
        .unwrap();
        Office { dir, soffice }
    }

    /// Converts `files` (name, bytes) with LibreOffice; returns the
    /// output directory.
    pub fn convert(&self, files: &[(&str, &[u8])], to: &str, out: &str) -> std::path::PathBuf {
        let input = self.dir.path().join("in");
        let output = self.dir.path().join(out);
        std::fs::create_dir_all(&input).unwrap();
        let mut cmd = std::process::Command::new(&self.soffice);
        cmd.arg(format!(
            "-env:UserInstallation=file://{}",
            self.dir.path().join("profile").display()
        ))
        .args(["--headless", "--norestore", "--convert-to", to, "--outdir"])
        .arg(&output)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
        for (name, bytes) in files {
            let path = input.join(name);
            std::fs::write(&path, bytes).unwrap();
            cmd.arg(path);
        }
        let mut child = cmd.spawn().expect("start soffice");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(180);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                child.kill().ok();
                child.wait().ok();
                panic!("soffice did not finish converting within 180 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let done = child.wait_with_output().unwrap();
        assert!(
            done.status.success(),
            "soffice failed ({}): {}{}",
            done.status,
            String::from_utf8_lossy(&done.stdout),
            String::from_utf8_lossy(&done.stderr)
        );
        output
    }

    /// Every sheet of each file as CSV with raw (unformatted) values:
    /// (file stem, sheet name) -> rows.
    pub fn csv_sheets(
        &self,
        files: &[(&str, &[u8])],
    ) -> HashMap<(String, String), Vec<Vec<String>>> {
        // Tokens: separator, quote, charset, first line, column formats,
        // language, quote all text, detect special numbers, save as
        // shown (no: raw values), formulas (no), remove space, sheets
        // (-1: all, one file each).
        let out = self.convert(
            files,
            "csv:Text - txt - csv (StarCalc):44,34,UTF8,1,,0,false,true,false,false,false,-1",
            "csv",
        );
        let mut sheets = HashMap::new();
        for entry in std::fs::read_dir(&out).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let stem = files
                .iter()
                .map(|(f, _)| f.trim_end_matches(".xlsx"))
                .find(|s| name.starts_with(&format!("{s}-")))
                .unwrap_or_else(|| panic!("unexpected output {name}"));
            let sheet = name[stem.len() + 1..].to_string();
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_path(&path)
                .unwrap();
            let rows = reader
                .records()
                .map(|r| r.unwrap().iter().map(String::from).collect())
                .collect();
            sheets.insert((stem.to_string(), sheet), rows);
        }
        sheets
    }

    /// Each file as flat OpenDocument XML (values, displayed text,
    /// formulas, notes, cell styles): file stem -> XML.
    pub fn fods(&self, files: &[(&str, &[u8])]) -> HashMap<String, String> {
        let out = self.convert(files, "fods", "fods");
        files
            .iter()
            .map(|(f, _)| {
                let stem = f.trim_end_matches(".xlsx");
                let path = out.join(format!("{stem}.fods"));
                let xml = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                (stem.to_string(), xml)
            })
            .collect()
    }
}
