//! What makes this host noisy, read from `/proc` and `/sys` (issue #60):
//! the virtual machine and its hypervisor, the CPU and its microcode, the
//! clock's governor, transparent huge pages, the mechanisms that hand a
//! guest's freed memory back to its host (the virtio balloon's free page
//! reporting, virtio-mem, DAMON schemes, KSM), the memory and swap, the
//! time stolen by the hypervisor, the load, ASLR and CPUs set aside. Each
//! is a [`Fact`] with a verdict, as pyperf's `system show` gives one.
//!
//! Read only: nothing here writes to `/proc` or `/sys` or changes the
//! machine (the one process it may start, `systemd-detect-virt --vm`,
//! only reads). A file that is missing or unreadable (a container
//! without `/sys`, a user without the right) makes its fact `unknown`,
//! never an error. Everything is read below a root directory, so the
//! tests read a fake `/proc` and `/sys` of their own.
#![warn(missing_docs)]

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One fact about the host: what it is, what the host says, and whether
/// it may make a measurement noisy. Stored in each session's record
/// (`hygiene.host`) and printed by `langbench system show`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fact {
    /// A stable key (`virtualization`, `thp`, `balloon`, `damon`, ...).
    pub key: String,
    /// What it is, in words (`transparent huge pages`).
    pub name: String,
    /// What the host says (`unknown` where it says nothing).
    pub value: String,
    /// Whether it may add noise.
    pub verdict: Verdict,
    /// Why it may add noise, or why it is unknown (empty when ok).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
}

/// A fact's verdict, as `system show` prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Nothing to fix for measuring.
    Ok,
    /// It may make runs slower by varying amounts: `why` says how.
    MayAddNoise,
    /// The host does not say (a missing or unreadable file).
    Unknown,
}

impl Fact {
    fn ok(key: &str, name: &str, value: impl Into<String>) -> Fact {
        Fact {
            key: key.into(),
            name: name.into(),
            value: value.into(),
            verdict: Verdict::Ok,
            why: String::new(),
        }
    }

    fn unknown(key: &str, name: &str, why: impl Into<String>) -> Fact {
        Fact {
            verdict: Verdict::Unknown,
            why: why.into(),
            ..Fact::ok(key, name, "unknown")
        }
    }

    /// This fact, judged to add noise for `why`.
    fn noisy(self, why: impl Into<String>) -> Fact {
        Fact {
            verdict: Verdict::MayAddNoise,
            why: why.into(),
            ..self
        }
    }

    /// This fact, noisy for `why` when `noisy` holds.
    fn noisy_if(self, noisy: bool, why: impl Into<String>) -> Fact {
        if noisy { self.noisy(why) } else { self }
    }
}

/// The keys of the facts `hygiene`'s warnings already tell at a session's
/// start (the machine is not quiet): the other noisy facts are told in a
/// line of their own ([`noise_sources`]).
pub(crate) const WARNED: [&str; 5] = ["governor", "turbo", "load", "busy", "swap"];

/// The names of `facts` that may add noise and that the session's
/// warnings do not tell already, for the line printed at a session's
/// start (`virtual machine (kvm)`, `free page reporting`, ...).
pub(crate) fn noise_sources(facts: &[Fact]) -> Vec<String> {
    facts
        .iter()
        .filter(|f| f.verdict == Verdict::MayAddNoise && !WARNED.contains(&f.key.as_str()))
        .map(|f| format!("{} ({})", f.name, f.value))
        .collect()
}

/// Where the facts are read from: a root directory (`/`, or a test's fake
/// one) and what the live host adds (the CPUID hypervisor signature,
/// `systemd-detect-virt`'s answer), which a fake root has not.
pub(crate) struct Host {
    root: PathBuf,
    /// The hypervisor CPUID leaf's vendor signature (`KVMKVMKVM`), where
    /// the CPU says it runs under one.
    cpuid: Option<String>,
    /// `systemd-detect-virt --vm`'s answer (`kvm`, `none`), where it is
    /// installed.
    detect_virt: Option<String>,
}

/// A MiB in KB.
const MIB_KB: u64 = 1024;
/// A GiB in KB.
const GIB_KB: u64 = 1024 * 1024;

impl Host {
    /// This machine, read live (runs `systemd-detect-virt --vm` where it
    /// is installed).
    pub(crate) fn live() -> Host {
        Host {
            root: PathBuf::from("/"),
            cpuid: cpuid_hypervisor(),
            detect_virt: detect_virt(),
        }
    }

    /// This machine without starting any process: what a session's
    /// machine record reads ([`crate::machine::Machine::detect`]).
    pub(crate) fn quick() -> Host {
        Host {
            root: PathBuf::from("/"),
            cpuid: cpuid_hypervisor(),
            detect_virt: None,
        }
    }

    /// A fake host below `root` (tests).
    #[cfg(test)]
    pub(crate) fn at(root: &std::path::Path) -> Host {
        Host {
            root: root.to_path_buf(),
            cpuid: None,
            detect_virt: None,
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel.trim_start_matches('/'))
    }

    /// A file's text, trimmed; `None` where it is missing or unreadable.
    fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.path(rel))
            .ok()
            .map(|s| s.trim().to_string())
    }

    fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    /// The names in a directory, sorted (none where it cannot be read).
    fn names(&self, rel: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path(rel))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort_by_key(|n| (n.len(), n.clone()));
        names
    }

    /// Every fact, in the order `system show` prints them.
    pub(crate) fn facts(&self) -> Vec<Fact> {
        vec![
            self.virtualization_fact(),
            self.cpu_fact(),
            self.cpus_fact(),
            self.governor_fact(),
            self.turbo_fact(),
            self.steal_fact(),
            self.load_fact(),
            self.memory_fact(),
            self.swap_fact(),
            self.thp_fact(),
            self.balloon_fact(),
            self.virtio_mem_fact(),
            self.damon_fact(),
            self.ksm_fact(),
            self.vm_fact(),
            self.aslr_fact(),
        ]
    }

    /// The hypervisor this machine runs under (`kvm`, `microsoft`, ...),
    /// `none` on bare metal, `None` where nothing says: from
    /// `systemd-detect-virt`, the CPUID signature, the DMI vendor and
    /// product, and /proc/cpuinfo's `hypervisor` flag, in that order.
    pub(crate) fn hypervisor(&self) -> Option<String> {
        if let Some(v) = &self.detect_virt {
            return Some(v.clone());
        }
        if let Some(sig) = &self.cpuid {
            return Some(hypervisor_name(sig));
        }
        let dmi = [
            "sys/class/dmi/id/sys_vendor",
            "sys/class/dmi/id/product_name",
        ]
        .map(|f| self.read(f).unwrap_or_default().to_lowercase())
        .join(" ");
        for (needle, name) in DMI_VENDORS {
            if dmi.contains(needle) {
                return Some(name.to_string());
            }
        }
        if let Some(t) = self.read("sys/hypervisor/type") {
            return Some(plain(&t));
        }
        let cpuinfo = self.read("proc/cpuinfo")?;
        let flags = cpuinfo.lines().find(|l| l.starts_with("flags"));
        match flags {
            Some(f) if f.split_whitespace().any(|w| w == "hypervisor") => {
                Some("unknown hypervisor".into())
            }
            // An x86 CPU says when it runs under a hypervisor; another
            // architecture's cpuinfo has no such flag.
            Some(_) => Some("none".into()),
            None => None,
        }
    }

    fn virtualization_fact(&self) -> Fact {
        let (key, name) = ("virtualization", "virtual machine");
        match self.hypervisor() {
            None => Fact::unknown(key, name, "no CPUID, DMI or cpuinfo says"),
            Some(h) if h == "none" => Fact::ok(key, name, "no (bare metal)"),
            Some(h) => Fact::ok(key, name, format!("yes, {h}")).noisy(
                "a guest: the hypervisor schedules its vCPUs among other guests' (steal) and \
                 backs its memory, so a run's speed depends on the host's state too",
            ),
        }
    }

    fn cpu_fact(&self) -> Fact {
        let (key, name) = ("cpu", "CPU");
        let Some(cpuinfo) = self.read("proc/cpuinfo") else {
            return Fact::unknown(key, name, "/proc/cpuinfo cannot be read");
        };
        let first = cpuinfo.split("\n\n").next().unwrap_or("");
        let field = |k: &str| {
            first
                .lines()
                .find(|l| l.split(':').next().is_some_and(|x| x.trim() == k))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        };
        let model = field("model name")
            .or_else(|| field("Model"))
            .unwrap_or_else(|| "unknown model".into());
        let numbers: Vec<String> = [
            ("", "vendor_id"),
            ("family ", "cpu family"),
            ("model ", "model"),
            ("stepping ", "stepping"),
        ]
        .iter()
        .filter_map(|(label, k)| Some(format!("{label}{}", field(k)?)))
        .collect();
        let mut value = model;
        if !numbers.is_empty() {
            value.push_str(&format!(" ({})", numbers.join(" ")));
        }
        value.push_str(&format!(
            ", microcode {}",
            field("microcode").unwrap_or_else(|| "unknown".into())
        ));
        Fact::ok(key, name, value)
    }

    fn cpus_fact(&self) -> Fact {
        let (key, name) = ("cpus", "CPUs");
        let Some(online) = self.read("sys/devices/system/cpu/online") else {
            return Fact::unknown(key, name, "/sys/devices/system/cpu/online cannot be read");
        };
        let set = |f: &str| {
            self.read(f)
                .filter(|s| !s.is_empty() && s != "(null)")
                .unwrap_or_else(|| "none".into())
        };
        let isolated = set("sys/devices/system/cpu/isolated");
        let nohz = set("sys/devices/system/cpu/nohz_full");
        Fact::ok(
            key,
            name,
            format!(
                "{} online ({online}); isolated (isolcpus): {isolated}; nohz_full: {nohz}",
                cpu_count(&online)
            ),
        )
    }

    /// Distinct `scaling_governor` values of the online CPUs (empty: no
    /// cpufreq, as in most virtual machines).
    pub(crate) fn governors(&self) -> Vec<String> {
        let mut governors: Vec<String> = Vec::new();
        for cpu in self.names("sys/devices/system/cpu") {
            if cpu
                .strip_prefix("cpu")
                .is_some_and(|n| n.parse::<u32>().is_ok())
                && let Some(g) = self.read(&format!(
                    "sys/devices/system/cpu/{cpu}/cpufreq/scaling_governor"
                ))
                && !governors.contains(&g)
            {
                governors.push(g);
            }
        }
        governors
    }

    fn governor_fact(&self) -> Fact {
        let (key, name) = ("governor", "CPU frequency governor");
        let g = self.governors();
        if g.is_empty() {
            return Fact::unknown(
                key,
                name,
                "no cpufreq (a virtual machine's host sets the clock)",
            );
        }
        Fact::ok(key, name, g.join(", ")).noisy_if(
            g.iter().any(|g| g != "performance"),
            "the clock speed varies with load (`performance` keeps it steady)",
        )
    }

    /// Whether turbo/boost is on (`None`: the kernel does not say).
    pub(crate) fn turbo(&self) -> Option<bool> {
        self.read("sys/devices/system/cpu/intel_pstate/no_turbo")
            .map(|v| v == "0")
            .or_else(|| {
                self.read("sys/devices/system/cpu/cpufreq/boost")
                    .map(|v| v == "1")
            })
    }

    fn turbo_fact(&self) -> Fact {
        let (key, name) = ("turbo", "turbo boost");
        match self.turbo() {
            None => Fact::unknown(key, name, "the kernel does not say"),
            Some(false) => Fact::ok(key, name, "off"),
            Some(true) => Fact::ok(key, name, "on")
                .noisy("the clock speed depends on temperature and on the other cores' load"),
        }
    }

    fn steal_fact(&self) -> Fact {
        let (key, name) = ("steal", "steal time");
        let Some(t) = self.read("proc/stat").as_deref().and_then(cpu_ticks) else {
            return Fact::unknown(key, name, "/proc/stat cannot be read");
        };
        let share = t.steal as f64 / t.total.max(1) as f64;
        Fact::ok(
            key,
            name,
            format!("{:.2} % of CPU time since boot", share * 100.0),
        )
        .noisy_if(
            share > 0.01,
            "the hypervisor gave this guest's CPU time to others: runs measured then are slower",
        )
    }

    fn load_fact(&self) -> Fact {
        let (key, name) = ("load", "load average");
        let Some(l) = self.read("proc/loadavg") else {
            return Fact::unknown(key, name, "/proc/loadavg cannot be read");
        };
        let parts: Vec<&str> = l.split_whitespace().take(3).collect();
        let one: f64 = parts.first().and_then(|p| p.parse().ok()).unwrap_or(0.0);
        let cpus = self
            .read("sys/devices/system/cpu/online")
            .map_or(1, |o| cpu_count(&o).max(1));
        Fact::ok(key, name, format!("{} (1, 5, 15 min)", parts.join(", "))).noisy_if(
            one > 0.5 * cpus as f64,
            format!("above half of the {cpus} CPUs: other work is running"),
        )
    }

    fn meminfo(&self) -> Option<Meminfo> {
        let text = self.read("proc/meminfo")?;
        let kb = |key: &str| -> Option<u64> {
            let line = text.lines().find(|l| l.split(':').next() == Some(key))?;
            line.split(':')
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        };
        Some(Meminfo {
            total: kb("MemTotal")?,
            free: kb("MemFree").unwrap_or(0),
            available: kb("MemAvailable").unwrap_or(0),
            swap_total: kb("SwapTotal").unwrap_or(0),
            swap_free: kb("SwapFree").unwrap_or(0),
        })
    }

    fn memory_fact(&self) -> Fact {
        let (key, name) = ("memory", "memory");
        let Some(m) = self.meminfo() else {
            return Fact::unknown(key, name, "/proc/meminfo cannot be read");
        };
        Fact::ok(
            key,
            name,
            format!(
                "{} total, {} available, {} free",
                gib(m.total),
                gib(m.available),
                gib(m.free)
            ),
        )
        .noisy_if(
            m.available < 4 * GIB_KB,
            "less than 4 GiB available: assoc's cells hold up to 3.5 GB, and memory taken from \
             the page cache or swap makes them slower",
        )
    }

    fn swap_fact(&self) -> Fact {
        let (key, name) = ("swap", "swap");
        let Some(m) = self.meminfo() else {
            return Fact::unknown(key, name, "/proc/meminfo cannot be read");
        };
        if m.swap_total == 0 {
            return Fact::ok(key, name, "none");
        }
        let used = m.swap_total.saturating_sub(m.swap_free);
        Fact::ok(
            key,
            name,
            format!("{} total, {} in use", gib(m.swap_total), gib(used)),
        )
        .noisy_if(used > 0, "swap in use: a run may page")
    }

    fn thp_fact(&self) -> Fact {
        let (key, name) = ("thp", "transparent huge pages");
        let dir = "sys/kernel/mm/transparent_hugepage";
        let Some(enabled) = self.read(&format!("{dir}/enabled")) else {
            return Fact::unknown(key, name, format!("/{dir} cannot be read"));
        };
        let chosen = |s: &str| {
            s.split_whitespace()
                .find_map(|w| w.strip_prefix('[')?.strip_suffix(']').map(String::from))
                .unwrap_or_else(|| s.to_string())
        };
        let enabled = chosen(&enabled);
        let defrag = self
            .read(&format!("{dir}/defrag"))
            .map_or_else(|| "unknown".into(), |d| chosen(&d));
        let khugepaged = self
            .read(&format!("{dir}/khugepaged/defrag"))
            .unwrap_or_else(|| "unknown".into());
        Fact::ok(
            key,
            name,
            format!("enabled {enabled}, defrag {defrag}, khugepaged defrag {khugepaged}"),
        )
        .noisy_if(
            enabled == "always",
            "every program's memory may get huge pages or not depending on how fragmented \
             memory is at the time: its page faults and TLB misses vary from run to run",
        )
    }

    /// The virtio devices bound to `driver` (`virtio0`, ...).
    fn virtio_bound(&self, driver: &str) -> Vec<String> {
        self.names(&format!("sys/bus/virtio/drivers/{driver}"))
            .into_iter()
            .filter(|n| n.starts_with("virtio"))
            .collect()
    }

    fn balloon_fact(&self) -> Fact {
        let (key, name) = ("balloon", "virtio balloon");
        if !self.exists("sys/bus") {
            return Fact::unknown(key, name, "/sys/bus cannot be read");
        }
        let devices = self.virtio_bound("virtio_balloon");
        let Some(dev) = devices.first() else {
            return Fact::ok(key, name, "none");
        };
        let features = self
            .read(&format!(
                "sys/bus/virtio/drivers/virtio_balloon/{dev}/features"
            ))
            .map(|bits| balloon_features(&bits));
        let mut value = match &features {
            Some(f) if f.is_empty() => "present (no optional features)".to_string(),
            Some(f) => format!("present: {}", f.join(", ")),
            None => "present (features unknown)".into(),
        };
        let params = "sys/module/page_reporting/parameters";
        if let Some(order) = self.read(&format!("{params}/page_reporting_order")) {
            value.push_str(&format!("; page reporting order {order}"));
            if let Some(kib) = self
                .read(&format!("{params}/reported_kib"))
                .and_then(|k| k.parse::<u64>().ok())
            {
                value.push_str(&format!(", {} reported so far", gib(kib)));
            }
        }
        let hands_back = features.as_ref().is_some_and(|f| {
            f.iter()
                .any(|x| x == "free page reporting" || x == "free page hinting")
        });
        Fact::ok(key, name, value).noisy_if(
            hands_back,
            "the guest reports the memory it frees to the host, which may take its backing \
             away: fresh memory then faults in again at the host's pace (memory-heavy runs \
             such as assoc pay it by varying amounts)",
        )
    }

    fn virtio_mem_fact(&self) -> Fact {
        let (key, name) = ("virtio-mem", "virtio-mem");
        if !self.exists("sys/bus") {
            return Fact::unknown(key, name, "/sys/bus cannot be read");
        }
        let devices = self.virtio_bound("virtio_mem");
        Fact::ok(
            key,
            name,
            if devices.is_empty() {
                "none".into()
            } else {
                format!("{} device(s)", devices.len())
            },
        )
        .noisy_if(
            !devices.is_empty(),
            "the host plugs and unplugs this guest's memory while it runs",
        )
    }

    /// The kdamonds that are on, each as `kdamond 0: paddr pageout`,
    /// whether any scheme does more than count (`stat`), and how many
    /// kdamonds' state cannot be read (root's only, as DAMON's sysfs files
    /// are).
    fn damon_schemes(&self) -> (Vec<String>, bool, usize) {
        let base = "sys/kernel/mm/damon/admin/kdamonds";
        let (mut on, mut acts, mut unreadable) = (Vec::new(), false, 0);
        for k in self
            .names(base)
            .into_iter()
            .filter(|n| n.parse::<u32>().is_ok())
        {
            match self.read(&format!("{base}/{k}/state")).as_deref() {
                Some("on") => {}
                Some(_) => continue,
                None => {
                    unreadable += 1;
                    continue;
                }
            }
            let mut parts = Vec::new();
            let contexts = format!("{base}/{k}/contexts");
            for c in self
                .names(&contexts)
                .into_iter()
                .filter(|n| n.parse::<u32>().is_ok())
            {
                let ops = self
                    .read(&format!("{contexts}/{c}/operations"))
                    .unwrap_or_else(|| "?".into());
                let schemes = format!("{contexts}/{c}/schemes");
                let actions: Vec<String> = self
                    .names(&schemes)
                    .into_iter()
                    .filter(|n| n.parse::<u32>().is_ok())
                    .filter_map(|s| self.read(&format!("{schemes}/{s}/action")))
                    .collect();
                acts |= actions.iter().any(|a| a != "stat");
                parts.push(if actions.is_empty() {
                    format!("{ops} (monitoring only)")
                } else {
                    format!("{ops} {}", actions.join(", "))
                });
            }
            on.push(format!("kdamond {k}: {}", parts.join("; ")));
        }
        (on, acts, unreadable)
    }

    fn damon_fact(&self) -> Fact {
        let (key, name) = ("damon", "DAMON");
        let modules = ["damon_reclaim", "damon_lru_sort"];
        let module_on: Vec<&str> = modules
            .into_iter()
            .filter(|m| {
                self.read(&format!("sys/module/{m}/parameters/enabled"))
                    .is_some_and(|v| v == "Y")
            })
            .collect();
        let admin = self.exists("sys/kernel/mm/damon/admin");
        if !admin && module_on.is_empty() && !self.exists("sys/kernel/mm") {
            return Fact::unknown(key, name, "/sys/kernel/mm cannot be read");
        }
        let (mut on, acts, unreadable) = self.damon_schemes();
        on.extend(module_on.iter().map(|m| format!("{m} on")));
        if on.is_empty() && unreadable > 0 {
            return Fact::unknown(
                key,
                name,
                format!(
                    "{unreadable} kdamond(s) whose state only root can read \
                     (/sys/kernel/mm/damon/admin)"
                ),
            );
        }
        if on.is_empty() {
            return Fact::ok(key, name, if admin { "off" } else { "none" });
        }
        Fact::ok(key, name, on.join("; ")).noisy_if(
            acts || !module_on.is_empty(),
            "a DAMON scheme acts on the memory it finds cold (pageout: reclaims it): memory a \
             run or its page cache touches again faults back in",
        )
    }

    fn ksm_fact(&self) -> Fact {
        let (key, name) = ("ksm", "kernel same-page merging");
        match self.read("sys/kernel/mm/ksm/run").as_deref() {
            None if self.exists("sys/kernel/mm") => Fact::ok(key, name, "not built in"),
            None => Fact::unknown(key, name, "/sys/kernel/mm cannot be read"),
            Some("0") => Fact::ok(key, name, "off"),
            Some(v) => Fact::ok(key, name, format!("on ({v})")).noisy(
                "ksmd merges identical pages in the background; writing a merged page copies it",
            ),
        }
    }

    fn vm_fact(&self) -> Fact {
        let (key, name) = ("vm", "vm settings");
        let settings = [
            "overcommit_memory",
            "swappiness",
            "zone_reclaim_mode",
            "compaction_proactiveness",
            "watermark_scale_factor",
            "min_free_kbytes",
        ];
        let read: Vec<(&str, String)> = settings
            .iter()
            .filter_map(|s| Some((*s, self.read(&format!("proc/sys/vm/{s}"))?)))
            .collect();
        if read.is_empty() {
            return Fact::unknown(key, name, "/proc/sys/vm cannot be read");
        }
        let zone_reclaim = read
            .iter()
            .any(|(s, v)| *s == "zone_reclaim_mode" && v != "0");
        let text: Vec<String> = read.iter().map(|(s, v)| format!("{s} {v}")).collect();
        Fact::ok(key, name, text.join(", ")).noisy_if(
            zone_reclaim,
            "zone_reclaim_mode reclaims a node's memory before using another's",
        )
    }

    fn aslr_fact(&self) -> Fact {
        let (key, name) = ("aslr", "ASLR");
        match self.read("proc/sys/kernel/randomize_va_space").as_deref() {
            None => Fact::unknown(
                key,
                name,
                "/proc/sys/kernel/randomize_va_space cannot be read",
            ),
            Some("0") => Fact::ok(key, name, "off"),
            Some("1") => Fact::ok(key, name, "partial (1)"),
            Some(v) => Fact::ok(key, name, format!("full ({v})")),
        }
    }
}

/// What /proc/meminfo says, KB.
struct Meminfo {
    total: u64,
    free: u64,
    available: u64,
    swap_total: u64,
    swap_free: u64,
}

/// `24.5 GiB` (or `512 MiB` under a GiB) of a KB count.
fn gib(kb: u64) -> String {
    if kb >= GIB_KB {
        format!("{:.1} GiB", kb as f64 / GIB_KB as f64)
    } else {
        format!("{} MiB", kb / MIB_KB)
    }
}

/// The CPUs of a kernel CPU list (`0-3,6`).
fn cpu_count(list: &str) -> usize {
    list.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| match p.trim().split_once('-') {
            Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 0,
            },
            None => usize::from(p.trim().parse::<usize>().is_ok()),
        })
        .sum()
}

/// Every CPU's ticks of /proc/stat's `cpu` line.
struct CpuTicks {
    total: u64,
    steal: u64,
}

fn cpu_ticks(stat: &str) -> Option<CpuTicks> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is
    // already in user and nice).
    let total = v.iter().take(8).sum();
    Some(CpuTicks {
        total,
        steal: v.get(7).copied().unwrap_or(0),
    })
}

/// The optional features of a virtio balloon, from its `features` file
/// (one character per bit, bit 0 first; the bits of
/// include/uapi/linux/virtio_balloon.h).
fn balloon_features(bits: &str) -> Vec<String> {
    const NAMES: [(usize, &str); 5] = [
        (1, "statistics"),
        (2, "deflate on OOM"),
        (3, "free page hinting"),
        (4, "page poisoning"),
        (5, "free page reporting"),
    ];
    let set = |i: usize| bits.as_bytes().get(i) == Some(&b'1');
    NAMES
        .iter()
        .filter(|(i, _)| set(*i))
        .map(|(_, n)| n.to_string())
        .collect()
}

/// DMI vendor and product words and the hypervisor each names (as
/// systemd-detect-virt's table does).
const DMI_VENDORS: [(&str, &str); 9] = [
    ("kvm", "kvm"),
    ("qemu", "qemu"),
    ("amazon ec2", "amazon"),
    ("google compute engine", "google"),
    ("vmware", "vmware"),
    ("virtualbox", "oracle"),
    ("xen", "xen"),
    ("bochs", "bochs"),
    ("microsoft corporation virtual", "microsoft"),
];

/// systemd-detect-virt's name of a CPUID hypervisor signature.
fn hypervisor_name(sig: &str) -> String {
    match sig.trim_matches(char::from(0)).trim() {
        "KVMKVMKVM" | "Linux KVM Hv" => "kvm".into(),
        "Microsoft Hv" => "microsoft".into(),
        "VMwareVMware" => "vmware".into(),
        "XenVMMXenVMM" => "xen".into(),
        "TCGTCGTCGTCG" => "qemu".into(),
        "bhyve bhyve" => "bhyve".into(),
        "ACRNACRNACRN" => "acrn".into(),
        "lrpepyh  vr" => "parallels".into(),
        "VBoxVBoxVBox" => "oracle".into(),
        other => plain(other),
    }
}

/// A hypervisor's name as stored and shown: lower case letters, digits,
/// `-` and `_` only, at most 32 (what a CPUID leaf or a sysfs file says
/// is the host's to choose).
fn plain(name: &str) -> String {
    let p: String = name
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(32)
        .collect();
    if p.is_empty() {
        "unknown hypervisor".into()
    } else {
        p
    }
}

/// The hypervisor's CPUID vendor signature, where CPUID leaf 1 says one
/// runs this CPU (x86 only: the instruction reads, changes nothing).
#[cfg(target_arch = "x86_64")]
fn cpuid_hypervisor() -> Option<String> {
    use std::arch::x86_64::__cpuid;
    // SAFETY: CPUID exists on every x86_64 CPU and only reads.
    #[allow(unused_unsafe)]
    let (leaf1, leaf) = unsafe { (__cpuid(1), __cpuid(0x4000_0000)) };
    if leaf1.ecx & (1 << 31) == 0 {
        return None;
    }
    let bytes: Vec<u8> = [leaf.ebx, leaf.ecx, leaf.edx]
        .iter()
        .flat_map(|r| r.to_le_bytes())
        .collect();
    let sig = String::from_utf8_lossy(&bytes).into_owned();
    (!sig.trim_matches(char::from(0)).trim().is_empty()).then_some(sig)
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_hypervisor() -> Option<String> {
    None
}

/// `systemd-detect-virt --vm`'s answer where it is installed (it prints
/// `none` and exits 1 on bare metal): it reads CPUID, DMI and /proc, and
/// changes nothing. Its output is bounded to a word.
fn detect_virt() -> Option<String> {
    let exe = which::which("systemd-detect-virt").ok()?;
    let out = std::process::Command::new(exe)
        .arg("--vm")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let word = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let plain = !word.is_empty()
        && word.len() <= 32
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    plain.then_some(word)
}

/// The facts of `root` as a map key → fact (tests).
#[cfg(test)]
fn by_key(facts: &[Fact]) -> std::collections::BTreeMap<String, Fact> {
    facts.iter().map(|f| (f.key.clone(), f.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake root with `files` (relative path, content).
    fn root(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    /// An empty root (no /proc, no /sys): every fact is unknown, none is
    /// an error, and nothing is judged noisy on no evidence.
    #[test]
    fn a_host_that_says_nothing_is_unknown_everywhere() {
        let dir = root(&[]);
        let facts = Host::at(dir.path()).facts();
        assert_eq!(facts.len(), 16);
        for f in &facts {
            assert_eq!(f.verdict, Verdict::Unknown, "{f:?}");
            assert_eq!(f.value, "unknown", "{f:?}");
            assert!(!f.why.is_empty(), "{f:?}");
        }
        assert!(noise_sources(&facts).is_empty());
    }

    /// The guest this was written on: KVM (cpuinfo's flag), THP on
    /// madvise, a balloon with free page reporting, DAMON paging out
    /// physical memory, no swap: the VM, the balloon and DAMON may add
    /// noise, THP and the rest do not.
    #[test]
    fn a_kvm_guest_with_free_page_reporting_and_damon_pageout() {
        let damon = "sys/kernel/mm/damon/admin/kdamonds";
        let dir = root(&[
            (
                "proc/cpuinfo",
                "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\nstepping\t: 1\nmicrocode\t: 0x1000065\nflags\t\t: fpu sse hypervisor\n\nprocessor\t: 1\n",
            ),
            ("sys/devices/system/cpu/online", "0-1\n"),
            ("sys/devices/system/cpu/isolated", "\n"),
            ("proc/loadavg", "0.10 0.20 0.30 1/100 42\n"),
            ("proc/stat", "cpu  100 0 50 800 10 0 0 40 0 0\ncpu0 1 2 3\n"),
            (
                "proc/meminfo",
                "MemTotal:       24683772 kB\nMemFree:        18902956 kB\nMemAvailable:   21296228 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\n",
            ),
            (
                "sys/kernel/mm/transparent_hugepage/enabled",
                "always [madvise] never\n",
            ),
            (
                "sys/kernel/mm/transparent_hugepage/defrag",
                "always defer defer+madvise [madvise] never\n",
            ),
            (
                "sys/kernel/mm/transparent_hugepage/khugepaged/defrag",
                "1\n",
            ),
            (
                "sys/bus/virtio/drivers/virtio_balloon/virtio0/features",
                "0110010100000000\n",
            ),
            (
                "sys/module/page_reporting/parameters/page_reporting_order",
                "9\n",
            ),
            (
                "sys/module/page_reporting/parameters/reported_kib",
                "5954920\n",
            ),
            (&format!("{damon}/nr_kdamonds"), "1\n"),
            (&format!("{damon}/0/state"), "on\n"),
            (&format!("{damon}/0/contexts/0/operations"), "paddr\n"),
            (
                &format!("{damon}/0/contexts/0/schemes/0/action"),
                "pageout\n",
            ),
            ("sys/kernel/mm/ksm/run", "0\n"),
            ("proc/sys/vm/overcommit_memory", "0\n"),
            ("proc/sys/vm/zone_reclaim_mode", "0\n"),
            ("proc/sys/kernel/randomize_va_space", "2\n"),
        ]);
        let facts = Host::at(dir.path()).facts();
        let f = by_key(&facts);
        assert_eq!(f["virtualization"].value, "yes, unknown hypervisor");
        assert_eq!(f["virtualization"].verdict, Verdict::MayAddNoise);
        assert_eq!(
            f["cpu"].value,
            "AMD EPYC (AuthenticAMD family 25 model 17 stepping 1), microcode 0x1000065"
        );
        assert!(
            f["cpus"]
                .value
                .starts_with("2 online (0-1); isolated (isolcpus): none")
        );
        assert_eq!(f["governor"].verdict, Verdict::Unknown);
        assert_eq!(f["steal"].value, "4.00 % of CPU time since boot");
        assert_eq!(f["steal"].verdict, Verdict::MayAddNoise);
        assert_eq!(f["load"].verdict, Verdict::Ok);
        assert_eq!(
            f["memory"].value,
            "23.5 GiB total, 20.3 GiB available, 18.0 GiB free"
        );
        assert_eq!(f["swap"].value, "none");
        assert_eq!(
            f["thp"].value,
            "enabled madvise, defrag madvise, khugepaged defrag 1"
        );
        assert_eq!(f["thp"].verdict, Verdict::Ok);
        assert_eq!(
            f["balloon"].value,
            "present: statistics, deflate on OOM, free page reporting; page reporting order 9, 5.7 GiB reported so far"
        );
        assert_eq!(f["balloon"].verdict, Verdict::MayAddNoise);
        assert_eq!(f["virtio-mem"].value, "none");
        assert_eq!(f["damon"].value, "kdamond 0: paddr pageout");
        assert_eq!(f["damon"].verdict, Verdict::MayAddNoise);
        assert_eq!(f["ksm"].value, "off");
        assert_eq!(f["aslr"].value, "full (2)");
        let sources = noise_sources(&facts);
        assert_eq!(sources.len(), 4, "{sources:?}");
        assert!(
            sources[0].starts_with("virtual machine (yes"),
            "{sources:?}"
        );
        assert!(
            f["damon"].why.starts_with("a DAMON scheme acts"),
            "{:?}",
            f["damon"]
        );
    }

    /// Bare metal with THP always, a powersave governor, swap in use and
    /// a busy host: each judged as it should be; DAMON's admin interface
    /// with no kdamond on is off.
    #[test]
    fn bare_metal_with_thp_always_and_swap_in_use() {
        let dir = root(&[
            (
                "proc/cpuinfo",
                "processor\t: 0\nmodel name\t: Intel(R) Core(TM)\nflags\t\t: fpu sse\n",
            ),
            ("sys/devices/system/cpu/online", "0-3\n"),
            (
                "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
                "powersave\n",
            ),
            ("sys/devices/system/cpu/intel_pstate/no_turbo", "0\n"),
            ("proc/loadavg", "3.10 2.00 1.00 1/100 42\n"),
            (
                "proc/meminfo",
                "MemTotal: 8000000 kB\nMemFree: 1000000 kB\nMemAvailable: 2000000 kB\nSwapTotal: 1048576 kB\nSwapFree: 524288 kB\n",
            ),
            (
                "sys/kernel/mm/transparent_hugepage/enabled",
                "[always] madvise never\n",
            ),
            ("sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "0\n"),
            ("sys/bus/virtio/drivers/.keep", ""),
        ]);
        let f = by_key(&Host::at(dir.path()).facts());
        assert_eq!(f["virtualization"].value, "no (bare metal)");
        assert_eq!(f["virtualization"].verdict, Verdict::Ok);
        assert_eq!(f["governor"].verdict, Verdict::MayAddNoise);
        assert_eq!(f["turbo"].verdict, Verdict::MayAddNoise);
        assert_eq!(f["load"].verdict, Verdict::MayAddNoise);
        assert_eq!(f["memory"].verdict, Verdict::MayAddNoise);
        assert_eq!(f["swap"].value, "1.0 GiB total, 512 MiB in use");
        assert_eq!(f["swap"].verdict, Verdict::MayAddNoise);
        assert_eq!(f["thp"].verdict, Verdict::MayAddNoise);
        assert_eq!(f["balloon"].value, "none");
        assert_eq!(f["damon"].value, "off");
        assert_eq!(f["damon"].verdict, Verdict::Ok);
        assert_eq!(f["ksm"].value, "not built in");
    }

    /// DAMON's state files are root's: a user sees a kdamond but not
    /// whether it is on, and the fact says unknown rather than off.
    #[test]
    fn a_kdamond_whose_state_only_root_reads_is_unknown() {
        let dir = root(&[(
            "sys/kernel/mm/damon/admin/kdamonds/0/contexts/nr_contexts",
            "1\n",
        )]);
        let f = by_key(&Host::at(dir.path()).facts());
        assert_eq!(f["damon"].verdict, Verdict::Unknown, "{:?}", f["damon"]);
        assert!(f["damon"].why.contains("only root"), "{:?}", f["damon"]);
    }

    #[test]
    fn names_of_hypervisors_cpu_lists_and_balloon_bits() {
        assert_eq!(hypervisor_name("KVMKVMKVM\0\0\0"), "kvm");
        assert_eq!(hypervisor_name("Microsoft Hv"), "microsoft");
        assert_eq!(hypervisor_name("\u{1b}[31mEvil Hv\n"), "31mevilhv");
        assert_eq!(cpu_count("0-3,6"), 5);
        assert_eq!(cpu_count("0"), 1);
        assert_eq!(cpu_count(""), 0);
        assert_eq!(balloon_features("0000000000"), Vec::<String>::new());
        assert_eq!(balloon_features("0001"), ["free page hinting"]);
    }

    /// This machine, live: every fact read (whatever it says), none an
    /// error, the same keys as a fake host's.
    #[test]
    fn this_host_reads_without_error() {
        let live = Host::live().facts();
        let fake = Host::at(std::path::Path::new("/nonexistent")).facts();
        let keys = |f: &[Fact]| f.iter().map(|x| x.key.clone()).collect::<Vec<_>>();
        assert_eq!(keys(&live), keys(&fake));
        if std::path::Path::new("/proc/meminfo").exists() {
            assert_ne!(by_key(&live)["memory"].verdict, Verdict::Unknown);
        }
    }
}
