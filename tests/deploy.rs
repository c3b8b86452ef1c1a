//! The edition on N machines (issue #42) and CI's hygiene (issue #37 rows
//! 9, 13, 14): the Kubernetes manifests decoded strictly against the
//! Kubernetes API's own types, with the security settings the container
//! rehearsal (deploy/rehearse.sh) runs them under; the GitHub workflows'
//! pinned actions, read-only tokens, unpersisted credentials and allowed
//! sandbox; .ci/contained on real sessions.

use std::path::Path;
use std::process::Command;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Container, PodSpec};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use serde::Deserialize;

use crate::util::*;

/// A manifest's documents decoded: its one batch/v1 Job and its
/// networking/v1 NetworkPolicies, every field known to the Kubernetes API
/// (k8s-openapi's types), apiVersion and kind checked by the type; with
/// the fields the types do not know (a misspelt or misplaced one, which
/// the API server would drop or refuse).
#[derive(Debug)]
struct Manifest {
    job: Job,
    policies: Vec<NetworkPolicy>,
}

fn decode(text: &str) -> Result<(Manifest, Vec<String>), String> {
    let mut unknown = Vec::new();
    let mut jobs = Vec::new();
    let mut policies = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        let value = serde_yaml_ng::Value::deserialize(doc).map_err(|e| e.to_string())?;
        let note = |p: serde_ignored::Path| unknown.push(p.to_string());
        if value.get("kind").and_then(|k| k.as_str()) == Some("NetworkPolicy") {
            policies.push(serde_ignored::deserialize(value, note).map_err(|e| e.to_string())?);
        } else {
            jobs.push(serde_ignored::deserialize(value, note).map_err(|e| e.to_string())?);
        }
    }
    let job = match <[Job; 1]>::try_from(jobs) {
        Ok([job]) => job,
        Err(jobs) => return Err(format!("{} Jobs, not one", jobs.len())),
    };
    Ok((Manifest { job, policies }, unknown))
}

/// A manifest of the repository, decoded strictly.
fn manifest(path: &str) -> Manifest {
    let text = std::fs::read_to_string(repo().join(path)).unwrap();
    let (m, unknown) = decode(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(
        unknown.is_empty(),
        "{path}: fields the API does not know: {unknown:?}"
    );
    m
}

/// The Job of a manifest of the repository, decoded strictly.
fn job(path: &str) -> Job {
    manifest(path).job
}

/// The decoding is strict: a misspelt field, a field in the wrong place
/// and a wrong kind are each caught.
#[test]
fn the_manifest_decoding_names_what_the_api_does_not_know() {
    let text = std::fs::read_to_string(repo().join("deploy/kubernetes/edition.yaml")).unwrap();
    let (_, unknown) = decode(&text.replace("hostUsers:", "hostUser:")).unwrap();
    // serde_ignored's path: `?` for each optional field on the way.
    assert_eq!(unknown, ["spec.?.template.?.spec.?.hostUser"]);
    // In the NetworkPolicy too.
    let (_, unknown) = decode(&text.replace("policyTypes:", "policyType:")).unwrap();
    assert_eq!(unknown, ["spec.?.policyType"]);
    let (_, unknown) = decode(&text.replace(
        "      hostUsers: false\n",
        "      hostUsers: false\n      procMount: Unmasked\n",
    ))
    .unwrap();
    assert_eq!(unknown, ["spec.?.template.?.spec.?.procMount"]);
    let e = decode(&text.replace("kind: Job", "kind: CronJob")).unwrap_err();
    assert!(e.contains("CronJob"), "{e}");
}

/// Issue #59, row 12: no pod of the manifests mounts a service-account
/// token, and a NetworkPolicy of its own manifest selects it (by its
/// labels) and denies every connection in and out. Each judgement is
/// shown to fail where the manifest would be wrong.
#[test]
fn issue59_row12_every_pod_holds_no_token_and_is_denied_the_network() {
    let dir = repo().join("deploy/kubernetes");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = format!("deploy/kubernetes/{}", e.file_name().to_string_lossy());
        if !path.ends_with(".yaml") {
            continue;
        }
        let m = manifest(&path);
        assert_eq!(
            pod(&m.job).automount_service_account_token,
            Some(false),
            "{path}: the pod mounts a service-account token"
        );
        assert!(
            denied_the_network(&m),
            "{path}: no NetworkPolicy denies its pods everything"
        );
        seen += 1;
    }
    assert_eq!(seen, 2, "edition.yaml and merge.yaml");
    // What each judgement catches.
    let text = std::fs::read_to_string(dir.join("edition.yaml")).unwrap();
    let wrong = |from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        decode(&text.replace(from, to)).unwrap().0
    };
    let token = wrong(
        "automountServiceAccountToken: false",
        "automountServiceAccountToken: true",
    );
    assert_eq!(pod(&token.job).automount_service_account_token, Some(true));
    let allow_egress = "policyTypes: [Ingress, Egress]\n  egress: [{}]";
    assert!(!denied_the_network(&wrong(
        "policyTypes: [Ingress, Egress]",
        allow_egress
    )));
    let ingress_only = "policyTypes: [Ingress]";
    assert!(!denied_the_network(&wrong(
        "policyTypes: [Ingress, Egress]",
        ingress_only
    )));
    let other_pods = "      app.kubernetes.io/component: shard\n  policyTypes";
    let other_pods = wrong(
        other_pods,
        "      app.kubernetes.io/component: other\n  policyTypes",
    );
    assert!(!denied_the_network(&other_pods));
}

/// Whether a NetworkPolicy of `m` selects its Job's pods (an empty
/// selector selects every pod of the namespace) and denies them every
/// connection: both directions named, no rule that allows one.
fn denied_the_network(m: &Manifest) -> bool {
    let template = &m.job.spec.as_ref().unwrap().template;
    let labels = template
        .metadata
        .as_ref()
        .and_then(|meta| meta.labels.clone())
        .unwrap_or_default();
    m.policies.iter().any(|p| {
        let Some(spec) = p.spec.as_ref() else {
            return false;
        };
        let selects = spec.pod_selector.as_ref().is_none_or(|s| {
            s.match_expressions.as_ref().is_none_or(|e| e.is_empty())
                && s.match_labels
                    .as_ref()
                    .is_none_or(|want| want.iter().all(|(k, v)| labels.get(k) == Some(v)))
        });
        let types = spec.policy_types.clone().unwrap_or_default();
        selects
            && types.iter().any(|t| t == "Ingress")
            && types.iter().any(|t| t == "Egress")
            && spec.ingress.as_ref().is_none_or(|r| r.is_empty())
            && spec.egress.as_ref().is_none_or(|r| r.is_empty())
    })
}

fn pod(job: &Job) -> &PodSpec {
    job.spec.as_ref().unwrap().template.spec.as_ref().unwrap()
}

fn container<'a>(job: &'a Job, name: &str) -> &'a Container {
    pod(job)
        .containers
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no container {name}"))
}

/// The podman options deploy/rehearse.sh derives from a manifest's pod and
/// container (its `pod_flags`, run as the rehearsal runs it).
fn rehearsal_flags(manifest: &str, container: &str, index: u32) -> Vec<String> {
    let script = std::fs::read_to_string(repo().join("deploy/rehearse.sh")).unwrap();
    let python = script
        .split("pod_flags() {\n    python3 - \"$@\" <<'EOF'\n")
        .nth(1)
        .and_then(|r| r.split("\nEOF\n").next())
        .expect("pod_flags's python in deploy/rehearse.sh");
    let o = Command::new("python3")
        .args(["-c", python])
        .arg(repo().join(manifest))
        .arg(container)
        .arg(index.to_string())
        .output()
        .unwrap();
    assert!(o.status.success(), "pod_flags {manifest}: {}", text(&o));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The shards' Job: Indexed, one shard per index, each pod in a user
/// namespace of its own with CAP_SYS_ADMIN and CAP_NET_ADMIN over it (what
/// langbench's sandbox needs, and the least the rehearsal showed it
/// needs), the
/// runtime's default seccomp profile, whole cores requested and limited
/// alike (Guaranteed QoS), and its own directory of the results volume;
/// the merge Job reads every shard's directory and holds no capability.
/// The settings are the ones deploy/rehearse.sh runs the containers
/// under, and deploy/README.md names.
#[test]
fn the_manifests_decode_strictly_with_the_rehearsed_settings() {
    let shards = job("deploy/kubernetes/edition.yaml");
    let spec = shards.spec.as_ref().unwrap();
    assert_eq!(spec.completion_mode.as_deref(), Some("Indexed"));
    assert_eq!(spec.completions, spec.parallelism);
    assert_eq!(spec.backoff_limit, Some(0));
    let p = pod(&shards);
    assert_eq!(p.host_users, Some(false), "a user namespace per pod");
    assert_eq!(p.restart_policy.as_deref(), Some("Never"));
    let c = container(&shards, "shard");
    let env = |name: &str| {
        c.env
            .as_ref()
            .unwrap()
            .iter()
            .find(|e| e.name == name)
            .and_then(|e| e.value.clone())
            .unwrap_or_else(|| panic!("env {name}"))
    };
    assert_eq!(env("SHARDS").parse::<i32>().ok(), spec.completions);
    assert_eq!(env("VARIANTS"), "", "every variant by default");
    let sc = c.security_context.as_ref().expect("securityContext");
    let caps = sc.capabilities.as_ref().unwrap();
    assert_eq!(
        caps.add.as_deref(),
        Some(&["SYS_ADMIN".to_string(), "NET_ADMIN".to_string()][..])
    );
    assert_eq!(sc.privileged, None, "never a privileged pod");
    assert_eq!(sc.seccomp_profile.as_ref().unwrap().type_, "RuntimeDefault");
    assert_eq!(sc.app_armor_profile.as_ref().unwrap().type_, "Unconfined");
    assert_eq!(sc.proc_mount, None, "the default masked /proc is enough");
    // Whole cores, requests equal to limits.
    let r = c.resources.as_ref().unwrap();
    assert_eq!(r.requests, r.limits);
    let cpu = &r.limits.as_ref().unwrap()["cpu"].0;
    assert!(
        cpu.parse::<u32>().is_ok_and(|n| n >= 1),
        "whole cores: {cpu}"
    );
    assert!(r.limits.as_ref().unwrap().contains_key("memory"));
    // One directory of the volume per shard.
    let m = c.volume_mounts.as_ref().unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].mount_path, "/results");
    let sub = m[0].sub_path_expr.as_deref().expect("subPathExpr");
    assert!(sub.contains("$(JOB_COMPLETION_INDEX)"), "{sub}");
    let script = c.args.as_ref().unwrap().join("\n");
    assert_eq!(c.command.as_deref(), Some(&["sh".into(), "-c".into()][..]));
    assert!(
        script.contains("K=$((JOB_COMPLETION_INDEX + 1))"),
        "{script}"
    );
    assert!(
        script.contains(
            "langbench run --size \"$SIZE\" --shard \"$K/$SHARDS\" --balance-from results/2026 --out \"/results/shard-$K\""
        ),
        "{script}"
    );
    // --resume only where there is something to resume: on a fresh
    // volume it is an error (deploy/rehearse.sh found it).
    assert!(
        script.contains("if [ -d \"/results/shard-$K\" ]; then set -- \"$@\" --resume; fi"),
        "{script}"
    );

    let merge = job("deploy/kubernetes/merge.yaml");
    let mc = container(&merge, "merge");
    let merge_cmd = mc.args.as_ref().unwrap().join(" ");
    let prefix = sub.split("$(").next().unwrap();
    assert_eq!(
        merge_cmd,
        format!("langbench merge /results/edition /results/{prefix}*/shard-*")
    );
    let msc = mc.security_context.as_ref().unwrap();
    assert_eq!(
        msc.capabilities.as_ref().unwrap().drop.as_deref(),
        Some(&["ALL".to_string()][..])
    );
    assert_eq!(
        pod(&merge).volumes.as_ref().unwrap()[0]
            .persistent_volume_claim
            .as_ref()
            .unwrap()
            .claim_name,
        p.volumes.as_ref().unwrap()[0]
            .persistent_volume_claim
            .as_ref()
            .unwrap()
            .claim_name
    );

    // The rehearsal runs the shard under exactly these settings, as
    // podman options (a user namespace of 65536 ids per pod, as the
    // kubelet's), and the merge under its own.
    assert_eq!(
        rehearsal_flags("deploy/kubernetes/edition.yaml", "shard", 1),
        [
            "--uidmap=0:265536:65536",
            "--gidmap=0:265536:65536",
            "--cap-add=SYS_ADMIN",
            "--cap-add=NET_ADMIN",
            "--security-opt=apparmor=unconfined",
        ]
    );
    assert_eq!(
        rehearsal_flags("deploy/kubernetes/merge.yaml", "merge", 0),
        [
            "--uidmap=0:200000:65536",
            "--gidmap=0:200000:65536",
            "--security-opt=no-new-privileges",
            "--cap-drop=ALL",
        ]
    );
    let readme = std::fs::read_to_string(repo().join("deploy/README.md")).unwrap();
    for flag in [
        "--cap-add SYS_ADMIN --cap-add NET_ADMIN",
        "--uidmap",
        "hostUsers: false",
        "add: [SYS_ADMIN, NET_ADMIN]",
    ] {
        assert!(
            readme.contains(flag),
            "deploy/README.md does not name {flag}"
        );
    }
}

/// A workflow as YAML, and its text.
fn workflow(name: &str) -> (serde_yaml_ng::Value, String) {
    let text = std::fs::read_to_string(repo().join(".github/workflows").join(name)).unwrap();
    let v = serde_yaml_ng::Value::deserialize(serde_yaml_ng::Deserializer::from_str(&text))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    (v, text)
}

/// Issue #37 rows 9 and 14, and #42's runners: in both workflows every
/// action is pinned by a commit (its release named in a comment); every
/// job's token may only read, and no checkout leaves it in .git/config;
/// no `${{ inputs.* }}` or other expression is expanded inside a `run:`
/// (they pass through `env:`); a job that runs a languages file's
/// commands lifts AppArmor's user-namespace restriction first (or runs in
/// a privileged container), never runs in an unprivileged one, and a
/// measuring job checks its sessions were contained. actionlint (with
/// shellcheck) passes where it is installed (.ci/run installs it).
#[test]
fn the_workflows_pin_actions_keep_tokens_read_only_and_allow_the_sandbox() {
    let pinned =
        regex::Regex::new(r"^\s*(- )?uses: [\w.-]+/[\w./-]+@[0-9a-f]{40} # v?[\w.]+$").unwrap();
    for name in ["edition.yml", "pr.yml"] {
        let (wf, text) = workflow(name);
        for l in text.lines().filter(|l| l.contains("uses:")) {
            assert!(pinned.is_match(l), "{name}: not pinned by commit: {l}");
        }
        assert_eq!(wf["permissions"]["contents"], "read", "{name}");
        let jobs = wf["jobs"].as_mapping().unwrap();
        for (id, job) in jobs {
            let id = id.as_str().unwrap();
            assert_eq!(job["permissions"]["contents"], "read", "{name}: job {id}");
            assert_eq!(
                job["permissions"].as_mapping().unwrap().len(),
                1,
                "{name}: job {id} asks for more than contents: read"
            );
            let steps = job["steps"].as_sequence().unwrap();
            let mut sandbox_allowed = job["container"]["options"]
                .as_str()
                .is_some_and(|o| o.contains("--privileged"));
            let mut ran = false;
            let mut checked = false;
            for s in steps {
                if let Some(uses) = s["uses"].as_str()
                    && uses.starts_with("actions/checkout@")
                {
                    assert_eq!(
                        s["with"]["persist-credentials"], false,
                        "{name}: job {id} keeps the token in .git/config"
                    );
                }
                let Some(run) = s["run"].as_str() else {
                    continue;
                };
                assert!(
                    !run.contains("${{"),
                    "{name}: job {id} expands an expression inside run: {run}"
                );
                if run.contains("apparmor_restrict_unprivileged_userns=0") {
                    sandbox_allowed = true;
                }
                let runs_languages = run.contains("langbench run")
                    || run.contains("langbench toolchains install")
                    || run.contains(".ci/pr")
                    || run.contains("attacks::");
                if runs_languages {
                    assert!(
                        sandbox_allowed,
                        "{name}: job {id} runs `{run}` before the sandbox is allowed"
                    );
                    assert!(
                        job["container"].is_null() || sandbox_allowed,
                        "{name}: job {id} runs a languages file in an unprivileged container"
                    );
                }
                ran |= run.contains("langbench run");
                checked |= ran && run.starts_with(".ci/contained ");
            }
            assert_eq!(
                ran, checked,
                "{name}: job {id} does not check its sessions were contained"
            );
        }
    }
    // PR CI's check job on the runner itself, running an attack row.
    let (pr, _) = workflow("pr.yml");
    let check = &pr["jobs"]["check"];
    assert!(check["container"].is_null(), "pr.yml: check in a container");
    let runs: Vec<&str> = check["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect();
    assert!(
        runs.iter().any(|r| r.contains("attacks::issue37_row09")),
        "{runs:?}"
    );

    // .ci/run installs it and says where (ACTIONLINT).
    let home = std::env::var("HOME").unwrap_or_default();
    let actionlint = std::env::var("ACTIONLINT")
        .into_iter()
        .chain([
            "actionlint".to_string(),
            format!("{home}/go/bin/actionlint"),
        ])
        .find(|a| Command::new(a).arg("-version").output().is_ok());
    match actionlint {
        Some(a) => {
            let o = Command::new(a)
                .current_dir(repo())
                .args([".github/workflows/edition.yml", ".github/workflows/pr.yml"])
                .output()
                .unwrap();
            assert!(o.status.success(), "actionlint: {}", text(&o));
        }
        None => {
            assert!(
                std::env::var_os("CI").is_none(),
                "actionlint is not installed (.ci/run installs it)"
            );
            eprintln!(
                "skipped actionlint: not installed (go install github.com/rhysd/actionlint/cmd/actionlint@latest)"
            );
        }
    }
}

/// .ci/contained, the workflows' last check: a real contained session
/// passes, a `--no-sandbox` one and a directory without sessions fail.
#[test]
fn ci_contained_fails_on_an_uncontained_session() {
    let f = Fixture::new(
        &languages_toml(&[Entry::sh("a")]),
        &[("programs/num-comb/a.sh", "echo 0 1 $1\n")],
    );
    let script = repo().join(".ci/contained");
    let contained = |dir: &Path| Command::new(&script).arg(dir).output().unwrap();
    let o = f.run(&[]);
    assert!(o.status.success(), "{}", text(&o));
    let out = f.path().join("results");
    let o = contained(&out);
    assert!(o.status.success(), "{}", text(&o));
    let o = Command::new(bin())
        .arg("--no-sandbox")
        .args(f.run_args(&[]))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let o = contained(&out);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("sessions.jsonl:2: the session ran uncontained: none (--no-sandbox)"),
        "{}",
        text(&o)
    );
    let empty = tempfile::tempdir().unwrap();
    let o = contained(empty.path());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("no session record"), "{}", text(&o));
}
