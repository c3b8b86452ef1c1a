//! The machine a run happened on, recorded with every session.
#![warn(missing_docs)]

use serde::{Deserialize, Serialize};

/// The hardware and system of a session ([`crate::record::SessionRecord`]);
/// for an imported edition what its publisher said, 0 or empty where it
/// said nothing.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Machine {
    /// `model name` of /proc/cpuinfo.
    pub cpu_model: String,
    /// Logical CPUs the kernel reports online.
    pub cpus: usize,
    /// CPUs this process may run on (cgroup / affinity), which is what a
    /// benchmark can actually use.
    pub usable_cpus: usize,
    /// `MemTotal` of /proc/meminfo, KB.
    pub memory_kb: u64,
    /// `PRETTY_NAME` of /etc/os-release.
    pub os: String,
    /// The kernel release (`uname -r`).
    pub kernel: String,
    /// The machine architecture (`uname -m`).
    pub arch: String,
    /// The host name (`uname -n`).
    pub hostname: String,
}

impl Machine {
    /// This machine.
    pub fn detect() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let field = |text: &str, key: &str| {
            text.lines()
                .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        };
        let cpu_model = field(&cpuinfo, "model name")
            .or_else(|| field(&cpuinfo, "Model"))
            .unwrap_or_else(|| "unknown".into());
        let cpus = cpuinfo
            .lines()
            .filter(|l| l.starts_with("processor"))
            .count()
            .max(1);
        let usable_cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let memory_kb = field(&meminfo, "MemTotal")
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        let os_release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
        let os = field(&os_release.replace('=', ":"), "PRETTY_NAME")
            .map(|v| v.trim_matches('"').to_string())
            .unwrap_or_else(|| std::env::consts::OS.into());
        // SAFETY: uname fills the struct we own.
        let uts = unsafe {
            let mut u: libc::utsname = std::mem::zeroed();
            libc::uname(&mut u);
            u
        };
        let cstr = |b: &[libc::c_char]| {
            let bytes: Vec<u8> = b
                .iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as u8)
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        };
        Machine {
            cpu_model,
            cpus,
            usable_cpus,
            memory_kb,
            os,
            kernel: cstr(&uts.release),
            arch: cstr(&uts.machine),
            hostname: cstr(&uts.nodename),
        }
    }

    /// One line for the top of a report. A published edition's machine
    /// leaves out what its publisher did not say (0 or empty).
    pub fn describe(&self) -> String {
        let mut parts = vec![if self.cpus > 0 {
            format!(
                "{} ({} CPUs, {} usable)",
                self.cpu_model, self.cpus, self.usable_cpus
            )
        } else {
            self.cpu_model.clone()
        }];
        if self.memory_kb > 0 {
            parts.push(format!(
                "{:.1} GiB RAM",
                self.memory_kb as f64 / 1024.0 / 1024.0
            ));
        }
        parts.push(self.os.clone());
        if !self.kernel.is_empty() {
            parts.push(format!("Linux {} {}", self.kernel, self.arch));
        }
        parts.retain(|p| !p.is_empty());
        parts.join(", ")
    }

    /// The hardware and system without the kernel build: what
    /// [`Machine::same_as`] compares, for a machine that booted several
    /// kernel builds.
    pub fn hardware(&self) -> String {
        Machine {
            kernel: String::new(),
            ..self.clone()
        }
        .describe()
    }

    /// The CPU model without trademarks and filler (`Intel Xeon`), for a
    /// table cell.
    pub fn short(&self) -> String {
        let mut m = self.cpu_model.clone();
        for junk in [
            "(R)",
            "(r)",
            "(TM)",
            "(tm)",
            " Processor",
            " processor",
            " CPU",
        ] {
            m = m.replace(junk, "");
        }
        let m = m.split('@').next().unwrap_or("").trim();
        m.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Whether two machines are the same for measuring: what determines
    /// performance (CPU model, CPU count, memory, OS, architecture) is
    /// equal; host names aside, and the kernel build aside too (a VM's
    /// kernel build string can change on every boot of the same machine:
    /// [`Machine::kernel_differs`] notes it instead). Memory counts as equal
    /// within 2% (the kernel's own reservation moves `MemTotal` a little
    /// between boots).
    pub fn same_as(&self, other: &Machine) -> bool {
        let (a, b) = (self.memory_kb as f64, other.memory_kb as f64);
        let memory = a == b || (a - b).abs() <= 0.02 * a.max(b);
        memory
            && (&self.cpu_model, self.cpus, &self.os, &self.arch)
                == (&other.cpu_model, other.cpus, &other.os, &other.arch)
    }

    /// The same machine with another kernel build: noted, not counted as
    /// another machine.
    pub fn kernel_differs(&self, other: &Machine) -> bool {
        self.same_as(other) && self.kernel != other.kernel
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn detects_this_machine() {
        let m = super::Machine::detect();
        assert!(m.cpus >= 1 && m.usable_cpus >= 1);
        assert!(m.memory_kb > 0);
        assert!(!m.kernel.is_empty());
        assert_eq!(m.arch, std::env::consts::ARCH);
    }

    #[test]
    fn a_kernel_build_is_not_another_machine() {
        let a = crate::testing::machine();
        let rebooted = super::Machine {
            kernel: "6.12.0-fc-v857".into(),
            memory_kb: a.memory_kb - 400,
            hostname: "other".into(),
            ..a.clone()
        };
        assert!(a.same_as(&rebooted));
        assert!(a.kernel_differs(&rebooted));
        assert!(!a.kernel_differs(&a));
        let other_cpu = super::Machine {
            cpu_model: "AMD EPYC".into(),
            ..a.clone()
        };
        assert!(!a.same_as(&other_cpu));
        let half_memory = super::Machine {
            memory_kb: a.memory_kb / 2,
            ..a.clone()
        };
        assert!(!a.same_as(&half_memory));
        assert!(!a.hardware().contains("6.12.0"), "{}", a.hardware());
    }
}
