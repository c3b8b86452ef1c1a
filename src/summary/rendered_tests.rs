//! The renderers (crates/document) on real summaries: what the app's
//! records become in a spreadsheet LibreOffice sorts, and in a terminal
//! of several widths. Here rather than in the crate, whose tests cannot
//! build the app's records (issue #61: the crate never depends on the
//! app).

/// The spreadsheet of real summaries, sorted and read back by LibreOffice.
mod xlsx_sorting {
    use std::path::Path;

    use crate::bench::Bench::{self, Assoc, NumComb, StrComb};
    use crate::record::{RunRecord, SessionRecord, Status};
    use crate::store::{Store, Stored};
    use crate::summary::Summary;
    use crate::testing::{run, session, variant};
    use langbench_document::Document;
    use langbench_document::export::Exporter;
    use langbench_document::export::xlsx::Xlsx;

    /// One cell as LibreOffice holds it: type (EMPTY, VALUE, TEXT,
    /// FORMULA), value, text.
    type LoCell = (String, f64, String);

    /// `sheet` of `xlsx` sorted by LibreOffice itself (UNO, Data > Sort
    /// with a header row) by the column headed `column`, read back.
    fn lo_sorted(xlsx: &[u8], sheet: &str, column: &str, order: &str) -> Vec<Vec<LoCell>> {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path().join("book.xlsx");
        std::fs::write(&book, xlsx).unwrap();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lo_sort.py");
        // The system Python: LibreOffice's `uno` module is installed for it
        // (python3-uno), not for a pyenv or venv python3 earlier on PATH.
        let out = std::process::Command::new("/usr/bin/python3")
            .arg(&script)
            .arg(&book)
            .args([sheet, column, order])
            .arg(dir.path().join("profile"))
            .output()
            .expect("/usr/bin/python3 with LibreOffice's uno (apt-get install python3-uno)");
        assert!(
            out.status.success(),
            "lo_sort.py failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn cell(s: &str, id: &str, b: Bench, walls: &[f64], status: Status) -> Vec<RunRecord> {
        walls
            .iter()
            .enumerate()
            .map(|(i, w)| {
                run(id, b)
                    .session(s)
                    .size("2021", 1000)
                    .nth(i as u32 + 1)
                    .wall(*w)
                    .status(status)
                    .record()
            })
            .collect()
    }

    /// Every kind of row: complete ones (one slower than the partial sums
    /// below), partial ones whose cells that ran are fast (the rows the old
    /// sheet sorted first), a timeout, a failure, one not installed, one
    /// selected but never started.
    fn synthetic() -> Stored {
        let all = [Assoc, NumComb, StrComb];
        let ids = [
            "fast", "slow", "node", "fortran", "r", "dead", "dart", "later",
        ];
        let s = SessionRecord {
            size: "2021".into(),
            variants: ids.iter().map(|id| variant(id, &all)).collect(),
            ..session("s1")
        };
        let mut runs = Vec::new();
        for b in all {
            runs.extend(cell("s1", "fast", b, &[1.0, 1.1, 1.05], Status::Ok));
            runs.extend(cell("s1", "slow", b, &[300.0, 301.0, 302.0], Status::Ok));
        }
        // node: assoc failed, the rest fast.
        runs.extend(cell("s1", "node", Assoc, &[0.1], Status::Failed));
        runs.extend(cell("s1", "node", NumComb, &[0.5, 0.5, 0.5], Status::Ok));
        runs.extend(cell("s1", "node", StrComb, &[0.6, 0.6, 0.6], Status::Ok));
        // fortran: num-comb wrong output (a time, flagged), the rest fast.
        runs.extend(cell("s1", "fortran", Assoc, &[0.3, 0.3, 0.3], Status::Ok));
        runs.extend(cell(
            "s1",
            "fortran",
            NumComb,
            &[0.2, 0.2, 0.2],
            Status::WrongOutput,
        ));
        runs.extend(cell("s1", "fortran", StrComb, &[0.2, 0.2, 0.2], Status::Ok));
        // r: assoc timed out at 1000 s: no time.
        runs.extend(cell("s1", "r", Assoc, &[1000.27], Status::Timeout));
        runs.extend(cell("s1", "r", NumComb, &[2.0, 2.0, 2.0], Status::Ok));
        runs.extend(cell("s1", "r", StrComb, &[3.0, 3.0, 3.0], Status::Ok));
        for b in all {
            runs.extend(cell("s1", "dead", b, &[0.1], Status::Crashed));
            runs.push(
                run("dart", b)
                    .session("s1")
                    .size("2021", 1000)
                    .nth(0)
                    .wall(0.0)
                    .status(Status::NotInstalled)
                    .record(),
            );
        }
        Stored {
            sessions: vec![s],
            runs: crate::testing::shared(runs),
            ..Default::default()
        }
    }

    fn document(stored: &Stored) -> Document {
        let s = Summary::from_stored(stored);
        let mut doc = s.document();
        doc.tables.push(crate::summary::runs::table(stored, &s));
        doc
    }

    /// The committed 2026 edition: real partial rows (node, deno, fortran),
    /// timeouts (R, haxe-js, deno-chained-map) and two machines.
    fn edition_2026() -> Stored {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/2026");
        Store::open(&dir).unwrap().load().unwrap()
    }

    fn column(rows: &[Vec<LoCell>], key: &str) -> usize {
        rows[0]
            .iter()
            .position(|c| c.2 == key)
            .unwrap_or_else(|| panic!("no column {key}"))
    }

    #[test]
    fn libreoffice_sorting_by_total_puts_every_partial_row_after_every_complete_one() {
        for (name, stored) in [("synthetic", synthetic()), ("results/2026", edition_2026())] {
            let doc = document(&stored);
            let xlsx = Xlsx.render(&doc).unwrap();
            for order in ["asc", "desc"] {
                let rows = lo_sorted(&xlsx, "Summary", "total_s", order);
                let (total, state) = (column(&rows, "total_s"), column(&rows, "row_status"));
                let body = &rows[1..];
                assert_eq!(body.len(), doc.tables[0].rows.len(), "{name}");
                let complete: Vec<bool> = body.iter().map(|r| r[state].2 == "complete").collect();
                let n = complete.iter().filter(|c| **c).count();
                assert!(
                    n > 1 && n < body.len(),
                    "{name}: {n} complete of {}",
                    body.len()
                );
                assert!(
                    complete[..n].iter().all(|c| *c) && complete[n..].iter().all(|c| !*c),
                    "{name} {order}: a partial row sorts among complete ones: {:?}",
                    body.iter()
                        .map(|r| format!("{} {}", r[state].2, r[total].2))
                        .collect::<Vec<_>>()
                );
                // Complete rows: numbers, in order; the others: empty.
                let totals: Vec<f64> = body[..n]
                    .iter()
                    .map(|r| {
                        assert!(matches!(r[total].0.as_str(), "VALUE" | "FORMULA"), "{r:?}");
                        r[total].1
                    })
                    .collect();
                let sorted = totals.windows(2).all(|w| {
                    if order == "asc" {
                        w[0] <= w[1]
                    } else {
                        w[0] >= w[1]
                    }
                });
                assert!(sorted, "{name} {order}: {totals:?}");
                for r in &body[n..] {
                    assert_eq!(r[total].0, "EMPTY", "{name}: {r:?}");
                }
            }
        }
    }

    /// Printed by LibreOffice (its own PDF export), the summary sheet shows
    /// the columns its page shows, up to `total_relative`: fitted into one
    /// page's width with its 36 data-only columns as well, the figures
    /// printed too small to read. Those columns stay in the sheet.
    #[test]
    fn libreoffice_prints_the_summary_as_its_page_shows_it() {
        let doc = document(&edition_2026());
        let xlsx = Xlsx.render(&doc).unwrap();
        let office = langbench_document::testing::Office::new(false);
        let pdf = office
            .convert(&[("book.xlsx", &xlsx)], "pdf", "pdf")
            .join("book.pdf");
        let pdftotext = |args: &[&str]| {
            let o = std::process::Command::new("pdftotext")
                .args(args)
                .arg(&pdf)
                .arg("-")
                .output()
                .expect("pdftotext is needed: apt-get install poppler-utils");
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            String::from_utf8(o.stdout).unwrap()
        };
        let first = pdftotext(&["-layout", "-f", "1", "-l", "1"]);
        assert!(first.contains(": Summary"), "{first}");
        let header = first
            .lines()
            .find(|l| l.trim_start().starts_with("language"))
            .unwrap_or_else(|| panic!("no header row on page 1:\n{first}"));
        for key in [
            "command_flags",
            "total_s",
            "rank",
            "total_cpu_s",
            "total_relative",
        ] {
            assert!(header.contains(key), "{key} not printed: {header}");
        }
        let all = pdftotext(&[]);
        for key in ["edition", "row_status", "str_comb_cv", "assoc_median_s"] {
            assert!(
                !all.lines().any(|l| l.split_whitespace().any(|w| w == key)),
                "data-only column {key} printed"
            );
        }
        // Every figure of the first row is on the printed page: the figures
        // the edition's summary.csv has for it (the edition is re-measured,
        // so they are read, not written here).
        let mut rows = csv::Reader::from_path(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("results/2026/summary.csv"),
        )
        .unwrap();
        let headers = rows.headers().unwrap().clone();
        let first_row = rows.records().next().unwrap().unwrap();
        let field = |key: &str| {
            let i = headers.iter().position(|h| h == key).unwrap();
            first_row[i].to_string()
        };
        let language = field("language");
        let total = format!("{:.3}", field("total_s").parse::<f64>().unwrap());
        let rss = langbench_document::thousands(field("total_rss_kb").parse().unwrap());
        let printed = first
            .lines()
            .find(|l| l.trim_start().starts_with(&language) && l.contains(&total))
            .unwrap_or_else(|| panic!("no {language} row with total {total}:\n{first}"));
        assert!(printed.contains(&rss), "{rss}: {printed}");
        // Not printed, but in the sheet.
        let sheets = office.csv_sheets(&[("book.xlsx", &xlsx)]);
        let summary = &sheets[&("book".to_string(), "Summary".to_string())];
        assert!(
            summary[0].iter().any(|h| h == "str_comb_cv"),
            "{:?}",
            summary[0]
        );
    }

    #[test]
    fn libreoffice_finds_no_text_in_a_numeric_column() {
        for (name, stored) in [("synthetic", synthetic()), ("results/2026", edition_2026())] {
            let doc = document(&stored);
            let xlsx = Xlsx.render(&doc).unwrap();
            for (id, sheet) in [("summary", "Summary"), ("runs", "Runs")] {
                let table = doc.tables.iter().find(|t| t.id == id).unwrap();
                let rows = lo_sorted(&xlsx, sheet, "language", "asc");
                let cols = table.data_columns();
                assert_eq!(rows[0].len(), cols.len(), "{name} {sheet}");
                let mut numbers = 0;
                for (x, &c) in cols.iter().enumerate() {
                    let column = &table.columns[c];
                    if !column.kind.is_numeric() {
                        continue;
                    }
                    for r in &rows[1..] {
                        assert!(
                            matches!(r[x].0.as_str(), "EMPTY" | "VALUE" | "FORMULA"),
                            "{name} {sheet}: text {:?} in numeric column {}",
                            r[x].2,
                            column.key
                        );
                        numbers += usize::from(r[x].0 != "EMPTY");
                    }
                }
                assert!(numbers > 0, "{name} {sheet}: no numbers at all");
            }
        }
    }
}

/// The terminal table of a real summary, at several widths.
mod terminal_fit {
    use crate::bench::Bench;
    use crate::record::Status;
    use crate::store::Stored;
    use crate::summary::Summary;
    use crate::testing;
    use langbench_document::export::terminal::*;
    use langbench_document::*;

    fn summary() -> Document {
        let mut runs = Vec::new();
        for (v, flags, version) in [
            ("c-gcc", "gcc -O2", "12.2.0"),
            (
                "graaljs",
                "polyglot --jvm --js --engine.Mode=throughput",
                "GraalVM CE 25.0.1+8.1 (runtime: GraalVM CE, JIT)",
            ),
        ] {
            for b in Bench::CPU {
                let mut r = testing::run(v, b).wall(123.456).rss(2_454_372).record();
                r.flags = flags.into();
                r.version = version.into();
                runs.push(r);
            }
        }
        runs.push(
            testing::run("slow", Bench::Assoc)
                .wall(1000.0)
                .status(Status::Timeout)
                .into(),
        );
        Summary::from_stored(&Stored {
            runs: crate::testing::shared(runs),
            ..Default::default()
        })
        .document()
    }

    #[test]
    fn the_full_table_where_it_fits_a_compact_one_where_not() {
        let doc = summary();
        let full = document(&doc);
        assert!(display_width(&full) > 150, "{full}");
        assert!(full.contains("assoc RAM (KB)") && full.contains("2,454,372"));
        for w in [160, 120, 100, 80, 60] {
            let fit = document_fit(&doc, Some(w));
            for line in fit.lines() {
                assert!(
                    textwrap::core::display_width(line) <= w,
                    "{w}: {line:?}\n{fit}"
                );
            }
            assert!(fit.contains("C-gcc"), "{fit}");
        }
        // First RAM in MB and long texts cut, then each benchmark's RAM
        // goes (the total stays).
        let at160 = document_fit(&doc, Some(160));
        assert!(!at160.contains("(KB)"), "{at160}");
        assert!(
            at160.contains("polyglot --jvm --js --engine.Mode=throughput"),
            "the flags, which tell the rows apart, are never cut: {at160}"
        );
        assert!(
            at160.contains("GraalVM CE") && !at160.contains("JIT)"),
            "the long version cut: {at160}"
        );
        assert!(!at160.contains("(s)"), "{at160}");
        assert!(
            at160.contains("TIMEOUT ") && !at160.contains("TIMEOUT >"),
            "{at160}"
        );
        let at100 = document_fit(&doc, Some(100));
        assert!(
            !at100.contains("assoc MB") && at100.contains("Total MB"),
            "{at100}"
        );
        assert!(at100.contains("7,191"), "{at100}");
        let wide = document_fit(&doc, Some(10_000));
        assert_eq!(wide, full, "a wide enough terminal gets every column");
    }
}
