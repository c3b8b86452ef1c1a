//! `langbench system show`: what makes this machine noisy, as pyperf's
//! `system show` reports it (issue #60): the machine, then every fact of
//! the host (`host`: virtual machine and hypervisor, CPU and microcode,
//! governor, steal, load, busy processes, memory, swap, transparent huge
//! pages, free page reporting, virtio-mem, DAMON, KSM, vm settings, ASLR),
//! each with its verdict and why, then what a session started now would
//! warn about. The same check every `run`, `reproduce` and `ws` session
//! makes and stores (`hygiene`). Read only: it changes nothing.

use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use crate::host::Verdict;
use crate::hygiene::Hygiene;
use crate::machine::Machine;

/// How `system show` prints.
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
    let t = crate::inert::text;
    let mut out = format!(
        "Machine: {}\nWhat may make measurements on it noisy (read only: nothing was changed):\n\n",
        t(&machine.describe())
    );
    let width = hygiene
        .host
        .iter()
        .map(|f| f.name.len())
        .max()
        .unwrap_or(0);
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
        assert!(text.contains("\nok             thp       thp value\n"), "{text}");
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
