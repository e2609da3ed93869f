//! User commands: what a learner or a scenario does to the cluster — `kubectl apply`, `scale`,
//! `set image`, `rollout undo|pause|resume|restart`, `cordon`, `uncordon`, `drain`, `taint`,
//! `delete pod` (graceful or forced) — each with kubectl's client-side logic and messages,
//! turned into API writes; and the faults a person injects (a node's kubelet stopping, and its
//! repair, a broken readiness endpoint, a crash, a registry that stops serving an image).

use super::api::meta::StringMap;
use super::api::{Deployment, DeploymentStrategyType, Taint, Time};
use super::controller::deployment::util::{
    DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY, LAST_APPLIED_CONFIG_ANNOTATION, REVISION_ANNOTATION,
    equal_ignore_hash, revision, skip_copy_annotation,
};
use super::controller::{Change, Outcome};
use super::store::Store;
use super::three_way;
use super::trace::Stage;
use super::validation::{self, FieldError};
use std::fmt;

/// A user command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `kubectl apply -f` with a full manifest (created when the Deployment does not exist).
    Apply(Box<Deployment>),
    /// `kubectl scale deployment/<d> --replicas=<n>`.
    Scale { deployment: String, replicas: i32 },
    /// `kubectl set image deployment/<d> <container>=<image>`; no container (or `*`) means
    /// `*=<image>`: every container, init containers included.
    SetImage {
        deployment: String,
        container: Option<String>,
        image: String,
    },
    /// `kubectl rollout undo deployment/<d> [--to-revision=<n>]`; 0 means the previous revision.
    RolloutUndo {
        deployment: String,
        to_revision: i64,
    },
    /// `kubectl rollout pause deployment/<d>`.
    Pause { deployment: String },
    /// `kubectl rollout resume deployment/<d>`.
    Resume { deployment: String },
    /// `kubectl rollout restart deployment/<d>`.
    RolloutRestart { deployment: String },
    /// `kubectl cordon <node>`.
    Cordon(String),
    /// `kubectl uncordon <node>`.
    Uncordon(String),
    /// `kubectl drain <node> [flags]`: cordon, then evict every pod on the node.
    Drain {
        node: String,
        flags: super::drain::DrainFlags,
    },
    /// `kubectl taint nodes <node> key[=value]:Effect`, or with `remove` the same with a
    /// trailing `-`, which removes the taint with that key and effect.
    Taint {
        node: String,
        taint: Taint,
        remove: bool,
    },
    /// A fault: the node's kubelet stops (power loss, network partition). Not a kubectl command.
    FailNode(String),
    /// The repair of that fault: the node's kubelet starts again (`systemctl start kubelet` on
    /// the node), its containers having kept running.
    RestartKubelet(String),
    /// `kubectl delete pod <name> [--grace-period=N] [--force]`; a prefix deletes the first pod
    /// (by name) that starts with it. `grace_period` is kubectl's, after its own rules
    /// ([`parse_delete_pod`]); `force` with a grace period of 0 removes the pod object at once.
    DeletePod {
        pod: String,
        grace_period: Option<i64>,
        force: bool,
    },
    /// A fault: the pod's readiness endpoint stops answering (its app lost a dependency).
    BreakReadiness(String),
    /// A fault: the pod's first container exits with the image's exit code (a crash).
    CrashPod(String),
    /// A fault: the registry stops serving an image; pulls of it fail from now on.
    FailRegistry(String),
    /// `kubectl create configmap <name> --from-literal=K=V …`, or with `secret`,
    /// `kubectl create secret generic <name> --from-literal=K=V …`.
    CreateConfig {
        secret: bool,
        name: String,
        data: std::collections::BTreeMap<String, String>,
    },
}

/// Why a command was refused: kubectl's or the API server's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandError {
    pub message: String,
    /// The field errors behind an API-server refusal (empty for kubectl-side errors).
    pub field_errors: Vec<FieldError>,
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for CommandError {}

/// The file `kubectl apply -f` reads a manifest from, as the trace names it: the Deployment's
/// name with `.yaml`, or `deployment.yaml` for a manifest without a name.
fn manifest_file(d: &Deployment) -> String {
    if d.metadata.name.is_empty() {
        "deployment.yaml".to_string()
    } else {
        format!("{}.yaml", d.metadata.name)
    }
}

fn refuse(message: impl Into<String>) -> CommandError {
    CommandError {
        message: message.into(),
        field_errors: Vec::new(),
    }
}

/// The word kubectl and the kubelet use for a ConfigMap or, with `secret`, a Secret
/// (`configmap/web-settings`, `configmap "web-settings" not found`).
pub fn config_kind(secret: bool) -> &'static str {
    if secret { "secret" } else { "configmap" }
}

impl Command {
    /// The kubectl command line this stands for.
    pub fn describe(&self) -> String {
        match self {
            Command::Apply(d) => format!("kubectl apply -f {}", manifest_file(d)),
            Command::Scale {
                deployment,
                replicas,
            } => {
                format!("kubectl scale deployment/{deployment} --replicas={replicas}")
            }
            Command::SetImage {
                deployment,
                container,
                image,
            } => format!(
                "kubectl set image deployment/{deployment} {}={image}",
                container.as_deref().unwrap_or("*")
            ),
            Command::RolloutUndo {
                deployment,
                to_revision,
            } => {
                if *to_revision == 0 {
                    format!("kubectl rollout undo deployment/{deployment}")
                } else {
                    format!(
                        "kubectl rollout undo deployment/{deployment} --to-revision={to_revision}"
                    )
                }
            }
            Command::Pause { deployment } => {
                format!("kubectl rollout pause deployment/{deployment}")
            }
            Command::Resume { deployment } => {
                format!("kubectl rollout resume deployment/{deployment}")
            }
            Command::RolloutRestart { deployment } => {
                format!("kubectl rollout restart deployment/{deployment}")
            }
            Command::Cordon(n) => format!("kubectl cordon {n}"),
            Command::Uncordon(n) => format!("kubectl uncordon {n}"),
            Command::Drain { node, flags } => format!("kubectl drain {node}{}", flags.text()),
            Command::Taint {
                node,
                taint,
                remove,
            } => format!(
                "kubectl taint nodes {node} {}{}",
                taint.text(),
                if *remove { "-" } else { "" }
            ),
            Command::DeletePod {
                pod,
                grace_period,
                force,
            } => {
                let mut line = format!("kubectl delete pod {pod}");
                if *force {
                    line.push_str(" --force");
                }
                // kubectl's own defaulting is not echoed: only what was typed.
                if let Some(g) = grace_period.filter(|g| !(*force && *g == 0)) {
                    line.push_str(&format!(" --grace-period={g}"));
                } else if *force {
                    line.push_str(" --grace-period=0");
                }
                line
            }
            Command::RestartKubelet(_) => {
                format!("(repair) {}", self.fault().unwrap_or_default())
            }
            Command::FailNode(_)
            | Command::BreakReadiness(_)
            | Command::CrashPod(_)
            | Command::FailRegistry(_) => {
                format!("(fault) {}", self.fault().unwrap_or_default())
            }
            Command::CreateConfig { secret, name, data } => {
                let generic = if *secret { " generic" } else { "" };
                let mut line = format!("kubectl create {}{generic} {name}", config_kind(*secret));
                for (k, v) in data {
                    line.push_str(&format!(" --from-literal={k}={v}"));
                }
                line
            }
        }
    }

    /// What a fault (or its repair) does, in words (`the kubelet on node-1 stops`); `None` for a
    /// kubectl command. A fault cannot be refused as a command is, only miss its target.
    pub fn fault(&self) -> Option<String> {
        Some(match self {
            Command::FailNode(n) => format!("the kubelet on {n} stops"),
            Command::RestartKubelet(n) => format!("the kubelet on {n} starts again"),
            Command::BreakReadiness(p) => format!("the readiness endpoint of {p} fails"),
            Command::CrashPod(p) => format!("the container of {p} crashes"),
            Command::FailRegistry(i) => format!("the registry stops serving {i}"),
            _ => return None,
        })
    }

    /// The object the command acts on, as `kind/name`.
    pub fn object(&self, store: &Store) -> String {
        match self {
            Command::Apply(d) => format!("deployment/{}", d.metadata.name),
            Command::Scale { deployment, .. }
            | Command::SetImage { deployment, .. }
            | Command::RolloutUndo { deployment, .. }
            | Command::Pause { deployment }
            | Command::Resume { deployment }
            | Command::RolloutRestart { deployment } => format!("deployment/{deployment}"),
            Command::Cordon(n)
            | Command::Uncordon(n)
            | Command::FailNode(n)
            | Command::RestartKubelet(n)
            | Command::Drain { node: n, .. }
            | Command::Taint { node: n, .. } => format!("node/{n}"),
            Command::DeletePod { pod: p, .. }
            | Command::BreakReadiness(p)
            | Command::CrashPod(p) => {
                format!("pod/{}", resolve_pod(store, p).unwrap_or_else(|| p.clone()))
            }
            Command::FailRegistry(i) => format!("image/{i}"),
            Command::CreateConfig { secret, name, .. } => {
                format!("{}/{name}", config_kind(*secret))
            }
        }
    }

    /// The stage a command belongs to: rolling back and faults are stage 5, everything else
    /// declares.
    pub fn stage(&self) -> Stage {
        match self {
            Command::RolloutUndo { .. } => Stage::Retry,
            // A fault is stage 5 whether it lands or finds no target.
            _ if self.fault().is_some() => Stage::Retry,
            _ => Stage::Declare,
        }
    }
}

fn resolve_pod(store: &Store, p: &str) -> Option<String> {
    if store.pods.contains_key(p) {
        return Some(p.to_string());
    }
    store
        .pods
        .values()
        .filter(|pod| pod.metadata.deletion_timestamp.is_none())
        .find(|pod| pod.metadata.name.starts_with(p))
        .map(|pod| pod.metadata.name.clone())
}

/// The pod a command names (by name or prefix), or kubectl's NotFound.
fn existing_pod(store: &Store, p: &str) -> Result<String, CommandError> {
    resolve_pod(store, p).ok_or_else(|| {
        refuse(format!(
            "Error from server (NotFound): pods {p:?} not found"
        ))
    })
}

/// The node a command names, or the API server's NotFound.
fn get_node<'a>(store: &'a Store, name: &str) -> Result<&'a super::api::Node, CommandError> {
    store.nodes.get(name).ok_or_else(|| {
        refuse(format!(
            "Error from server (NotFound): nodes {name:?} not found"
        ))
    })
}

fn get_deployment<'a>(store: &'a Store, name: &str) -> Result<&'a Deployment, CommandError> {
    store.deployments.get(name).ok_or_else(|| {
        refuse(format!(
            "Error from server (NotFound): deployments.apps {name:?} not found"
        ))
    })
}

/// Validates and writes a new version of a Deployment, narrating what changed.
fn write_deployment(
    store: &Store,
    old: Option<&Deployment>,
    mut new: Deployment,
    out: &mut Outcome,
    verb: &str,
) -> Result<(), CommandError> {
    validation::set_defaults(&mut new);
    let errs = match old {
        Some(o) => validation::validate_deployment_update(&new, o),
        None => validation::validate_deployment(&new),
    };
    if !errs.is_empty() {
        return Err(CommandError {
            message: validation::render_kubectl_invalid("Deployment", &new.metadata.name, &errs),
            field_errors: errs,
        });
    }
    let name = new.metadata.name.clone();
    match old {
        None => {
            out.say(format!(
                "deployment.apps/{name} created: the API server validated the manifest, filled in defaults and stored it with generation 1. It asks for {} replica{} of {}.",
                new.replicas(),
                if new.replicas() == 1 { "" } else { "s" },
                images_of(&new)
            ));
        }
        Some(o) => {
            let changes = describe_spec_change(o, &new, has_active_replica_sets(store, o));
            if changes.is_empty() {
                out.say(format!("deployment.apps/{name} unchanged."));
                return Ok(());
            }
            let what = if o.spec == new.spec {
                "its annotations changed (for a Deployment, they count like its spec)"
            } else {
                "the spec changed"
            };
            out.say(format!(
                "deployment.apps/{name} {verb}: {}. The API server bumps metadata.generation to {} because {what}.",
                changes.join("; "),
                o.metadata.generation + 1
            ));
        }
    }
    out.change(Change::UpdateDeployment(Box::new(new)));
    Ok(())
}

fn images_of(d: &Deployment) -> String {
    d.spec.template.spec.images(", ")
}

/// The Deployment `kubectl apply` of `manifest` leaves over the live one: its labels,
/// annotations and spec as apply's three-way merge ([`three_way`]) leaves them. A field the
/// manifest sets takes its value; one the manifest applied last set, and this one leaves out,
/// is removed; any other live field stays: the controller's `deployment.kubernetes.io/…`
/// annotations, a label added by `kubectl label`, `spec.replicas` after `kubectl scale` when
/// the manifest leaves it out, `spec.paused` after `rollout pause`, the template's
/// `restartedAt` after `rollout restart`, and what the API server defaulted.
pub fn applied(live: &Deployment, manifest: &Deployment) -> Deployment {
    let mut new = live.clone();
    let original = last_applied(live);
    let merge_map = |live_map: &StringMap, manifest_map: &StringMap, field: &str| {
        let merged = three_way::merge(
            pointer(original.as_ref(), &format!("/metadata/{field}")),
            &serde_json::to_value(manifest_map).unwrap_or_default(),
            serde_json::to_value(live_map).ok().as_ref(),
            &["metadata", field],
        );
        serde_json::from_value(merged).unwrap_or_else(|_| manifest_map.clone())
    };
    new.metadata.labels = merge_map(&live.metadata.labels, &manifest.metadata.labels, "labels");
    new.metadata.annotations = merge_map(
        &live.metadata.annotations,
        &manifest.metadata.annotations,
        "annotations",
    );
    // The spec as the person wrote it (the manifest kubectl records), so that a field left out
    // is told apart from one set to its zero value (`paused: false`). A manifest whose record
    // does not say what its spec says (one edited as an object, not as text) is taken as its
    // spec serializes.
    let name = &manifest.metadata.name;
    let written = last_applied(manifest)
        .and_then(|v| v.get("spec").cloned())
        .filter(|raw| decode_spec(name, raw.clone()).is_some_and(|s| s == manifest.spec))
        .or_else(|| serde_json::to_value(&manifest.spec).ok())
        .unwrap_or_default();
    let merged = three_way::merge(
        pointer(original.as_ref(), "/spec"),
        &written,
        serde_json::to_value(&live.spec).ok().as_ref(),
        &["spec"],
    );
    new.spec = decode_spec(name, merged).unwrap_or_else(|| manifest.spec.clone());
    new
}

/// The value at a JSON pointer, if there is a value to look in.
fn pointer<'v>(v: Option<&'v serde_json::Value>, at: &str) -> Option<&'v serde_json::Value> {
    v.and_then(|v| v.pointer(at))
}

/// A merged spec decoded as the API server decodes what it is sent (quantities in canonical
/// form); `None` if it does not decode, which a merge of two decodable specs should not give.
fn decode_spec(name: &str, spec: serde_json::Value) -> Option<super::api::DeploymentSpec> {
    if !spec.is_object() {
        return None;
    }
    let object = serde_json::json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": spec,
    });
    let doc = super::yaml::parse(&object.to_string(), &super::yaml::Limits::default()).ok()?;
    validation::decode_deployment(&doc).ok().map(|d| d.spec)
}

/// The manifest `kubectl apply` recorded last on `d`, parsed; `None` without a record (an object
/// apply never wrote), where nothing was set by apply.
fn last_applied(d: &Deployment) -> Option<serde_json::Value> {
    d.metadata
        .annotations
        .get(LAST_APPLIED_CONFIG_ANNOTATION)
        // Read with the manifest's own YAML reader (JSON is YAML), so the app carries one parser.
        .and_then(|text| super::yaml::parse(text, &super::yaml::Limits::default()).ok())
        .map(|doc| doc.value)
}

/// Whether `d` has a ReplicaSet that wants pods. Only then is a change of its replicas the
/// controller's scaling event (`isScalingEvent`, spec §5.1); from none, the controller simply
/// grows the newest ReplicaSet.
pub fn has_active_replica_sets(store: &Store, d: &Deployment) -> bool {
    store
        .replica_sets_owned_by(&d.metadata.uid)
        .any(|rs| rs.spec.replicas > 0)
}

/// The spec differences a learner cares about, in words. `active` says whether the Deployment
/// has a ReplicaSet that wants pods ([`has_active_replica_sets`]).
pub fn describe_spec_change(old: &Deployment, new: &Deployment, active: bool) -> Vec<String> {
    let mut out = Vec::new();
    if old.replicas() != new.replicas() {
        let n = new.replicas();
        let how = if active {
            "a scaling event: ReplicaSets are resized, no new rollout".to_string()
        } else if new.spec.paused {
            // Paused, `sync` sizes the ReplicaSet `FindActiveOrLatest` picks.
            format!(
                "not a scaling event, as no ReplicaSet has pods to resize: the controller grows the newest ReplicaSet to {n}"
            )
        } else if new.strategy_type() == DeploymentStrategyType::Recreate {
            format!(
                "not a scaling event, as no ReplicaSet has pods to resize: the Recreate rollout runs the new ReplicaSet at {n}, once no old pod is left"
            )
        } else {
            format!(
                "not a scaling event, as no ReplicaSet has pods to resize: the rolling update brings the new ReplicaSet up to {n}"
            )
        };
        out.push(format!(
            "spec.replicas {} → {} ({how})",
            old.replicas(),
            new.replicas()
        ));
    }
    if !equal_ignore_hash(&old.spec.template, &new.spec.template) {
        let (oi, ni) = (images_of(old), images_of(new));
        // A paused Deployment keeps its template change until it is resumed.
        let then = if new.spec.paused {
            "but the Deployment is paused, so no rollout starts until kubectl rollout resume"
        } else {
            "so a new rollout starts"
        };
        if oi != ni {
            out.push(format!(
                "the pod template changed (image {oi} → {ni}), {then}"
            ));
        } else {
            out.push(format!("the pod template changed, {then}"));
        }
    }
    if old.spec.strategy != new.spec.strategy {
        out.push("the update strategy changed".to_string());
    }
    if old.spec.paused != new.spec.paused {
        out.push(if new.spec.paused {
            "spec.paused is now true: rollouts stop, scaling still works".to_string()
        } else {
            "spec.paused is now false: the rollout continues".to_string()
        });
    }
    for (label, a, b) in [
        (
            "minReadySeconds",
            Some(old.spec.min_ready_seconds),
            Some(new.spec.min_ready_seconds),
        ),
        (
            "progressDeadlineSeconds",
            old.spec.progress_deadline_seconds,
            new.spec.progress_deadline_seconds,
        ),
        (
            "revisionHistoryLimit",
            old.spec.revision_history_limit,
            new.spec.revision_history_limit,
        ),
    ] {
        if a != b {
            out.push(format!("{label} {} → {}", opt(a), opt(b)));
        }
    }
    if old.metadata.labels != new.metadata.labels {
        // The Deployment's own labels: nothing selects or copies them, so they change no pod.
        let (a, b) = (&old.metadata.labels, &new.metadata.labels);
        let mut what: Vec<String> = Vec::new();
        for (k, v) in b.iter() {
            match a.get(k) {
                None => what.push(format!("{k}={v} added")),
                Some(was) if was != v => what.push(format!("{k}={was} → {k}={v}")),
                Some(_) => {}
            }
        }
        for k in a.keys().filter(|k| !b.contains_key(*k)) {
            what.push(format!("{k} removed"));
        }
        out.push(format!(
            "metadata.labels changed ({}): the Deployment's own labels, not its pods', so no new rollout starts",
            what.join(", ")
        ));
    }
    if out.is_empty() && old.metadata.annotations != new.metadata.annotations {
        fn others(d: &Deployment) -> impl Iterator<Item = (&String, &String)> {
            d.metadata
                .annotations
                .iter()
                .filter(|(k, _)| k.as_str() != LAST_APPLIED_CONFIG_ANNOTATION)
        }
        let others_equal = others(old).eq(others(new));
        out.push(if others_equal {
            // Rewriting a manifest without changing what it means (`cpu: 0.5` as `500m`) still
            // changes the manifest kubectl records, and so the object.
            format!(
                "only the {LAST_APPLIED_CONFIG_ANNOTATION} annotation changed: the manifest is written differently but means the same, so no new rollout starts"
            )
        } else {
            "annotations changed".to_string()
        });
    }
    out
}

fn opt(v: Option<i32>) -> String {
    v.map_or_else(|| "unset".to_string(), |v| v.to_string())
}

/// Runs a command against the current state and returns the writes it makes.
///
/// # Errors
/// kubectl's client-side errors and the API server's validation errors, with upstream wording.
pub fn execute(store: &Store, cmd: &Command, now: Time) -> Result<Outcome, CommandError> {
    let mut out = Outcome {
        stage: Some(cmd.stage()),
        ..Default::default()
    };
    match cmd {
        Command::Apply(manifest) => {
            let name = &manifest.metadata.name;
            // kubectl apply first reads the live object by name (`info.Get()` in `applyOneObject`),
            // and the client refuses a request without one, so nothing reaches the API server.
            if name.is_empty() {
                return Err(refuse(format!(
                    "error: error when retrieving current configuration of:\nResource: \"apps/v1, Resource=deployments\", GroupVersionKind: \"apps/v1, Kind=Deployment\"\nName: \"\", Namespace: \"default\"\nfrom server for: {:?}: resource name may not be empty",
                    manifest_file(manifest)
                )));
            }
            match store.deployments.get(name) {
                None => write_deployment(store, None, (**manifest).clone(), &mut out, "created")?,
                Some(old) => write_deployment(
                    store,
                    Some(old),
                    applied(old, manifest),
                    &mut out,
                    "configured",
                )?,
            }
        }
        Command::Scale {
            deployment,
            replicas,
        } => {
            if let Some(why) = super::manifest::beyond_simulated((*replicas).into()) {
                return Err(refuse(format!("spec.replicas: {why}")));
            }
            let old = get_deployment(store, deployment)?;
            // `kubectl scale` writes the scale subresource and reports it whatever it held.
            if old.spec.replicas == Some(*replicas) {
                out.say(format!(
                    "deployment.apps/{deployment} scaled: spec.replicas already was {replicas}, so nothing changes."
                ));
                return Ok(out);
            }
            let mut new = old.clone();
            new.spec.replicas = Some(*replicas);
            write_deployment(store, Some(old), new, &mut out, "scaled")?;
        }
        Command::SetImage {
            deployment,
            container,
            image,
        } => {
            let old = get_deployment(store, deployment)?;
            let mut new = old.clone();
            let spec = &mut *new.spec.template.spec;
            let containers = &mut spec.containers;
            match container.as_deref().filter(|c| *c != "*") {
                Some(c) => {
                    // kubectl looks among the app containers and the init containers alike.
                    let Some(target) = containers
                        .iter_mut()
                        .chain(&mut spec.init_containers)
                        .find(|x| x.name == c)
                    else {
                        return Err(refuse(format!(
                            "error: unable to find container named {c:?}"
                        )));
                    };
                    target.image = image.clone();
                }
                // `*=<image>`: every container, init containers included, as kubectl's
                // wildcard matches them all.
                None => {
                    if containers.is_empty() {
                        return Err(refuse("error: the deployment has no containers"));
                    }
                    for target in containers.iter_mut().chain(&mut spec.init_containers) {
                        target.image = image.clone();
                    }
                }
            }
            // `set image` sends no patch when nothing changes, and prints nothing.
            if new.spec.template == old.spec.template {
                out.say(format!(
                    "kubectl set image prints nothing: the container already runs {image}, so there is no change to send and deployment/{deployment} stays at generation {}.",
                    old.metadata.generation
                ));
                return Ok(out);
            }
            write_deployment(store, Some(old), new, &mut out, "image updated")?;
        }
        Command::RolloutUndo {
            deployment,
            to_revision,
        } => {
            let d = get_deployment(store, deployment)?;
            rollout_undo(store, d, *to_revision, &mut out)?;
        }
        Command::Pause { deployment } | Command::Resume { deployment } => {
            let old = get_deployment(store, deployment)?;
            let pause = matches!(cmd, Command::Pause { .. });
            if old.spec.paused == pause {
                return Err(refuse(format!(
                    "error: deployments.apps {deployment:?} is {}",
                    if pause {
                        "already paused"
                    } else {
                        "not paused"
                    }
                )));
            }
            let mut new = old.clone();
            new.spec.paused = pause;
            write_deployment(
                store,
                Some(old),
                new,
                &mut out,
                if pause { "paused" } else { "resumed" },
            )?;
        }
        Command::RolloutRestart { deployment } => {
            let old = get_deployment(store, deployment)?;
            // `objectrestarter` refuses a paused Deployment, and a restart that changes nothing
            // (`restartedAt` has whole seconds) leaves an empty patch, which kubectl refuses too.
            if old.spec.paused {
                return Err(refuse(format!(
                    "error: deployments.apps {deployment:?} can't restart paused deployment (run rollout resume first)"
                )));
            }
            let mut new = old.clone();
            new.spec.template.metadata.annotations.insert(
                "kubectl.kubernetes.io/restartedAt".to_string(),
                now.rfc3339(),
            );
            if new.spec.template == old.spec.template {
                return Err(refuse(format!(
                    "error: failed to create patch for {deployment}: if restart has already been triggered within the past second, please wait before attempting to trigger another"
                )));
            }
            write_deployment(store, Some(old), new, &mut out, "restarted")?;
        }
        Command::Cordon(n) | Command::Uncordon(n) => {
            let on = matches!(cmd, Command::Cordon(_));
            let (line, changed) = cordon(store, n, on, now, false, &mut out)?;
            out.say(match (on, changed) {
                (true, true) => format!("{line}: spec.unschedulable is true, so the scheduler places no new pods there (unless a pod tolerates node.kubernetes.io/unschedulable:NoSchedule). Pods already on it keep running."),
                (false, true) => format!("{line}: the scheduler may place pods there again, and pending pods are retried."),
                _ => line,
            });
        }
        Command::Drain { node, flags } => super::drain::drain(store, node, flags, now, &mut out)?,
        Command::Taint {
            node: n,
            taint,
            remove,
        } => {
            let node = get_node(store, n)?;
            let same = |t: &Taint| t.key == taint.key && t.effect == taint.effect;
            let before = node.clone();
            let mut node = node.clone();
            if *remove {
                let before = node.spec.taints.len();
                node.spec.taints.retain(|t| !same(t));
                if node.spec.taints.len() == before {
                    return Err(refuse(format!(
                        "error: taint {:?} not found",
                        format!("{}:{}", taint.key, taint.effect)
                    )));
                }
            } else {
                if node.spec.taints.iter().any(same) {
                    return Err(refuse(format!(
                        "error: node {n} already has {} taint(s) with same effect(s) and --overwrite is false",
                        taint.key
                    )));
                }
                // `reorganizeTaints` puts the new taints first, then the node's others.
                let mut added = taint.clone();
                if added.effect == "NoExecute" {
                    added.time_added = Some(now.truncate_to_secs());
                }
                node.spec.taints.insert(0, added);
            }
            if *remove && taint.effect == "NoExecute" {
                super::controller::node_lifecycle::cancel_evictions(
                    store, &before, &node, now, &mut out,
                );
            }
            out.change(Change::UpdateNode(Box::new(node)));
            let what = match (taint.effect.as_str(), *remove) {
                ("PreferNoSchedule", true) => "the scheduler no longer scores the node down for pods that do not tolerate it".to_string(),
                (_, true) => "pods that did not tolerate it may be placed there again, and pending pods it alone kept off are retried".to_string(),
                ("NoSchedule", false) => "new pods that do not tolerate it are kept off the node; the pods already there stay".to_string(),
                ("PreferNoSchedule", false) => "the scheduler now prefers other nodes for pods that do not tolerate it; nothing is evicted".to_string(),
                _ => {
                    // The taint eviction controller looks at every pod on the node now.
                    out.requeue.push((
                        0,
                        super::controller::Work::TaintEviction {
                            node: n.as_str().into(),
                            tainted_at: now,
                        },
                    ));
                    "new pods that do not tolerate it are kept off, and the taint eviction controller evicts the pods there that do not tolerate it (at once, or when their tolerationSeconds run out)".to_string()
                }
            };
            out.say(format!(
                "node/{n} {}: {what}.",
                if *remove { "untainted" } else { "tainted" }
            ));
        }
        Command::FailNode(n) => {
            get_node(store, n)?;
            let mut rt = store.kubelet_nodes.get(n).cloned().unwrap_or_default();
            if rt.kubelet_down {
                out.say(format!("The kubelet on {n} is already down."));
                return Ok(out);
            }
            rt.kubelet_down = true;
            rt.down_since = Some(now);
            out.change(Change::SetNodeRuntime {
                name: n.clone(),
                runtime: rt,
            });
            out.requeue.push((
                super::controller::node_lifecycle::NODE_MONITOR_GRACE_MS,
                super::controller::Work::NodeMonitor(n.as_str().into()),
            ));
            out.stage = Some(Stage::Retry);
            out.say(format!(
                "Fault: the kubelet on {n} stops (the machine lost power or its network). Nothing changes yet: the node controller only notices after the node-monitor grace period of {}s without a status update. Meanwhile the pods there keep their last status.",
                super::controller::node_lifecycle::NODE_MONITOR_GRACE_MS / 1000
            ));
        }
        Command::RestartKubelet(n) => {
            let node = get_node(store, n)?;
            if !super::kubelet::node_down(store, n) {
                out.say(format!("The kubelet on {n} is already running."));
                return Ok(out);
            }
            out = super::kubelet::start_again(store, node, now);
        }
        Command::BreakReadiness(p) => {
            let name = existing_pod(store, p)?;
            let mut rt = store
                .kubelet
                .get(name.as_str())
                .cloned()
                .unwrap_or_default();
            if rt.readiness_broken {
                out.say(format!("The readiness endpoint of {name} already fails."));
                return Ok(out);
            }
            rt.readiness_broken = true;
            out.change(Change::SetPodRuntime {
                name: name.as_str().into(),
                runtime: rt,
            });
            out.stage = Some(Stage::Retry);
            let has_probe = store.pods.get(name.as_str()).is_some_and(|pod| {
                pod.spec
                    .containers
                    .iter()
                    .any(|c| c.readiness_probe.is_some())
            });
            let ready = store
                .pods
                .get(name.as_str())
                .is_some_and(|pod| pod.is_ready());
            out.say(if has_probe {
                format!("Fault: the readiness endpoint of {name} stops answering, as when its app loses its database. Nothing changes until the readiness probe runs again; after failureThreshold failures in a row the pod turns not Ready and its ReplicaSet counts it as unavailable. Readiness never restarts a container, so the pod stays, not Ready, until the endpoint recovers.")
            } else if ready {
                format!("Fault: the readiness endpoint of {name} stops answering. Its containers have no readinessProbe, so the kubelet never asks and the pod stays Ready: without a probe, Kubernetes cannot see this failure.")
            } else {
                format!("Fault: the readiness endpoint of {name} stops answering. Its containers have no readinessProbe, so the kubelet never asks: the pod will turn Ready once its containers run, since without a probe Kubernetes cannot see this failure.")
            });
        }
        Command::CrashPod(p) => {
            let name = existing_pod(store, p)?;
            // The kubelet numbers the init containers (sidecars among them) first, so the first
            // app container comes after them.
            let first_app = store
                .pods
                .get(name.as_str())
                .map_or(0, |pod| pod.spec.init_containers.len());
            let running = store
                .kubelet
                .get(name.as_str())
                .and_then(|rt| rt.containers.get(first_app))
                .filter(|c| c.running_since.is_some())
                .map(|c| c.instance);
            let Some(instance) = running else {
                return Err(refuse(format!(
                    "pod {name:?} has no running container to crash"
                )));
            };
            out.requeue.push((
                0,
                super::controller::Work::ContainerExit {
                    pod: name.as_str().into(),
                    container: first_app,
                    instance,
                },
            ));
            out.stage = Some(Stage::Retry);
            let node = store
                .pods
                .get(name.as_str())
                .map(|pod| pod.node_name.clone())
                .unwrap_or_default();
            out.say(if crate::sim::kubelet::node_down(store, &node) {
                format!(
                    "Fault: the process in the first container of {name} crashes. The kubelet of {node} has stopped, so nothing sees the exit: the pod keeps the status it last reported, and nothing restarts the container."
                )
            } else {
                format!(
                    "Fault: the process in the first container of {name} crashes. The kubelet sees the exit at once and, under restartPolicy Always, restarts the container after the crash-loop back-off (0s for a first crash, then 10s, 20s, 40s … up to 300s)."
                )
            });
        }
        Command::FailRegistry(image) => {
            if store.registry_down.contains(image) {
                out.say(format!("The registry already refuses {image}."));
                return Ok(out);
            }
            out.change(Change::SetRegistryDown {
                image: image.clone(),
                down: true,
            });
            out.stage = Some(Stage::Retry);
            out.say(format!(
                "Fault: the registry stops serving {image}. Pods already running it are unaffected, and a node that already holds the image starts containers from it without pulling, unless their imagePullPolicy is Always (the default for a :latest tag); every new pull of it fails with ErrImagePull and then waits in ImagePullBackOff."
            ));
        }
        Command::CreateConfig { secret, name, data } => {
            let kind = config_kind(*secret);
            // kubectl checks each literal's key before it sends anything
            // (`handleConfigMapFromLiteralSources`, `addKeyFromLiteralToSecret`).
            for key in data.keys() {
                let errs = super::validation::is_config_map_key(key);
                if errs.is_empty() {
                    continue;
                }
                return Err(refuse(if *secret {
                    format!(
                        "error: {key:?} is not valid key name for a Secret {}",
                        errs.join(";")
                    )
                } else {
                    format!(
                        "error: {key:?} is not a valid key name for a ConfigMap: {}",
                        errs.join(",")
                    )
                }));
            }
            // The API server validates the name (`NameIsDNSSubdomain`) before it looks for an
            // object of that name.
            let value = super::validation::render_value(&serde_json::Value::String(name.clone()));
            let invalid: Vec<String> = super::validation::is_dns1123_subdomain(name)
                .into_iter()
                .map(|e| {
                    super::validation::FieldError::invalid("metadata.name", value.clone(), e)
                        .to_string()
                })
                .collect();
            if !invalid.is_empty() {
                let kind_name = if *secret { "Secret" } else { "ConfigMap" };
                let causes = match invalid.as_slice() {
                    [one] => one.clone(),
                    many => format!("[{}]", many.join(", ")),
                };
                return Err(refuse(format!(
                    "error: failed to create {kind}: {kind_name} {name:?} is invalid: {causes}"
                )));
            }
            if store.config_object(*secret, name).is_some() {
                return Err(refuse(format!(
                    "error: failed to create {kind}: {kind}s {name:?} already exists"
                )));
            }
            out.change(Change::CreateConfig {
                secret: *secret,
                name: name.clone(),
                keys: data.keys().cloned().collect(),
            });
            out.stage = Some(Stage::Retry);
            out.say(format!(
                "{kind}/{name} created. Nothing is told about it: the kubelet reads it the next time it builds the environment of a container that needs it, so a pod waiting in CreateContainerConfigError starts when its pod worker next looks."
            ));
        }
        Command::DeletePod {
            pod: p,
            grace_period,
            force,
        } => {
            let name = existing_pod(store, p)?;
            let pod = store.pods.get(name.as_str());
            if *force && *grace_period == Some(0) {
                return Ok(force_delete(store, &name, out));
            }
            let grace = grace_period
                .unwrap_or_else(|| pod.map_or(30, |pod| pod.spec.termination_grace_seconds()));
            let bound = pod.is_some_and(|p| !p.node_name.is_empty());
            let terminating = pod.is_some_and(|p| p.metadata.deletion_timestamp.is_some());
            out.change(Change::DeletePod {
                name: name.clone(),
                grace_seconds: grace,
            });
            let old_grace = pod.and_then(|p| p.metadata.deletion_grace_period_seconds);
            out.say(if terminating && old_grace.is_some_and(|old| grace < old) {
                format!(
                    "pod \"{name}\" deleted from default namespace: it was being deleted already, with {}s to shut down; a delete may shorten that, so its deletionTimestamp moves back to {grace}s after the first delete (to now at the earliest) and its kubelet kills it again with the shorter period. Its ReplicaSet replaced it at the first delete.",
                    old_grace.unwrap_or_default()
                )
            } else if terminating {
                format!(
                    "pod \"{name}\" deleted from default namespace: it was being deleted already, so nothing changes: its grace period keeps running, not started again, and its ReplicaSet replaced it at the first delete."
                )
            } else if bound {
                format!(
                    "pod \"{name}\" deleted from default namespace: it gets a deletionTimestamp and {grace}s to shut down. Its ReplicaSet no longer counts it and sets out to create a replacement at once."
                )
            } else {
                // `CheckGracefulDelete` gives a pod that was never bound a grace period of 0:
                // no kubelet runs anything of it, so it goes at once.
                format!(
                    "pod \"{name}\" deleted from default namespace: it was on no node yet, so nothing has to shut down and the API server removes it at once (grace period 0). Its ReplicaSet sets out to create a replacement at once."
                )
            });
        }
    }
    Ok(out)
}

/// The warning kubectl prints before a force deletion (`--force --grace-period=0`).
pub const FORCE_DELETE_WARNING: &str = "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.";

/// The `kubectl delete` flags RolloutScope does not simulate: kubectl knows them, so they are
/// not unknown, but what they do (cascading, waiting, selecting, printing) is not modelled.
const UNMODELLED_DELETE_FLAGS: &[&str] = &[
    "--cascade",
    "--wait",
    "--timeout",
    "--output",
    "-o",
    "--dry-run",
    "--ignore-not-found",
    "--all",
    "--selector",
    "-l",
    "--field-selector",
    "--recursive",
    "-R",
    "--filename",
    "-f",
    "--kustomize",
    "-k",
    "--raw",
    "--interactive",
    "-i",
    "--all-namespaces",
    "-A",
    "--namespace",
    "-n",
];

/// `kubectl delete pod <name> [--grace-period=N] [--now] [--force]`, read as kubectl reads its
/// flags (pflag, then `DeleteOptions.Complete` and `Validate`): a flag's value after `=` or as
/// the next word; a negative grace period is ignored; `--now` is a grace period of 1 and may not
/// come with `--grace-period`; `--grace-period=0` without `--force` becomes 1, so that no one
/// force-deletes by accident; `--force` without a grace period means 0, and with one above 0 is
/// refused.
///
/// # Errors
/// kubectl's error for a flag it does not take or a combination it refuses.
pub fn parse_delete_pod(text: &str) -> Result<Command, String> {
    let mut words = text.split_whitespace();
    let pod = words
        .next()
        .filter(|w| !w.starts_with('-'))
        .ok_or_else(|| "error: resource(s) were provided, but no name was specified".to_string())?
        .to_string();
    let bool_value = |flag: &str, v: Option<&str>| match v {
        None | Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(v) => Err(format!(
            "error: invalid argument {v:?} for \"{flag}\" flag: strconv.ParseBool: parsing {v:?}: invalid syntax"
        )),
    };
    // -1, kubectl's default, stands for no grace period given.
    let (mut grace, mut force, mut now) = (-1_i64, false, false);
    while let Some(word) = words.next() {
        let (flag, value) = match word.split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (word, None),
        };
        match flag {
            "--force" => force = bool_value(flag, value)?,
            "--now" => now = bool_value(flag, value)?,
            "--grace-period" => {
                let n = value
                    .or_else(|| words.next())
                    .ok_or("error: flag needs an argument: --grace-period")?;
                grace = n.parse::<i64>().map_err(|_| {
                    format!(
                        "error: invalid argument {n:?} for \"--grace-period\" flag: strconv.ParseInt: parsing {n:?}: invalid syntax"
                    )
                })?;
            }
            f if UNMODELLED_DELETE_FLAGS.contains(&f) => {
                return Err(format!(
                    "error: RolloutScope does not simulate kubectl delete's {f} flag"
                ));
            }
            f => {
                return Err(format!(
                    "error: unknown flag: {f}\nSee 'kubectl delete --help' for usage."
                ));
            }
        }
    }
    if now {
        if grace != -1 {
            return Err("error: --now and --grace-period cannot be specified together".to_string());
        }
        grace = 1;
    }
    if grace == 0 && !force {
        grace = 1;
    }
    if force && grace < 0 {
        grace = 0;
    }
    if force && grace > 0 {
        return Err(
            "error: --force and --grace-period greater than 0 cannot be specified together"
                .to_string(),
        );
    }
    Ok(Command::DeletePod {
        pod,
        grace_period: (grace >= 0).then_some(grace),
        force,
    })
}

/// A force deletion: the API server removes the pod object at once, without waiting for its
/// kubelet. Its ReplicaSet replaces it (if it was not being deleted already, when it had), and
/// the scheduler counts its node's resources free again, though the containers may still run:
/// a running kubelet stops them with the 2 s minimum grace period (`Killing`), a stopped one
/// never learns of it.
fn force_delete(store: &Store, name: &str, mut out: Outcome) -> Outcome {
    let Some(pod) = store.pods.get(name) else {
        return out;
    };
    let node = pod.node_name.clone();
    let terminating = pod.metadata.deletion_timestamp.is_some();
    let kubelet_up = !node.is_empty() && !super::kubelet::node_down(store, &node);
    out.change(Change::RemovePod(name.to_string()));
    // A stopped kubelet leaves the containers running; the node remembers them for its return.
    let running: Vec<String> = store
        .kubelet
        .get(name)
        .map(|rt| {
            rt.containers
                .iter()
                .enumerate()
                .filter(|(_, c)| c.running_since.is_some())
                .filter_map(|(i, _)| pod.spec.kubelet_container(i).map(|c| c.name.clone()))
                .collect()
        })
        .unwrap_or_default();
    if !node.is_empty() && !kubelet_up && !running.is_empty() {
        let mut rt = store.kubelet_nodes.get(&node).cloned().unwrap_or_default();
        rt.orphans.push((name.to_string(), running));
        out.change(Change::SetNodeRuntime {
            name: node.clone(),
            runtime: rt,
        });
    }
    // A pod gone while its taint eviction was still to come has that work cancelled.
    let cancelled =
        super::controller::node_lifecycle::cancel_eviction_of_removed_pod(store, pod, &mut out);
    if kubelet_up && !terminating {
        for cs in pod
            .status
            .init_container_statuses
            .iter()
            .chain(&pod.status.container_statuses)
            .filter(|cs| matches!(cs.state, super::api::ContainerState::Running { .. }))
        {
            out.events
                .push(super::kubelet::killing_event(&node, name, &cs.name));
        }
    }
    let on_node = if node.is_empty() {
        "It was on no node.".to_string()
    } else if kubelet_up {
        format!(
            "The kubelet on {node} learns of it from its watch and stops the containers with the 2 s minimum grace period; the scheduler already counts {node}'s resources free."
        )
    } else {
        format!(
            "The kubelet on {node} is down and never confirms: whatever ran there may still run when the machine comes back, while the scheduler already counts {node}'s resources free. This is what the warning is about."
        )
    };
    let replaced = if terminating {
        "Its ReplicaSet had already replaced it at the first delete."
    } else {
        "Its ReplicaSet sets out to create a replacement at once."
    };
    let cancelled = if cancelled {
        " The taint eviction controller cancels the eviction it had timed for it."
    } else {
        ""
    };
    out.say(format!(
        "{FORCE_DELETE_WARNING}\npod \"{name}\" force deleted from default namespace\nThe API server removes the pod object at once (grace period 0), without waiting for the kubelet. {on_node} {replaced}{cancelled}"
    ));
    out
}

/// `RunCordonOrUncordon` for one node: sets `spec.unschedulable` to `on` unless it is so
/// already, and returns what kubectl prints (`node/node-1 cordoned`, `node/node-1 already
/// cordoned`), and whether it changed the node. A client dry run changes nothing and says
/// ` (dry run)`. `kubectl cordon`, `uncordon` and `drain` all start here.
pub(crate) fn cordon(
    store: &Store,
    n: &str,
    on: bool,
    now: Time,
    dry_run: bool,
    out: &mut Outcome,
) -> Result<(String, bool), CommandError> {
    let word = if on { "cordoned" } else { "uncordoned" };
    let node = get_node(store, n)?;
    if node.spec.unschedulable == on {
        let dry = if dry_run { " (dry run)" } else { "" };
        return Ok((format!("node/{n} already {word}{dry}"), false));
    }
    if dry_run {
        return Ok((format!("node/{n} {word} (dry run)"), false));
    }
    let kubelet_up = !super::kubelet::node_down(store, n);
    let mut node = node.clone();
    node.spec.unschedulable = on;
    out.change(Change::UpdateNode(Box::new(node)));
    // The node's kubelet notes the change at its next status sync, on the 10 s ticks of
    // simulated time.
    if kubelet_up {
        use super::controller::node_lifecycle::NODE_STATUS_UPDATE_MS;
        out.requeue.push((
            NODE_STATUS_UPDATE_MS - now.as_millis() % NODE_STATUS_UPDATE_MS,
            super::controller::Work::KubeletNodeStatus(n.into()),
        ));
    }
    Ok((format!("node/{n} {word}"), true))
}

/// kubectl's `DeploymentRollbacker`: picks the target revision's ReplicaSet and patches its
/// template and annotations into the Deployment. The controller then re-uses that ReplicaSet
/// with a new, higher revision.
fn rollout_undo(
    store: &Store,
    d: &Deployment,
    to_revision: i64,
    out: &mut Outcome,
) -> Result<(), CommandError> {
    let name = &d.metadata.name;
    // kubectl warns on stderr when `kubectl apply` manages the object, before it looks for the
    // revision: the undo leaves the last applied manifest behind, so the next apply of it undoes
    // the undo. An undo refused after that still shows the warning first.
    let warning = d
        .metadata
        .annotations
        .contains_key(LAST_APPLIED_CONFIG_ANNOTATION)
        .then(|| format!(
            "Warning: resource deployments/{name} was previously managed with 'kubectl apply'. Rolling back will not update the {LAST_APPLIED_CONFIG_ANNOTATION} annotation, which may cause unexpected behavior on future 'kubectl apply' operations. Consider using 'kubectl apply' with your previous configuration file instead."
        ));
    let refuse = |message: String| match &warning {
        Some(w) => refuse(format!("{w}\n{message}")),
        None => refuse(message),
    };
    if to_revision < 0 {
        return Err(refuse(format!(
            "error: unable to find specified revision {to_revision} in history"
        )));
    }
    let rss: Vec<_> = store.replica_sets_owned_by(&d.metadata.uid).collect();
    let mut latest: Option<(i64, &_)> = None;
    let mut previous: Option<(i64, &_)> = None;
    let mut target = None;
    for rs in &rss {
        let Ok(v) = revision(rs) else {
            continue;
        };
        if to_revision == 0 {
            if latest.is_none_or(|(lv, _)| lv < v) {
                previous = latest;
                latest = Some((v, *rs));
            } else if previous.is_none_or(|(pv, _)| pv < v) {
                previous = Some((v, *rs));
            }
        } else if to_revision == v {
            target = Some((v, *rs));
            break;
        }
    }
    let (rev, rs) = if to_revision > 0 {
        target.ok_or_else(|| {
            refuse(format!(
                "error: unable to find specified revision {to_revision} in history"
            ))
        })?
    } else {
        previous.ok_or_else(|| {
            refuse(format!(
                "error: no rollout history found for deployment {name:?}"
            ))
        })?
    };
    if d.spec.paused {
        return Err(refuse(
            "error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again".to_string(),
        ));
    }
    if let Some(w) = warning.clone() {
        out.say(w);
    }
    if equal_ignore_hash(&d.spec.template, &rs.spec.template) {
        // kubectl prints the revision it was asked for, not the one it found: a plain
        // `rollout undo` (no --to-revision) therefore reports revision 0.
        out.say(format!(
            "deployment.apps/{name} skipped rollback (current template already matches revision {to_revision})"
        ));
        return Ok(());
    }
    let mut new = d.clone();
    let mut template = rs.spec.template.clone();
    template
        .metadata
        .labels
        .remove(DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY);
    new.spec.template = template;
    let mut annotations = std::collections::BTreeMap::new();
    for (k, v) in d.metadata.annotations.iter() {
        if skip_copy_annotation(k) {
            annotations.insert(k.clone(), v.clone());
        }
    }
    for (k, v) in rs.metadata.annotations.iter() {
        if !skip_copy_annotation(k) {
            annotations.insert(k.clone(), v.clone());
        }
    }
    new.metadata.annotations = annotations.into();
    let current = d
        .metadata
        .annotations
        .get(REVISION_ANNOTATION)
        .cloned()
        .unwrap_or_default();
    out.say(format!(
        "deployment.apps/{name} rolled back: kubectl copied the pod template of revision {rev} ({}) back into the Deployment. The controller will find that ReplicaSet {} matches again and re-use it as the newest revision instead of creating one (current revision {current}).",
        rs.spec.template.spec.images_with_init(),
        rs.metadata.name
    ));
    out.change(Change::UpdateDeployment(Box::new(new)));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::api::DeploymentStrategy;

    /// From no ReplicaSet with pods, a change of replicas is no scaling event, and what comes
    /// next depends on the Deployment: paused, `sync` grows the newest ReplicaSet; Recreate
    /// runs the new one once the old pods are gone; a rolling update brings the new one up.
    #[test]
    fn a_change_of_replicas_from_no_active_replica_set_says_what_comes_next() {
        let mut old = Deployment::default();
        old.spec.replicas = Some(0);
        let mut new = old.clone();
        new.spec.replicas = Some(4);
        // The first line is the one about replicas (a strategy change comes after it).
        let said = |new: &Deployment| describe_spec_change(&old, new, false)[0].clone();
        assert!(
            said(&new).ends_with("the rolling update brings the new ReplicaSet up to 4)"),
            "{}",
            said(&new)
        );
        let mut recreate = new.clone();
        recreate.spec.strategy = DeploymentStrategy {
            type_: Some(DeploymentStrategyType::Recreate),
            rolling_update: None,
        };
        assert!(
            said(&recreate).ends_with(
                "the Recreate rollout runs the new ReplicaSet at 4, once no old pod is left)"
            ),
            "{}",
            said(&recreate)
        );
        let mut paused = new.clone();
        paused.spec.paused = true;
        assert!(
            said(&paused).ends_with("the controller grows the newest ReplicaSet to 4)"),
            "{}",
            said(&paused)
        );
        assert!(describe_spec_change(&old, &new, true)[0].contains("a scaling event"));
    }
}
