//! Why the kernel refused langbench's sandbox, and what to do about it.
//!
//! langbench fails closed (issue #37): where the namespaces (or the fresh
//! /proc the sandbox mounts) are refused, a command that would run
//! contributed code stops, naming the missing privilege, instead of
//! running it uncontained; `--no-sandbox` is the explicit way to do that
//! (as BenchExec refuses container mode rather than silently dropping it).
//! The privileges are read from the kernel's own files, so the message
//! says which one is missing here, not a list of guesses.

use std::path::Path;

/// What the kernel says about this process and its namespaces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    pub euid: u32,
    /// CAP_SYS_ADMIN in the effective set (`CapEff` of /proc/self/status).
    pub cap_sys_admin: bool,
    /// CAP_NET_ADMIN in the effective set: root needs it to bring up the
    /// loopback of the network namespaces it makes.
    pub cap_net_admin: bool,
    /// `Seccomp` of /proc/self/status: 0 none, 1 strict, 2 a filter.
    pub seccomp: u32,
    /// `kernel.apparmor_restrict_unprivileged_userns` (Ubuntu 23.10+).
    pub apparmor_restrict: Option<u64>,
    /// `kernel.unprivileged_userns_clone` (Debian's older kernels).
    pub userns_clone: Option<u64>,
    /// `user.max_user_namespaces`.
    pub max_user_namespaces: Option<u64>,
    /// Mounts over parts of /proc (a container runtime's masked paths),
    /// which make the kernel refuse a fresh /proc to a process in a user
    /// namespace that did not make them.
    pub proc_covered: Vec<String>,
}

const CAP_SYS_ADMIN: u32 = 21;
const CAP_NET_ADMIN: u32 = 12;

impl Facts {
    /// Reads the facts of this process.
    pub fn read() -> Facts {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(str::trim)
                .unwrap_or("")
                .to_string()
        };
        let caps = u64::from_str_radix(&field("CapEff:"), 16).unwrap_or(0);
        let sysctl = |p: &str| {
            std::fs::read_to_string(Path::new("/proc/sys").join(p))
                .ok()
                .and_then(|s| s.trim().parse().ok())
        };
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        Facts {
            // SAFETY: geteuid cannot fail.
            euid: unsafe { libc::geteuid() },
            cap_sys_admin: caps & (1 << CAP_SYS_ADMIN) != 0,
            cap_net_admin: caps & (1 << CAP_NET_ADMIN) != 0,
            seccomp: field("Seccomp:").parse().unwrap_or(0),
            apparmor_restrict: sysctl("kernel/apparmor_restrict_unprivileged_userns"),
            userns_clone: sysctl("kernel/unprivileged_userns_clone"),
            max_user_namespaces: sysctl("user/max_user_namespaces"),
            proc_covered: proc_covered(&mountinfo),
        }
    }

    /// The reasons the sandbox can be refused here, each with what to do,
    /// most likely first; `error` is what the refused step said.
    fn reasons(&self, error: &str) -> Vec<String> {
        let mut r = Vec::new();
        let proc_refused = error.contains("/proc");
        if self.euid == 0 && !self.cap_sys_admin {
            r.push(
                "langbench runs as root without CAP_SYS_ADMIN (as in a container under the runtime's \
                 defaults), and the kernel gives the PID and mount namespaces only with it: grant it \
                 in the container's own user namespace (podman/docker `--cap-add SYS_ADMIN`, with \
                 `--userns` where the runtime can; Kubernetes `hostUsers: false` and \
                 `capabilities: {add: [SYS_ADMIN, NET_ADMIN]}`)"
                    .to_string(),
            );
        }
        if self.euid == 0 && !self.cap_net_admin {
            r.push(
                "langbench runs as root without CAP_NET_ADMIN, so the sandbox's own network namespace \
                 gets no loopback (`lo` stays down): `prepare` steps cannot reach langbench's registry \
                 proxy and ws servers cannot listen; grant it with CAP_SYS_ADMIN (podman/docker \
                 `--cap-add NET_ADMIN`; Kubernetes `capabilities: {add: [SYS_ADMIN, NET_ADMIN]}` with \
                 `hostUsers: false`)"
                    .to_string(),
            );
        }
        if self.euid != 0 {
            if self.apparmor_restrict.is_some_and(|v| v != 0) {
                r.push(
                    "AppArmor restricts unprivileged user namespaces \
                     (kernel.apparmor_restrict_unprivileged_userns = 1, as on Ubuntu 23.10 and later, \
                     GitHub's ubuntu-24.04 runners included): `sudo sysctl -w \
                     kernel.apparmor_restrict_unprivileged_userns=0`, or run langbench as root"
                        .to_string(),
                );
            }
            if self.userns_clone == Some(0) {
                r.push(
                    "unprivileged user namespaces are off (kernel.unprivileged_userns_clone = 0): \
                     `sudo sysctl -w kernel.unprivileged_userns_clone=1`, or run langbench as root"
                        .to_string(),
                );
            }
            if self.max_user_namespaces == Some(0) {
                r.push(
                    "no user namespace may be created here (user.max_user_namespaces = 0 in this \
                     user namespace): raise it, or run langbench as root"
                        .to_string(),
                );
            }
        }
        if self.seccomp == 2 && !self.cap_sys_admin {
            r.push(
                "a seccomp filter is on this process (Seccomp: 2 in /proc/self/status): a container \
                 runtime's default profile refuses unshare, mount and setns without CAP_SYS_ADMIN; \
                 grant the capability (above) or run under a profile that allows them \
                 (`--security-opt seccomp=unconfined`, Kubernetes `seccompProfile: {type: Unconfined}` \
                 or a custom profile)"
                    .to_string(),
            );
        }
        if !self.proc_covered.is_empty()
            && (proc_refused || r.is_empty())
            && !error.contains(NO_LOOPBACK)
        {
            r.push(format!(
                "parts of /proc are covered ({}), as a container runtime masks them; the kernel \
                 refuses a fresh /proc to a user namespace that did not make those mounts: \
                 podman `--security-opt unmask=ALL`, docker `--security-opt systempaths=unconfined`, \
                 Kubernetes `procMount: Unmasked` (with `hostUsers: false`)",
                shorten(&self.proc_covered)
            ));
        }
        if r.is_empty() {
            r.push(format!(
                "no missing privilege is visible to langbench (uid {}, CAP_SYS_ADMIN {}, seccomp {}): \
                 a security module (AppArmor, SELinux) or the runtime may deny namespaces or mounts; \
                 run as root on the host, or allow them for langbench",
                self.euid,
                if self.cap_sys_admin { "yes" } else { "no" },
                self.seccomp
            ));
        }
        r
    }

    /// The whole refusal: what failed, why, what to do, and that nothing
    /// ran.
    pub fn explain(&self, error: &str) -> String {
        // The agent's own hint; said in full below.
        let error = error.replace(" (try --no-sandbox)", "");
        let error = error.as_str();
        let mut s = format!(
            "the kernel refused langbench's sandbox ({error}), so nothing was run: langbench does \
             not run contributed commands uncontained unless told to.\n"
        );
        for reason in self.reasons(error) {
            s.push_str(&format!("  - {reason}\n"));
        }
        s.push_str(
            "  Or pass --no-sandbox to run every command uncontained, as the user langbench runs \
             as (only for code you have read: docs/containment.md, \"Fail closed\").",
        );
        s
    }
}

/// What [`Facts::loopback`] reports as the refused step.
const NO_LOOPBACK: &str = "no loopback in the sandbox's network namespace";

impl Facts {
    /// The sandbox is made, but root cannot bring up its loopback (no
    /// CAP_NET_ADMIN, as in a container under its runtime's defaults):
    /// that refusal, else None. Without root the user namespace langbench
    /// makes gives the capability over its own network namespaces.
    pub(super) fn loopback(&self) -> Option<String> {
        (self.euid == 0 && !self.cap_net_admin).then(|| self.explain(NO_LOOPBACK))
    }
}

/// The mount points under /proc (not /proc itself) in a mountinfo text,
/// but the kernel's own binfmt_misc (an empty directory of procfs, which
/// does not block a fresh /proc).
fn proc_covered(mountinfo: &str) -> Vec<String> {
    mountinfo
        .lines()
        .filter_map(|l| l.split(' ').nth(4))
        .filter(|p| p.starts_with("/proc/") && !p.starts_with("/proc/sys/fs/binfmt_misc"))
        .map(str::to_string)
        .collect()
}

fn shorten(paths: &[String]) -> String {
    let mut s = paths.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
    if paths.len() > 4 {
        s.push_str(&format!(", and {} more", paths.len() - 4));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> Facts {
        Facts {
            euid: 1000,
            max_user_namespaces: Some(15000),
            ..Facts::default()
        }
    }

    #[test]
    fn each_missing_privilege_is_named_with_its_remedy() {
        let f = Facts {
            apparmor_restrict: Some(1),
            ..facts()
        };
        let r = f.reasons("cannot create namespaces: Operation not permitted");
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].contains("apparmor_restrict_unprivileged_userns=0"),
            "{r:?}"
        );

        // A container under its runtime's defaults.
        let f = Facts {
            euid: 0,
            seccomp: 2,
            ..facts()
        };
        let r = f.reasons("cannot create namespaces: Operation not permitted");
        assert_eq!(r.len(), 3, "{r:?}");
        assert!(r[0].contains("without CAP_SYS_ADMIN") && r[0].contains("hostUsers: false"));
        assert!(r[1].contains("without CAP_NET_ADMIN") && r[1].contains("NET_ADMIN]"));
        assert!(r[2].contains("seccomp=unconfined"), "{r:?}");
        // CAP_SYS_ADMIN granted, CAP_NET_ADMIN not: the sandbox is made,
        // its loopback is not.
        let f = Facts {
            euid: 0,
            seccomp: 2,
            cap_sys_admin: true,
            proc_covered: vec!["/proc/kcore".into()],
            ..facts()
        };
        let why = f.loopback().expect("refused");
        assert!(
            why.contains(NO_LOOPBACK) && why.contains("without CAP_NET_ADMIN"),
            "{why}"
        );
        assert!(
            !why.contains("/proc/kcore") && !why.contains("without CAP_SYS_ADMIN"),
            "{why}"
        );
        assert!(
            Facts {
                cap_net_admin: true,
                ..f.clone()
            }
            .loopback()
            .is_none()
        );
        assert!(Facts { euid: 1000, ..f }.loopback().is_none());

        let f = Facts {
            max_user_namespaces: Some(0),
            userns_clone: Some(0),
            ..facts()
        };
        let r = f.reasons("x");
        assert!(
            r[0].contains("unprivileged_userns_clone=1")
                && r[1].contains("max_user_namespaces = 0")
        );

        // Root with the capability: only the covered /proc is left.
        let f = Facts {
            euid: 0,
            cap_sys_admin: true,
            cap_net_admin: true,
            seccomp: 2,
            proc_covered: vec!["/proc/kcore".into(), "/proc/keys".into()],
            ..facts()
        };
        let r = f.reasons("sandbox: mount /proc: Operation not permitted");
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(r[0].contains("/proc/kcore, /proc/keys") && r[0].contains("procMount: Unmasked"));

        // Nothing visible: still a reason, never an empty list.
        let r = Facts {
            euid: 0,
            cap_sys_admin: true,
            cap_net_admin: true,
            ..facts()
        }
        .reasons("x");
        assert!(r[0].contains("security module"), "{r:?}");
        let all = facts().explain("cannot create namespaces: EPERM");
        assert!(
            all.contains("nothing was run") && all.contains("--no-sandbox"),
            "{all}"
        );
    }

    #[test]
    fn covered_proc_paths_come_from_mountinfo() {
        let info = "22 1 0:5 / /proc rw - proc proc rw\n\
                    23 22 0:6 / /proc/sys/fs/binfmt_misc rw - autofs systemd-1 rw\n\
                    24 22 0:7 /null /proc/kcore ro - devtmpfs udev rw\n\
                    25 22 0:8 / /proc/acpi ro - tmpfs tmpfs ro\n";
        assert_eq!(proc_covered(info), ["/proc/kcore", "/proc/acpi"]);
    }
}
