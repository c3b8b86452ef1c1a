//! `langbench system show`: what makes this machine noisy, as pyperf's
//! `system show` reports it (issue #60): the machine, then every fact of
//! the host (`host`: virtual machine and hypervisor, CPU and microcode,
//! governor, steal, load, busy processes, memory, swap, transparent huge
//! pages, free page reporting, virtio-mem, DAMON, KSM, vm settings, ASLR),
//! each with its verdict and why, then what a session started now would
//! warn about. The same check every `run`, `reproduce` and `ws` session
//! makes and stores (`hygiene`). Read only: it changes nothing.
//!
//! `langbench system probe`: the memory probe (`mem_probe`) on demand,
//! in a row or after a pause, with or without warming first: what `run`
//! stores before its memory-heavy runs, and the experiment that decides
//! whether warming helps.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use serde::Serialize;

use crate::host::Verdict;
use crate::hygiene::Hygiene;
use crate::machine::Machine;
use crate::mem_probe::MemProbe;
use langbench_document::thousands;

/// How `system show` and `system probe` print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Lines for a person.
    Text,
    /// One JSON document.
    Json,
}

/// What `system show --format json` prints.
#[derive(Serialize)]
struct Shown<'a> {
    machine: &'a Machine,
    /// Every fact with its verdict (`ok`, `may-add-noise`, `unknown`).
    facts: &'a [crate::host::Fact],
    /// What a session started now would warn about (not quiet).
    warnings: &'a [String],
}

/// `langbench system show`.
pub fn show_command(format: Format) -> Result<ExitCode> {
    let machine = Machine::detect();
    let hygiene = crate::hygiene::check();
    match format {
        Format::Json => {
            let shown = Shown {
                machine: &machine,
                facts: &hygiene.host,
                warnings: &hygiene.warnings,
            };
            println!("{}", serde_json::to_string_pretty(&shown)?);
        }
        Format::Text => print!("{}", show_text(&machine, &hygiene)),
    }
    Ok(ExitCode::SUCCESS)
}

/// `system show`'s text: the machine, each fact (a line, and under it
/// why it may add noise or is unknown), then the verdict in a sentence.
fn show_text(machine: &Machine, hygiene: &Hygiene) -> String {
    let t = langbench_document::inert::text;
    let mut out = format!(
        "Machine: {}\nWhat may make measurements on it noisy (read only: nothing was changed):\n\n",
        t(&machine.describe())
    );
    let width = hygiene.host.iter().map(|f| f.name.len()).max().unwrap_or(0);
    for f in &hygiene.host {
        let mark = match f.verdict {
            Verdict::Ok => "ok           ",
            Verdict::MayAddNoise => "may add noise",
            Verdict::Unknown => "unknown      ",
        };
        out.push_str(&format!(
            "{mark}  {:width$}  {}\n",
            f.name,
            t(&f.value),
            width = width
        ));
        if f.verdict != Verdict::Ok {
            // Under the value: the mark's 13 columns, the name's, and
            // the two gaps.
            let pad = 13 + 2 + width + 2;
            out.push_str(&format!("{:pad$}({})\n", "", t(&f.why)));
        }
    }
    let noisy: Vec<&str> = hygiene
        .host
        .iter()
        .filter(|f| f.verdict == Verdict::MayAddNoise)
        .map(|f| f.name.as_str())
        .collect();
    out.push('\n');
    out.push_str(&if noisy.is_empty() {
        "Nothing here may add noise.\n".to_string()
    } else {
        format!(
            "{} of {} may add noise: {}.\n",
            noisy.len(),
            hygiene.host.len(),
            noisy.join(", ")
        )
    });
    if hygiene.warnings.is_empty() {
        out.push_str("The machine is quiet now: a session started now would warn of nothing.\n");
    } else {
        out.push_str("A session started now would warn:\n");
        for w in &hygiene.warnings {
            out.push_str(&format!("  - {}\n", t(w)));
        }
    }
    out
}

/// What `system probe` was asked.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// MiB each probe touches.
    pub mib: u64,
    /// How many probes.
    pub count: u32,
    /// Before each probe, wait this long (the memory freed before then
    /// may be reported to the host meanwhile).
    pub pause: Duration,
    /// Before each probe (after the pause), touch and free this many MiB:
    /// the host's backing warmed.
    pub warm_mib: Option<u64>,
    pub format: Format,
}

/// One probe of `system probe`, and the warming before it.
#[derive(Serialize)]
struct Probed {
    probe: MemProbe,
    gb_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    warm: Option<MemProbe>,
}

/// `langbench system probe`: `count` probes, each after the pause and the
/// warming asked, one line each, then their median, fastest and slowest.
pub fn probe_command(opts: &ProbeOptions) -> Result<ExitCode> {
    anyhow::ensure!(
        opts.mib > 0 && opts.count > 0,
        "--mib and --count must be at least 1"
    );
    let mut all = Vec::new();
    for i in 1..=opts.count {
        std::thread::sleep(opts.pause);
        let warm = match opts.warm_mib {
            Some(w) => Some(crate::mem_probe::probe(w)?),
            None => None,
        };
        let probe = crate::mem_probe::probe(opts.mib)?;
        if opts.format == Format::Text {
            println!(
                "probe {i}: {} MiB touched in {:.3} s, {:.2} GB/s, {} minor faults, freed in {:.3} s{}",
                probe.mib,
                probe.touch_s,
                probe.gb_s(),
                thousands(probe.minor_faults),
                probe.free_s,
                warm.map_or(String::new(), |w| format!(
                    " (after warming {} MiB at {:.2} GB/s)",
                    w.mib,
                    w.gb_s()
                ))
            );
        }
        all.push(Probed {
            probe,
            gb_s: probe.gb_s(),
            warm,
        });
    }
    let mut rates: Vec<f64> = all.iter().map(|p| p.gb_s).collect();
    rates.sort_by(f64::total_cmp);
    let n = rates.len();
    let median = if n % 2 == 1 {
        rates[n / 2]
    } else {
        (rates[n / 2 - 1] + rates[n / 2]) / 2.0
    };
    match opts.format {
        Format::Text => println!(
            "{n} probe{}: median {median:.2} GB/s, fastest {:.2}, slowest {:.2}",
            if n == 1 { "" } else { "s" },
            rates[n - 1],
            rates[0]
        ),
        Format::Json => println!("{}", serde_json::to_string_pretty(&all)?),
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Fact;

    /// Each fact on a line, its why under it when it is not ok, the
    /// noisy ones named in the closing sentence, the warnings listed.
    #[test]
    fn show_text_says_each_verdict_and_why() {
        let fact = |key: &str, verdict: Verdict, why: &str| Fact {
            key: key.into(),
            name: key.into(),
            value: format!("{key} value"),
            verdict,
            why: why.into(),
        };
        let hygiene = Hygiene {
            host: vec![
                fact("thp", Verdict::Ok, ""),
                fact("balloon", Verdict::MayAddNoise, "hands memory back"),
                fact("governor", Verdict::Unknown, "no cpufreq"),
            ],
            warnings: vec!["load average 3.00 on 2 CPUs".into()],
            ..Default::default()
        };
        let text = show_text(&crate::testing::machine(), &hygiene);
        assert!(text.starts_with("Machine: Test CPU"), "{text}");
        assert!(
            text.contains("\nok             thp       thp value\n"),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "\nmay add noise  balloon   balloon value\n{:25}(hands memory back)\n",
                ""
            )),
            "{text}"
        );
        assert!(
            text.contains("\nunknown        governor  governor value\n"),
            "{text}"
        );
        assert!(text.contains("1 of 3 may add noise: balloon."), "{text}");
        assert!(text.contains("  - load average 3.00 on 2 CPUs"), "{text}");
    }
}
