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
    /// What the CPU is beyond its name: vendor, family, model number and
    /// stepping of /proc/cpuinfo (on Arm: implementer, part, variant,
    /// revision) and the size of its last-level cache, as
    /// `AuthenticAMD family 25 model 17 stepping 1, L3 32768K`. A virtual
    /// machine can mask the name to a brand (`AMD EPYC` on hosts of
    /// several generations); these numbers still tell the hosts apart.
    /// Empty in sessions recorded before it and in imported editions:
    /// unknown, and then not compared.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cpu_id: String,
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
    /// The kernel's boot id (/proc/sys/kernel/random/boot_id): sessions
    /// with the same one ran in the same boot, so a reproducibility check's
    /// level (another sitting of one boot, another boot) is known from its
    /// records, not from its name. Empty in sessions recorded before it and
    /// in imported editions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub boot_id: String,
    /// The hypervisor it runs under (`kvm`, `microsoft`, `xen`, ...: the
    /// names of systemd-detect-virt), `none` on bare metal: from the CPU's
    /// hypervisor signature (CPUID), the DMI vendor, /proc/cpuinfo's
    /// `hypervisor` flag. A virtual machine's CPUs are vCPUs the host
    /// schedules among its guests', and its memory is the host's to back.
    /// Empty in sessions recorded before it, in imported editions and
    /// where nothing says: unknown. Not part of [`Machine::same_as`].
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub virtualization: String,
}

impl Machine {
    /// This machine.
    pub(crate) fn detect() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = field(&cpuinfo, "model name")
            .or_else(|| field(&cpuinfo, "Model"))
            .unwrap_or_else(|| "unknown".into());
        let cpu_id = cpu_id(&cpuinfo, last_level_cache());
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
            cpu_id,
            cpus,
            usable_cpus,
            memory_kb,
            os,
            kernel: cstr(&uts.release),
            arch: cstr(&uts.machine),
            hostname: cstr(&uts.nodename),
            boot_id: std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
                .map(|b| b.trim().to_string())
                .unwrap_or_default(),
            virtualization: crate::host::Host::quick().hypervisor().unwrap_or_default(),
        }
    }

    /// The hypervisor, where the machine is known to be a virtual one.
    pub(crate) fn hypervisor(&self) -> Option<&str> {
        Some(self.virtualization.as_str()).filter(|v| !v.is_empty() && *v != "none")
    }

    /// One line for the top of a report. A published edition's machine
    /// leaves out what its publisher did not say (0 or empty).
    pub(crate) fn describe(&self) -> String {
        let model = if self.cpu_id.is_empty() {
            self.cpu_model.clone()
        } else {
            format!("{} [{}]", self.cpu_model, self.cpu_id)
        };
        let mut parts = vec![match (self.cpus, self.hypervisor()) {
            (0, _) => model,
            (n, Some(h)) => format!(
                "{model} (a {h} virtual machine: {n} vCPUs, {} usable)",
                self.usable_cpus
            ),
            (n, None) => format!("{model} ({n} CPUs, {} usable)", self.usable_cpus),
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
    pub(crate) fn hardware(&self) -> String {
        Machine {
            kernel: String::new(),
            boot_id: String::new(),
            ..self.clone()
        }
        .describe()
    }

    /// The CPU model without trademarks and filler, with its family and
    /// model numbers where they were recorded (`Intel Xeon family 6 model
    /// 167`: a VM names several generations alike, issue #60), for a table
    /// cell.
    pub(crate) fn short(&self) -> String {
        let name = self.short_name();
        match self.family_model() {
            Some(fm) => format!("{name} {fm}"),
            None => name,
        }
    }

    /// `family 6 model 167` of [`Machine::cpu_id`] (x86); `None` where it
    /// does not say (Arm, older records).
    pub(crate) fn family_model(&self) -> Option<String> {
        let words: Vec<&str> = self.cpu_id.split([' ', ',']).collect();
        let after = |key: &str| {
            words
                .windows(2)
                .find(|w| w[0] == key)
                .map(|w| w[1].to_string())
        };
        Some(format!(
            "family {} model {}",
            after("family")?,
            after("model")?
        ))
    }

    /// The CPU model without trademarks and filler (`Intel Xeon`).
    fn short_name(&self) -> String {
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
    /// between boots). The CPU's identity numbers ([`Machine::cpu_id`])
    /// count where both sessions recorded them: two hosts a VM names
    /// alike are two machines when they differ.
    pub(crate) fn same_as(&self, other: &Machine) -> bool {
        let (a, b) = (self.memory_kb as f64, other.memory_kb as f64);
        let memory = a == b || (a - b).abs() <= 0.02 * a.max(b);
        let cpu_id =
            self.cpu_id.is_empty() || other.cpu_id.is_empty() || self.cpu_id == other.cpu_id;
        memory
            && cpu_id
            && (&self.cpu_model, self.cpus, &self.os, &self.arch)
                == (&other.cpu_model, other.cpus, &other.os, &other.arch)
    }

    /// Of two machines that are [`Machine::same_as`] each other, the one to
    /// name them by: one that recorded the CPU's identity (a session from
    /// before `cpu_id` matches any, and would name the machine by its brand
    /// alone), else this one.
    pub(crate) fn named_by<'a>(&'a self, other: &'a Machine) -> &'a Machine {
        if self.cpu_id.is_empty() && !other.cpu_id.is_empty() {
            other
        } else {
            self
        }
    }

    /// The same machine with another kernel build: noted, not counted as
    /// another machine.
    pub(crate) fn kernel_differs(&self, other: &Machine) -> bool {
        self.same_as(other) && self.kernel != other.kernel
    }
}

/// The value of a `key: value` line (/proc/cpuinfo, /proc/meminfo).
fn field(text: &str, key: &str) -> Option<String> {
    text.lines()
        .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// [`Machine::cpu_id`] from /proc/cpuinfo's first processor and the
/// last-level cache's size; empty when neither says anything.
fn cpu_id(cpuinfo: &str, cache: Option<String>) -> String {
    let first = cpuinfo.split("\n\n").next().unwrap_or("");
    let labelled = |keys: &[(&str, &str)]| -> Vec<String> {
        keys.iter()
            .filter_map(|(label, key)| Some(format!("{label} {}", field(first, key)?)))
            .collect()
    };
    let parts: Vec<String> = match field(first, "vendor_id") {
        Some(vendor) => std::iter::once(vendor)
            .chain(labelled(&[
                ("family", "cpu family"),
                ("model", "model"),
                ("stepping", "stepping"),
            ]))
            .collect(),
        None => labelled(&[
            ("implementer", "CPU implementer"),
            ("part", "CPU part"),
            ("variant", "CPU variant"),
            ("revision", "CPU revision"),
        ]),
    };
    let numbers = parts.join(" ");
    [numbers, cache.unwrap_or_default()]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The last-level cache of CPU 0 as sysfs names it (`L3 32768K`), the
/// highest `level` under /sys/devices/system/cpu/cpu0/cache.
fn last_level_cache() -> Option<String> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    let read = |p: std::path::PathBuf| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
    };
    dir.filter_map(|e| {
        let p = e.ok()?.path();
        let level: u32 = read(p.join("level"))?.parse().ok()?;
        let kind = read(p.join("type"))?;
        (kind != "Instruction").then_some((level, read(p.join("size"))?))
    })
    .max_by_key(|(level, _)| *level)
    .map(|(level, size)| format!("L{level} {size}"))
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

    /// A VM that names every host `AMD EPYC`: the family, model, stepping
    /// and cache tell two generations apart; a session that recorded none
    /// of it (older records, imports) is not told apart by them.
    #[test]
    fn hosts_named_alike_differ_by_their_cpu_numbers() {
        let genoa = super::Machine {
            cpu_model: "AMD EPYC".into(),
            cpu_id: "AuthenticAMD family 25 model 17 stepping 1, L3 32768K".into(),
            ..crate::testing::machine()
        };
        let milan = super::Machine {
            cpu_id: "AuthenticAMD family 25 model 1 stepping 1, L3 32768K".into(),
            ..genoa.clone()
        };
        let unknown = super::Machine {
            cpu_id: String::new(),
            ..genoa.clone()
        };
        assert!(!genoa.same_as(&milan));
        assert!(genoa.same_as(&genoa.clone()));
        assert!(genoa.same_as(&unknown) && unknown.same_as(&milan));
        assert!(
            genoa
                .hardware()
                .contains("AMD EPYC [AuthenticAMD family 25 model 17"),
            "{}",
            genoa.hardware()
        );
    }

    /// The Machine line says a virtual machine is one, with vCPUs; the
    /// short name tells two CPU models a VM names alike apart (the
    /// Xeon of the check, family 6 model 167, and the one of
    /// results/2026-rounds, model 207: issue #60).
    #[test]
    fn a_virtual_machine_says_so_and_its_cpu_model_is_told_apart() {
        let xeon = |model: u32| super::Machine {
            cpu_model: "Intel(R) Xeon(R) Processor".into(),
            cpu_id: format!("GenuineIntel family 6 model {model} stepping 1, L3 491520K"),
            cpus: 2,
            usable_cpus: 2,
            virtualization: "kvm".into(),
            ..crate::testing::machine()
        };
        let (a, b) = (xeon(167), xeon(207));
        assert_eq!(a.short(), "Intel Xeon family 6 model 167");
        assert_ne!(a.short(), b.short());
        let line = a.hardware();
        assert!(
            line.contains("(a kvm virtual machine: 2 vCPUs, 2 usable)"),
            "{line}"
        );
        let metal = super::Machine {
            virtualization: "none".into(),
            ..a.clone()
        };
        assert!(metal.hardware().contains("(2 CPUs, 2 usable)"));
        let unknown = super::Machine {
            virtualization: String::new(),
            cpu_id: String::new(),
            ..a.clone()
        };
        assert!(unknown.hardware().contains("(2 CPUs, 2 usable)"));
        assert_eq!(unknown.short(), "Intel Xeon");
        assert!(a.same_as(&metal), "the hypervisor is not the hardware");
    }

    #[test]
    fn reads_the_cpu_numbers_of_x86_and_arm() {
        let x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\nstepping\t: 1\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\n";
        assert_eq!(
            super::cpu_id(x86, Some("L3 32768K".into())),
            "AuthenticAMD family 25 model 17 stepping 1, L3 32768K"
        );
        let arm = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n";
        assert_eq!(
            super::cpu_id(arm, None),
            "implementer 0x41 part 0xd0c variant 0x3 revision 1"
        );
        assert_eq!(super::cpu_id("", None), "");
    }

    /// On this machine: whatever /proc/cpuinfo and sysfs say, read the
    /// same way twice, so a session's record is stable within a boot.
    #[test]
    fn this_machines_cpu_numbers_are_stable() {
        let (a, b) = (super::Machine::detect(), super::Machine::detect());
        assert_eq!(a.cpu_id, b.cpu_id);
        if std::path::Path::new("/proc/cpuinfo").exists() && cfg!(target_arch = "x86_64") {
            assert!(a.cpu_id.contains("family"), "{}", a.cpu_id);
        }
    }
}
