//! `langbench list`: versions from the cache when nothing a probe runs
//! changed (no probe runs), probed anew when its binary changes; probes
//! that hang time out in parallel and say so; a probe's output cannot
//! break the cache file.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime};

use crate::util::*;

/// `langbench list ARGS --json` with the version cache at `cache`.
fn list(f: &Fixture, cache: &Path, args: &[&str]) -> (Output, serde_json::Value) {
    let o = Command::new(bin())
        .args(["list", "--languages", &f.languages(), "--json"])
        .args(args)
        .env("LANGBENCH_VERSION_CACHE", cache)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let json = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    (o, json)
}

fn version_of(json: &serde_json::Value, id: &str) -> String {
    json.as_array()
        .unwrap()
        .iter()
        .find(|v| v["id"] == id)
        .unwrap_or_else(|| panic!("{id} in {json}"))["version"]
        .as_str()
        .unwrap()
        .to_string()
}

/// An executable script at `path`.
fn script(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The second `list` answers from the cache: the probe now prints 2.0, but
/// its file looks unchanged (same size, same mtime), so it does not run.
/// Once its mtime changes, it runs again.
#[test]
fn list_answers_from_the_cache_until_the_probe_binary_changes() {
    let f = Fixture::new("", &[]);
    let probe = f.path().join("probe");
    script(&probe, "#!/bin/sh\necho 1.0\n");
    let entry = Entry::sh("cached")
        .needs(&["sh"])
        .version_command(probe.to_str().unwrap())
        .program("programs/num-comb/ok.sh");
    std::fs::write(f.path().join("languages.toml"), languages_toml(&[entry])).unwrap();
    std::fs::create_dir_all(f.path().join("programs/num-comb")).unwrap();
    std::fs::write(f.path().join("programs/num-comb/ok.sh"), "echo 0 1 $1\n").unwrap();
    let cache = f.path().join("cache/versions.json");
    let (_, json) = list(&f, &cache, &[]);
    assert_eq!(version_of(&json, "cached"), "1.0");
    assert!(cache.is_file(), "the cache is written");

    let was = std::fs::metadata(&probe).unwrap().modified().unwrap();
    script(&probe, "#!/bin/sh\necho 2.0\n");
    std::fs::File::options()
        .write(true)
        .open(&probe)
        .unwrap()
        .set_modified(was)
        .unwrap();
    let (_, json) = list(&f, &cache, &[]);
    assert_eq!(
        version_of(&json, "cached"),
        "1.0",
        "from the cache: no probe ran"
    );
    let (_, json) = list(&f, &cache, &["--refresh"]);
    assert_eq!(version_of(&json, "cached"), "2.0", "--refresh probes");

    script(&probe, "#!/bin/sh\necho 3.0\n");
    std::fs::File::options()
        .write(true)
        .open(&probe)
        .unwrap()
        .set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    let (_, json) = list(&f, &cache, &[]);
    assert_eq!(
        version_of(&json, "cached"),
        "3.0",
        "a changed binary is probed"
    );
}

/// Whatever a (hostile) probe prints stays one version string: the cache
/// file is still JSON, and the next `list` reads the same text back from
/// it. A cache file that is not JSON is replaced, not fatal.
#[test]
fn a_probe_s_output_cannot_break_the_cache() {
    let f = Fixture::new("", &[]);
    let probe = f.path().join("probe");
    let evil = r#"1.0"}},"versions":{"evil":{"key":null}},"x":"\"#;
    script(&probe, &format!("#!/bin/sh\nprintf '%s\\n' '{evil}'\n"));
    let toml = format!(
        "[[variant]]\nid = \"evil\"\nlanguage = \"Evil\"\nflags = \"evil\"\nneeds = [\"sh\"]\n\
         version = {}\nversion_regex = '(.*)'\nrun = \"sh {{src}} {{n}}\"\n\
         programs = {{ num-comb = \"programs/num-comb/ok.sh\" }}\n",
        toml::Value::String(probe.display().to_string())
    );
    std::fs::write(f.path().join("languages.toml"), toml).unwrap();
    std::fs::create_dir_all(f.path().join("programs/num-comb")).unwrap();
    std::fs::write(f.path().join("programs/num-comb/ok.sh"), "echo 0 1 $1\n").unwrap();
    let cache = f.path().join("versions.json");
    std::fs::write(&cache, "not json {{{").unwrap();
    let (_, json) = list(&f, &cache, &[]);
    assert_eq!(version_of(&json, "evil"), evil);
    let stored: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&cache).unwrap()).expect("the cache is JSON");
    assert_eq!(stored["versions"].as_object().unwrap().len(), 1, "{stored}");
    assert_eq!(stored["versions"]["evil"]["version"], evil);
    // And read back from it as it was printed.
    let (_, json) = list(&f, &cache, &[]);
    assert_eq!(version_of(&json, "evil"), evil);
}

/// A probe that is only slow (it works, using CPU, for 11 s, as a JVM
/// starting on a loaded machine may) is tried once more with a longer
/// timeout and its version read; one that waits is not (above).
#[test]
fn a_busy_probe_gets_a_second_longer_try() {
    let busy =
        "sh -c 'end=$(($(date +%s)+11)); while [ $(date +%s) -lt $end ]; do :; done; echo 2.5'";
    let entries = [Entry::sh("busy")
        .version_command(busy)
        .program("programs/num-comb/ok.sh")];
    let f = Fixture::new(
        &languages_toml(&entries),
        &[("programs/num-comb/ok.sh", "echo 0 1 $1\n")],
    );
    let (_, json) = list(&f, &f.path().join("versions.json"), &[]);
    assert_eq!(version_of(&json, "busy"), "2.5", "{json}");
}

/// Three probes that hang: each stopped at the probe timeout (10 s) and
/// said "timed out", all at once: far less than the 30 s one after another.
#[test]
fn hanging_probes_time_out_in_parallel_and_say_so() {
    let entries: Vec<Entry> = (1..=3)
        .map(|i| {
            Entry::sh(&format!("hang{i}"))
                .version_command("sh -c 'sleep 60'")
                .program("programs/num-comb/ok.sh")
        })
        .collect();
    let f = Fixture::new(
        &languages_toml(&entries),
        &[("programs/num-comb/ok.sh", "echo 0 1 $1\n")],
    );
    let cache = f.path().join("versions.json");
    let t = Instant::now();
    let (_, json) = list(&f, &cache, &[]);
    let took = t.elapsed();
    for i in 1..=3 {
        let v = version_of(&json, &format!("hang{i}"));
        assert!(v.starts_with("unknown (timed out"), "{v}");
        assert!(v.contains("within 10 s"), "{v}");
    }
    assert!(took < Duration::from_secs(25), "{took:?}: not in parallel");
    assert!(
        took >= Duration::from_secs(10),
        "{took:?}: the timeout is 10 s"
    );
    // A timed-out version is not cached: the next list probes again.
    let stored: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&cache).unwrap_or_else(|_| b"{}".to_vec())).unwrap();
    assert!(
        stored["versions"].as_object().is_none_or(|m| m.is_empty()),
        "{stored}"
    );
}
