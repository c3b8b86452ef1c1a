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

    /// Whether two machines are the same hardware and system (host names
    /// aside): only then do their figures compare directly.
    pub fn same_as(&self, other: &Machine) -> bool {
        (
            &self.cpu_model,
            self.cpus,
            self.memory_kb / (1024 * 1024),
            &self.os,
            &self.kernel,
            &self.arch,
        ) == (
            &other.cpu_model,
            other.cpus,
            other.memory_kb / (1024 * 1024),
            &other.os,
            &other.kernel,
            &other.arch,
        )
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
}
