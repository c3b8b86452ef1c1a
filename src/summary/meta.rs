//! The facts above the CPU summary: its title, the edition, where and when
//! it was measured, how to read it, and the sessions.

use std::collections::BTreeSet;

use super::Summary;
use langbench_document::thousands;

impl Summary {
    pub(crate) fn sizes_text(&self) -> String {
        self.benches
            .iter()
            .map(|(b, n)| format!("{b} N={}", thousands(*n)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The page's title: edition, sizes and dates.
    pub(crate) fn title(&self) -> String {
        let size = match self.size.as_str() {
            "2020" | "2021" => format!("{} sizes", self.size),
            "" => String::new(),
            s => format!("size {s}"),
        };
        let mut t = if self.published {
            format!("langbench {} edition (as published)", self.edition)
        } else {
            format!("langbench {} edition", self.edition)
        };
        if !size.is_empty() {
            t.push_str(&format!(", {size}"));
        }
        if let Some(d) = self.dates() {
            t.push_str(&format!(", measured {d}"));
        }
        t
    }

    /// `2026-11-30 to 2026-12-01` (or one day).
    fn dates(&self) -> Option<String> {
        let (a, b) = (self.measured_from.as_deref()?, self.measured_to.as_deref()?);
        let (a, b) = (a.get(..10)?, b.get(..10)?);
        Some(if a == b {
            a.to_string()
        } else {
            format!("{a} to {b}")
        })
    }

    /// Facts shown above the table: what edition, measured where, when and
    /// with what, and how to read it.
    pub(super) fn meta(&self) -> Vec<(String, String)> {
        let mut meta = self.edition_facts();
        meta.extend(self.machine_facts());
        meta.extend(self.reading_facts());
        meta.extend(self.precision_facts());
        meta
    }

    /// The edition and its sizes; as published (and from where) or when
    /// it was measured; by which langbench.
    fn edition_facts(&self) -> Vec<(String, String)> {
        let mut meta = Vec::new();
        meta.push((
            "Edition".into(),
            format!(
                "{}{}; sizes: {}",
                self.edition,
                if self.published { " (published)" } else { "" },
                self.sizes_text()
            ),
        ));
        if self.published {
            meta.push((
                "Figures".into(),
                format!(
                    "as published (measured by hand with /usr/bin/time on the machine below, \
                     published best of {}; did-not-finish runs are shown as such, not as \
                     times); no per-run figures were published, so no spread is shown",
                    self.published_runs.unwrap_or(3)
                ),
            ));
            if let Some(s) = &self.source {
                meta.push(("Source".into(), s.clone()));
            }
        } else if let Some(d) = self.dates() {
            meta.push((
                "Measured".into(),
                format!(
                    "{d} (UTC), in {} session{} (listed below)",
                    self.sessions.len(),
                    if self.sessions.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        if !self.langbench.is_empty() {
            meta.push((
                "langbench".into(),
                format!(
                    "{}{}",
                    self.langbench.join(", "),
                    if self.langbench.iter().any(|v| v.contains('(')) {
                        ""
                    } else {
                        " (revision not recorded)"
                    }
                ),
            ));
        }
        meta
    }

    /// The machine most rows ran on, the others, and its kernels.
    fn machine_facts(&self) -> Vec<(String, String)> {
        let mut meta = Vec::new();
        let Some(main) = self.main_machine else {
            return meta;
        };
        let m = &self.machines[main];
        let rows_on = |i: usize| self.rows.iter().filter(|r| r.machine == Some(i)).count();
        meta.push((
            "Machine".into(),
            if self.machines.len() > 1 {
                format!("{} ({} rows)", m.hardware(), rows_on(main))
            } else {
                m.hardware()
            },
        ));
        let others: Vec<String> = (0..self.machines.len())
            .filter(|&i| i != main)
            .map(|i| {
                format!(
                    "#{} {} ({} rows)",
                    i + 1,
                    self.machines[i].hardware(),
                    rows_on(i)
                )
            })
            .collect();
        if !others.is_empty() {
            meta.push((
                "Other machines".into(),
                format!(
                    "DIFFERENT HARDWARE: {}; these rows are marked in the Machine column \
                     and compare fairly only with rows of their own machine",
                    others.join("; ")
                ),
            ));
        }
        meta.extend(self.kernel_fact());
        meta
    }

    /// The kernel: the builds of one machine's kernel where they differ
    /// (not other machines), else the one kernel of a measured edition.
    fn kernel_fact(&self) -> Option<(String, String)> {
        let kernels: Vec<String> = (0..self.machines.len())
            .filter_map(|i| {
                let k: BTreeSet<&str> = self
                    .sessions
                    .iter()
                    .filter(|s| s.machine == i && !s.kernel.is_empty())
                    .map(|s| s.kernel.as_str())
                    .collect();
                (k.len() > 1).then(|| {
                    format!(
                        "{} ran kernels {}",
                        if self.machines.len() > 1 {
                            format!("#{}", i + 1)
                        } else {
                            "the machine".into()
                        },
                        k.into_iter().collect::<Vec<_>>().join(", ")
                    )
                })
            })
            .collect();
        let one_kernel: BTreeSet<&str> = self
            .sessions
            .iter()
            .filter(|s| !s.kernel.is_empty())
            .map(|s| s.kernel.as_str())
            .collect();
        if !kernels.is_empty() {
            Some((
                "Kernel".into(),
                format!(
                    "{}: builds of one kernel (a VM's build string changes between boots), \
                     not counted as other machines",
                    kernels.join("; ")
                ),
            ))
        } else if one_kernel.len() == 1 && !self.published {
            Some((
                "Kernel".into(),
                format!(
                    "Linux {}",
                    one_kernel.into_iter().next().unwrap_or_default()
                ),
            ))
        } else {
            None
        }
    }

    /// How to read the table: what a time is, the rank, the noise.
    fn reading_facts(&self) -> Vec<(String, String)> {
        let mut meta = Vec::new();
        meta.push((
            "Time".into(),
            if self.published {
                "wall seconds of build + run (`Real` of /usr/bin/time), best of 3 runs; \
                 RAM: its `Maximum resident set size` in KB"
            } else {
                "wall seconds of build + run, best of N runs (the range after a figure: its \
                 fastest to slowest run); CPU: user + system seconds of that run; RAM: peak \
                 RSS in KB (`wait4` rusage, as `/usr/bin/time %M`)"
            }
            .into(),
        ));
        meta.push((
            "Rank".into(),
            if self.ranks_normalised() {
                format!(
                    "by normalised total among complete rows: a row's rank is 1 + the number of \
                     rows certainly faster than it, and = marks a row that cannot be told apart \
                     from another. Certainly faster: its band ends before the other's begins, a \
                     band being the row's normalised runs' range (the sums of its cells' \
                     fastest and slowest normalised runs){}. Rows are judged pair by pair, never \
                     against a group's first row, so a chain of close rows climbs a place at a \
                     time. Rows with a failed, timed-out or missing cell have no total \
                     (\"partial\") and no rank",
                    if self.ranking.trusted().is_some() {
                        ", widened by the row's precision (see Rank precision): two rows of \
                         precision p tie when less than p apart"
                    } else {
                        ""
                    }
                )
            } else {
                "by total time among complete rows: a row's rank is 1 + the number of rows \
                 whose slowest runs added up are faster than its total, and = marks a row \
                 whose range of runs overlaps another's: these runs do not tell them apart. \
                 Rows with a failed, timed-out or missing cell have no total (\"partial\") and \
                 no rank"
                    .into()
            },
        ));
        if !self.published {
            meta.push(("Noise".into(), self.noise_text()));
        }
        meta
    }

    fn noise_text(&self) -> String {
        let cold = self
            .rows
            .iter()
            .flat_map(|r| r.cells.values())
            .any(|c| !c.cold_left_out.is_empty());
        format!(
            "a cell whose runs spread more than {:.1}% (coefficient of variation) is marked \
             noisy; spread figures are in the CSV, JSON and spreadsheet{}",
            self.noise_cv * 100.0,
            if cold {
                "; a run that started cold (nothing of its program in the toolchain caches \
                 yet: empty caches, or the program's first run with them) measures their \
                 warm-up, not noise: where a cell has two warm runs, its cold ones are left \
                 out of its spread, range, noisy flag and shared ranks (one can still be its \
                 figure)"
            } else {
                ""
            }
        )
    }

    /// Facts a reader opens on demand: the sessions.
    pub(crate) fn details(&self) -> Vec<(String, String)> {
        self.sessions
            .iter()
            .map(|s| {
                let mut text = format!(
                    "started {}, langbench {}, machine #{}{}: {} cell{} ({}); `{}`",
                    s.started_at,
                    s.langbench,
                    s.machine + 1,
                    if s.kernel.is_empty() {
                        String::new()
                    } else {
                        format!(" (kernel {})", s.kernel)
                    },
                    s.cells,
                    if s.cells == 1 { "" } else { "s" },
                    s.rows.join(", "),
                    s.command_line
                );
                if !s.warnings.is_empty() {
                    text.push_str(&format!("; machine not quiet: {}", s.warnings.join("; ")));
                }
                (format!("Session {}", s.id), text)
            })
            .collect()
    }
}
