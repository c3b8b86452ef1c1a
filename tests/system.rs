//! `langbench system show` (issue #60): the host's facts read by the real
//! binary in an empty HOME, as a user without privileges.

use std::path::Path;
use std::process::Command;

use crate::util::{bin, text};

/// `langbench system show ARGS` in the empty HOME `home`, from a copy of
/// the binary in `dir`: as `nobody` (setpriv) when the tests run as root,
/// with a bare environment (no XDG variables, a plain PATH).
fn show(dir: &Path, home: &Path, args: &[&str]) -> std::process::Output {
    use std::os::unix::fs::PermissionsExt;
    let exe = dir.join("langbench");
    if !exe.exists() {
        std::fs::copy(bin(), &exe).unwrap();
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let mut cmd = if root {
        std::os::unix::fs::chown(home, Some(65534), Some(65534)).unwrap();
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    cmd.args(["system", "show"])
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .current_dir(home)
        .output()
        .expect("langbench runs")
}

/// What a user reads: the machine, each fact with its verdict (the
/// virtual machine, memory, transparent huge pages, the balloon, DAMON),
/// the closing sentence; the JSON has every fact with a known verdict;
/// nothing is written to HOME (or anywhere: it only reads).
#[test]
fn system_show_reads_the_host_in_an_empty_home_without_privileges() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let o = show(dir.path(), &home, &[]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("Machine: "), "{out}");
    for words in [
        "nothing was changed",
        "virtual machine",
        "CPU frequency governor",
        "steal time",
        "load average",
        "memory",
        "transparent huge pages",
        "virtio balloon",
        "DAMON",
        "ASLR",
    ] {
        assert!(out.contains(words), "no {words:?} in:\n{out}");
    }
    assert!(
        out.contains("may add noise: ") || out.contains("Nothing here may add noise."),
        "{out}"
    );
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("error"),
        "{}",
        text(&o)
    );

    let o = show(dir.path(), &home, &["--format", "json"]);
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let facts = json["facts"].as_array().expect("facts");
    let keys: Vec<&str> = facts.iter().map(|f| f["key"].as_str().unwrap()).collect();
    for key in [
        "virtualization",
        "cpu",
        "memory",
        "thp",
        "balloon",
        "damon",
        "busy",
    ] {
        assert!(keys.contains(&key), "{key} missing: {keys:?}");
    }
    for f in facts {
        let verdict = f["verdict"].as_str().unwrap();
        assert!(["ok", "may-add-noise", "unknown"].contains(&verdict), "{f}");
        assert!(f["value"].as_str().is_some_and(|v| !v.is_empty()), "{f}");
    }
    assert!(json["machine"]["cpus"].as_u64().unwrap() >= 1, "{json}");
    assert!(json["warnings"].is_array(), "{json}");
    let left: Vec<_> = std::fs::read_dir(&home).unwrap().flatten().collect();
    assert!(left.is_empty(), "system show wrote into HOME: {left:?}");
}
