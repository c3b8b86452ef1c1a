//! Spreadsheet-ready CSV: one header row, plain numbers (seconds, KB), no
//! thousands separators.

use anyhow::Result;

use crate::report::Summary;
use crate::spawn::Exit;
use crate::store::Stored;

/// The table: the editions' columns (language, command_flags, version,
/// `<bench>_s`, `<bench>_rss_kb`, ..., total_s, total_rss_kb) plus a status
/// per benchmark and whether the row is complete. Cells without figures are
/// empty.
pub fn summary(s: &Summary) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec![
        "language".to_string(),
        "command_flags".into(),
        "version".into(),
        "variant".into(),
        "size".into(),
    ];
    for (b, _) in &s.benches {
        let b = b.name().replace('-', "_");
        header.push(format!("{b}_s"));
        header.push(format!("{b}_rss_kb"));
        header.push(format!("{b}_status"));
    }
    header.extend(["total_s".into(), "total_rss_kb".into(), "complete".into()]);
    w.write_record(&header)?;
    for row in &s.rows {
        let mut rec = vec![
            row.language.clone(),
            row.flags.clone(),
            row.version.clone(),
            row.variant.clone(),
            s.size.clone(),
        ];
        for (b, _) in &s.benches {
            match row.cells.get(b) {
                Some(c) => {
                    rec.push(c.wall_s().map(|w| format!("{w:.3}")).unwrap_or_default());
                    rec.push(c.rss_kb().map(|k| k.to_string()).unwrap_or_default());
                    rec.push(c.status.name().into());
                }
                None => rec.extend([String::new(), String::new(), "n/a".into()]),
            }
        }
        rec.push(format!("{:.3}", row.total_s()));
        rec.push(row.total_rss_kb().to_string());
        rec.push(row.complete().to_string());
        w.write_record(&rec)?;
    }
    Ok(w.into_inner()?)
}

/// Every stored run, with whether it is its cell's figure.
pub fn runs(stored: &Stored, s: &Summary) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "variant",
        "language",
        "command_flags",
        "version",
        "benchmark",
        "size",
        "n",
        "run",
        "wall_s",
        "user_s",
        "sys_s",
        "max_rss_kb",
        "build_wall_s",
        "exit_code",
        "signal",
        "status",
        "best",
        "session",
        "finished_at",
        "detail",
    ])?;
    for r in &stored.runs {
        let best = s
            .rows
            .iter()
            .find(|row| row.variant == r.variant)
            .and_then(|row| row.cells.get(&r.bench))
            .and_then(|c| c.best.as_ref())
            .is_some_and(|b| b.session == r.session && b.run == r.run && r.run > 0);
        let (code, signal) = match r.exit {
            Some(Exit::Exited(c)) => (c.to_string(), String::new()),
            Some(Exit::Signaled(s)) => (String::new(), s.to_string()),
            None => (String::new(), String::new()),
        };
        w.write_record([
            r.variant.clone(),
            r.language.clone(),
            r.flags.clone(),
            r.version.clone(),
            r.bench.name().to_string(),
            r.size.clone(),
            r.n.to_string(),
            r.run.to_string(),
            format!("{:.6}", r.wall_s),
            format!("{:.6}", r.user_s),
            format!("{:.6}", r.sys_s),
            r.max_rss_kb.to_string(),
            r.build_wall_s
                .map(|b| format!("{b:.6}"))
                .unwrap_or_default(),
            code,
            signal,
            r.status.name().to_string(),
            best.to_string(),
            r.session.clone(),
            r.finished_at.clone(),
            r.detail.clone().unwrap_or_default(),
        ])?;
    }
    Ok(w.into_inner()?)
}
