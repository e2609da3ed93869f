//! Scenario files: the YAML a workshop author writes — a cluster of nodes, how images behave,
//! a real Deployment manifest, user actions at simulated times, and how long to run — and their
//! loading into a ready-to-run [`Sim`]. `docs/scenarios.md` documents every key.

use super::api::{ConditionReason, DeploymentConditionType, quantity};
use super::api::{Deployment, Node, PodDisruptionBudget, Taint, Time};
use super::commands::Command;
use super::controller::deployment::util::{deployment_complete, has_progress_deadline};
use super::controller::replica_set::PodQuota;
use super::engine::{Sim, SimConfig, TimedCommand};
use super::kubelet::{ImageBehavior, ReadyBehavior, World};
use super::manifest;
use super::yaml::{self, Document, Limits};
use crate::sim::order;
use serde_json::{Map, Value};
use std::fmt;

/// The largest `spec.replicas` (and `scale`) a scenario may ask for.
pub use super::manifest::MAX_REPLICAS;
/// The most nodes a scenario may define.
pub const MAX_NODES: usize = 1_000;
/// The most actions a scenario may schedule.
pub const MAX_ACTIONS: usize = 1_000;
/// The longest simulated time a scenario may run (`run_until`, and action times).
pub const MAX_RUN_MS: u64 = 24 * 3600 * 1000;
/// How long `run_until: complete` waits for a rollout to settle before giving up.
pub const COMPLETE_CAP_MS: u64 = 3600 * 1000;

/// The scenarios bundled with the app and used by the tests: `(file name, YAML text)`.
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "rolling-update.yaml",
        include_str!("../../scenarios/rolling-update.yaml"),
    ),
    (
        "rolling-update-max-surge-0.yaml",
        include_str!("../../scenarios/rolling-update-max-surge-0.yaml"),
    ),
    (
        "recreate.yaml",
        include_str!("../../scenarios/recreate.yaml"),
    ),
    (
        "scale-during-rollout.yaml",
        include_str!("../../scenarios/scale-during-rollout.yaml"),
    ),
    (
        "missing-configmap.yaml",
        include_str!("../../scenarios/missing-configmap.yaml"),
    ),
    (
        "pause-resume.yaml",
        include_str!("../../scenarios/pause-resume.yaml"),
    ),
    (
        "rollout-undo.yaml",
        include_str!("../../scenarios/rollout-undo.yaml"),
    ),
    (
        "six-want-four-ready.yaml",
        include_str!("../../scenarios/six-want-four-ready.yaml"),
    ),
    (
        "image-typo.yaml",
        include_str!("../../scenarios/image-typo.yaml"),
    ),
    (
        "readiness-never-passes.yaml",
        include_str!("../../scenarios/readiness-never-passes.yaml"),
    ),
    (
        "aggressive-liveness.yaml",
        include_str!("../../scenarios/aggressive-liveness.yaml"),
    ),
    (
        "startup-probe-recovers.yaml",
        include_str!("../../scenarios/startup-probe-recovers.yaml"),
    ),
    (
        "crash-loop.yaml",
        include_str!("../../scenarios/crash-loop.yaml"),
    ),
    (
        "node-failure.yaml",
        include_str!("../../scenarios/node-failure.yaml"),
    ),
    (
        "kubelet-restart.yaml",
        include_str!("../../scenarios/kubelet-restart.yaml"),
    ),
    (
        "init-containers.yaml",
        include_str!("../../scenarios/init-containers.yaml"),
    ),
    (
        "one-replica-per-node.yaml",
        include_str!("../../scenarios/one-replica-per-node.yaml"),
    ),
    (
        "spread-over-zones.yaml",
        include_str!("../../scenarios/spread-over-zones.yaml"),
    ),
    (
        "drain-for-maintenance.yaml",
        include_str!("../../scenarios/drain-for-maintenance.yaml"),
    ),
    (
        "drain-blocked-by-budget.yaml",
        include_str!("../../scenarios/drain-blocked-by-budget.yaml"),
    ),
];

/// One problem in a scenario file, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// The scenario key path (`deployment.spec.replicas`, `actions[2].scale`).
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

/// When a run stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunUntil {
    At(Time),
    /// When the rollout has settled (capped at [`COMPLETE_CAP_MS`]).
    Complete,
}

/// A loaded scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub seed: u64,
    pub nodes: Vec<Node>,
    pub world: World,
    pub quota: PodQuota,
    /// The PodDisruptionBudgets the namespace starts with (`cluster.podDisruptionBudgets`).
    pub disruption_budgets: Vec<PodDisruptionBudget>,
    pub deployment: Deployment,
    pub actions: Vec<TimedCommand>,
    pub run_until: RunUntil,
}

/// Parses a duration such as `30s`, `2m`, `1h`, `1m30s`, `500ms`, or a bare number of seconds.
pub fn parse_duration(v: &Value) -> Result<u64, String> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .map(|s| s.saturating_mul(1000))
            .or_else(|| {
                n.as_f64()
                    .filter(|f| *f >= 0.0 && f.is_finite())
                    .map(|f| (f * 1000.0) as u64)
            })
            .ok_or_else(|| format!("{n} is not a valid duration")),
        Value::String(s) => parse_duration_str(s),
        other => Err(format!(
            "{other} is not a valid duration (write it like 30s, 2m or 1h)"
        )),
    }
}

fn parse_duration_str(s: &str) -> Result<u64, String> {
    let bad = || format!("{s:?} is not a valid duration (write it like 30s, 2m, 1h or 1m30s)");
    let t = s.trim();
    if t.is_empty() {
        return Err(bad());
    }
    if let Ok(n) = t.parse::<u64>() {
        return Ok(n.saturating_mul(1000));
    }
    let mut total: u64 = 0;
    let mut rest = t;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        if digits == 0 {
            return Err(bad());
        }
        let num: f64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "ms" => 1.0,
            "s" => 1000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            _ => return Err(bad()),
        };
        rest = &rest[unit_len..];
        let add = num * factor;
        if !add.is_finite() || add > 1e15 {
            return Err(bad());
        }
        total = total.saturating_add(add as u64);
    }
    Ok(total)
}

struct Loader<'a> {
    doc: &'a Document,
    /// The same text read as kubectl reads a manifest (`yes` a boolean, `010` octal), for the
    /// Deployment manifests in it; the scenario's own keys read as YAML 1.2 in `doc`.
    manifests: &'a Document,
    errors: Vec<ScenarioError>,
}

impl Loader<'_> {
    fn err(&mut self, field: &str, message: impl Into<String>) {
        self.errors.push(ScenarioError {
            line: self.doc.line_of(field),
            field: field.to_string(),
            message: format!("{field}: {}", message.into()),
        });
    }

    fn duration(&mut self, field: &str, v: &Value) -> Option<u64> {
        match parse_duration(v) {
            Ok(ms) if ms > MAX_RUN_MS => {
                self.err(
                    field,
                    format!(
                        "{} is longer than RolloutScope simulates (at most 24h)",
                        render(v)
                    ),
                );
                None
            }
            Ok(ms) => Some(ms),
            Err(e) => {
                self.err(field, e);
                None
            }
        }
    }
}

fn render(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An action's argument, which must be a mapping of only `keys` (for an action that takes none,
/// any value without keys): a misspelt key would otherwise run the action without it.
fn no_args_but(l: &mut Loader<'_>, path: &str, arg: &Value, keys: &[&str]) {
    match arg {
        Value::Null => {}
        Value::Object(o) if keys.is_empty() => {
            for k in o.keys() {
                l.err(
                    &format!("{path}.{k}"),
                    "unknown key (this action takes no arguments: write {})",
                );
            }
        }
        Value::Object(o) => known_keys(l, path, o, keys),
        // `pause: true` and the like say nothing that could be lost.
        _ if keys.is_empty() => {}
        _ => l.err(path, format!("must be a mapping of: {}", keys.join(", "))),
    }
}

fn known_keys(l: &mut Loader<'_>, prefix: &str, map: &Map<String, Value>, keys: &[&str]) {
    for k in map.keys() {
        if !keys.contains(&k.as_str()) {
            let field = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            l.err(
                &field,
                format!("unknown key (expected one of: {})", keys.join(", ")),
            );
        }
    }
}

impl Scenario {
    /// Loads a scenario from YAML text.
    ///
    /// # Errors
    /// Every problem found: YAML syntax, unknown keys, bad durations, an invalid Deployment
    /// (with the API server's field errors), and sizes beyond what RolloutScope simulates.
    pub fn parse(text: &str) -> Result<Scenario, Vec<ScenarioError>> {
        let syntax = |e: yaml::YamlError| {
            vec![ScenarioError {
                line: Some(e.line),
                field: String::new(),
                message: e.message,
            }]
        };
        let doc = yaml::parse(text, &Limits::default()).map_err(syntax)?;
        // Read a second time for the manifests. kubectl's reading keeps a number it cannot hold
        // as a word, so it fails only where the first reading does.
        let manifests = yaml::parse_manifest(text, &Limits::default()).map_err(syntax)?;
        let mut l = Loader {
            doc: &doc,
            manifests: &manifests,
            errors: Vec::new(),
        };
        let empty = Map::new();
        let root = match &doc.value {
            Value::Object(m) => m,
            _ => {
                l.err(
                    "",
                    "a scenario must be a mapping with at least `deployment:`",
                );
                &empty
            }
        };
        known_keys(
            &mut l,
            "",
            root,
            &[
                "name",
                "description",
                "seed",
                "cluster",
                "images",
                "deployment",
                "actions",
                "run_until",
            ],
        );
        let name = root
            .get("name")
            .map(render)
            .unwrap_or_else(|| "Untitled scenario".to_string());
        let description = root.get("description").map(render).unwrap_or_default();
        let seed = match root.get("seed") {
            None => 1,
            Some(v) => v.as_u64().unwrap_or_else(|| {
                l.err(
                    "seed",
                    format!("{} is not a non-negative integer", render(v)),
                );
                1
            }),
        };
        let (nodes, quota) = load_cluster(&mut l, root.get("cluster"));
        let mut world = load_images(&mut l, root.get("images"));
        load_config_objects(&mut l, root.get("cluster"), &mut world);
        let disruption_budgets = load_disruption_budgets(&mut l, root.get("cluster"));
        let before_deployment = l.errors.len();
        let deployment = match root.get("deployment") {
            None => {
                l.err("deployment", "Required value: a Deployment manifest");
                None
            }
            Some(_) => load_deployment(&mut l, "deployment", true),
        };
        let deployment_errors = before_deployment..l.errors.len();
        let dname = deployment
            .as_ref()
            .map(|d| d.metadata.name.clone())
            .unwrap_or_default();
        let mut actions = Vec::new();
        if let Some(d) = &deployment {
            actions.push(TimedCommand {
                at: Time::ZERO,
                command: Command::Apply(Box::new(d.clone())),
            });
        }
        load_actions(&mut l, root.get("actions"), &dname, &mut actions);
        let run_until = match root.get("run_until") {
            None => RunUntil::Complete,
            Some(Value::String(s)) if s == "complete" => RunUntil::Complete,
            Some(v) => RunUntil::At(Time(l.duration("run_until", v).unwrap_or(0))),
        };
        if !l.errors.is_empty() {
            // The file's errors go in line order, but the Deployment's stay together in the
            // order the API server gives them (its first error's line places the group).
            let group_line = l.errors[deployment_errors.clone()]
                .iter()
                .filter_map(|e| e.line)
                .min();
            let mut keyed: Vec<(usize, ScenarioError)> = l
                .errors
                .into_iter()
                .enumerate()
                .map(|(i, e)| {
                    let line = if deployment_errors.contains(&i) {
                        group_line.or(e.line)
                    } else {
                        e.line
                    };
                    (line.unwrap_or(0), e)
                })
                .collect();
            order::sort_by_key(&mut keyed, |(line, _)| *line);
            return Err(keyed.into_iter().map(|(_, e)| e).collect());
        }
        let Some(deployment) = deployment else {
            return Err(vec![ScenarioError {
                line: None,
                field: "deployment".into(),
                message: "deployment: Required value".into(),
            }]);
        };
        Ok(Scenario {
            name,
            description,
            seed,
            nodes,
            world,
            quota,
            disruption_budgets,
            deployment,
            actions,
            run_until,
        })
    }

    /// A simulator ready to run this scenario.
    pub fn sim(&self) -> Sim {
        Sim::new(
            self.nodes.clone(),
            SimConfig {
                world: self.world.clone(),
                quota: self.quota.clone(),
                disruption_budgets: self.disruption_budgets.clone(),
            },
            self.seed,
            self.actions.clone(),
        )
    }

    /// The time at which a run stops, for `run_until: <duration>`; the cap for `complete`.
    pub fn time_limit(&self) -> Time {
        match self.run_until {
            RunUntil::At(t) => t,
            RunUntil::Complete => Time(COMPLETE_CAP_MS),
        }
    }

    /// Whether a run of this scenario should stop now.
    pub fn finished(&self, sim: &Sim) -> bool {
        match self.run_until {
            RunUntil::At(_) => false,
            RunUntil::Complete => rollout_settled(sim, &self.deployment.metadata.name),
        }
    }
}

/// Whether the named Deployment's rollout is over: every command has run, the Deployment is
/// complete (and says so in Progressing), old ReplicaSets are empty and no pod is terminating.
/// The simulator asks this only when nothing more is due at the current instant.
pub fn rollout_settled(sim: &Sim, name: &str) -> bool {
    let Some(d) = sim.deployment(name) else {
        return false;
    };
    if !sim.actions_done() || d.spec.paused || !deployment_complete(d, &d.status) {
        return false;
    }
    if has_progress_deadline(d)
        && d.condition(DeploymentConditionType::Progressing)
            .map(|c| c.reason)
            != Some(ConditionReason::NewReplicaSetAvailable)
    {
        return false;
    }
    let store = sim.store();
    if store.replica_sets.values().any(|rs| {
        rs.status.replicas != rs.spec.replicas || rs.status.terminating_replicas.unwrap_or(0) != 0
    }) || d.status.terminating_replicas.unwrap_or(0) != 0
    {
        return false;
    }
    store.terminating_pods() == 0
}

fn load_cluster(l: &mut Loader<'_>, v: Option<&Value>) -> (Vec<Node>, PodQuota) {
    let default_nodes = || {
        (1..=3)
            .map(|i| Sim::node(&format!("node-{i}"), i, 4000, 8 << 30, 110))
            .collect::<Vec<_>>()
    };
    let Some(v) = v else {
        return (default_nodes(), PodQuota::default());
    };
    let Some(map) = v.as_object() else {
        l.err("cluster", "must be a mapping with `nodes:`");
        return (default_nodes(), PodQuota::default());
    };
    known_keys(
        l,
        "cluster",
        map,
        &[
            "nodes",
            "quota",
            "configMaps",
            "secrets",
            "podDisruptionBudgets",
        ],
    );
    let mut quota = PodQuota::default();
    if let Some(q) = map.get("quota") {
        match q.get("pods").and_then(Value::as_u64) {
            Some(n) => {
                quota = PodQuota {
                    name: "pods-quota".to_string(),
                    max_pods: Some(usize::try_from(n).unwrap_or(usize::MAX)),
                };
            }
            None => l.err("cluster.quota.pods", "must be a non-negative integer"),
        }
    }
    let Some(list) = map.get("nodes").and_then(Value::as_array) else {
        if map.contains_key("nodes") {
            l.err("cluster.nodes", "must be a list of nodes");
        }
        return (default_nodes(), quota);
    };
    if list.len() > MAX_NODES {
        l.err(
            "cluster.nodes",
            format!(
                "{} nodes is more than RolloutScope simulates (at most {MAX_NODES})",
                list.len()
            ),
        );
        return (Vec::new(), quota);
    }
    let mut nodes: Vec<Node> = Vec::new();
    for (i, n) in list.iter().enumerate() {
        let path = format!("cluster.nodes[{i}]");
        let Some(m) = n.as_object() else {
            l.err(
                &path,
                "must be a mapping like {name: node-1, cpu: \"4\", memory: 8Gi}",
            );
            continue;
        };
        known_keys(
            l,
            &path,
            m,
            &["name", "cpu", "memory", "pods", "labels", "taints"],
        );
        let name = match m.get("name").and_then(Value::as_str) {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => {
                l.err(&format!("{path}.name"), "Required value");
                continue;
            }
        };
        if nodes.iter().any(|x| x.metadata.name == name) {
            l.err(
                &format!("{path}.name"),
                format!("Duplicate value: {name:?}"),
            );
            continue;
        }
        let cpu = match m.get("cpu") {
            None => 4000,
            Some(v) => quantity::parse_cpu_milli(v).unwrap_or_else(|| {
                l.err(
                    &format!("{path}.cpu"),
                    format!(
                        "Invalid value: {}: {}",
                        render(v),
                        quantity::QUANTITY_REGEX_MESSAGE
                    ),
                );
                0
            }),
        };
        let memory = match m.get("memory") {
            None => 8 << 30,
            Some(v) => quantity::parse_bytes(v).unwrap_or_else(|| {
                l.err(
                    &format!("{path}.memory"),
                    format!(
                        "Invalid value: {}: {}",
                        render(v),
                        quantity::QUANTITY_REGEX_MESSAGE
                    ),
                );
                0
            }),
        };
        // A value of the wrong kind is an error, never the default in disguise.
        let pods = match m.get("pods") {
            None => 110,
            Some(v) => match v.as_i64() {
                Some(n) if n >= 0 => n,
                Some(n) => {
                    l.err(
                        &format!("{path}.pods"),
                        format!("Invalid value: {n}: must be greater than or equal to 0"),
                    );
                    0
                }
                None => {
                    l.err(
                        &format!("{path}.pods"),
                        // Rendered as the API server renders a value: `"1"` is text.
                        format!(
                            "Invalid value: {}: must be an integer",
                            super::validation::render_value(v)
                        ),
                    );
                    0
                }
            },
        };
        let mut node = Sim::node(&name, u32::try_from(i + 1).unwrap_or(0), cpu, memory, pods);
        match m.get("labels") {
            None => {}
            Some(Value::Object(labels)) => {
                for (k, v) in labels {
                    node.metadata.labels.insert(k.clone(), render(v));
                }
            }
            Some(_) => l.err(
                &format!("{path}.labels"),
                "must be a mapping of label keys to values, like {zone: a}",
            ),
        }
        node.spec.taints = parse_taints(l, &format!("{path}.taints"), m.get("taints"));
        nodes.push(node);
    }
    (nodes, quota)
}

/// A node's `taints`: each a mapping `{key, value, effect}` (value optional) or, as `kubectl
/// taint` writes one, a string `key=value:Effect` or `key:Effect`. The key must be a qualified
/// name, the value a label value, the effect one the API server accepts, and no key and effect
/// twice (`validateNodeTaints`).
fn parse_taints(l: &mut Loader<'_>, path: &str, v: Option<&Value>) -> Vec<Taint> {
    let Some(v) = v else {
        return Vec::new();
    };
    let Some(list) = v.as_array() else {
        l.err(
            path,
            "must be a list of taints, like [{key: dedicated, value: gpu, effect: NoSchedule}]",
        );
        return Vec::new();
    };
    let mut taints: Vec<Taint> = Vec::new();
    for (j, item) in list.iter().enumerate() {
        let p = format!("{path}[{j}]");
        let taint = match item {
            Value::String(text) => Taint::parse(text),
            Value::Object(m) => {
                known_keys(l, &p, m, &["key", "value", "effect"]);
                let text = |k: &str| m.get(k).map(render).unwrap_or_default();
                Taint::new(&text("key"), &text("value"), &text("effect"))
            }
            _ => {
                l.err(
                    &p,
                    "must be a mapping like {key: dedicated, value: gpu, effect: NoSchedule} or a string like dedicated=gpu:NoSchedule",
                );
                continue;
            }
        };
        let problems = super::validation::taint_problems(&taint);
        let mut ok = problems.is_empty();
        for (field, msg) in problems {
            l.err(&format!("{p}.{field}"), msg);
        }
        if taints
            .iter()
            .any(|t| t.key == taint.key && t.effect == taint.effect)
        {
            l.err(
                &p,
                format!(
                    "Duplicate value: \"{}\": taints must be unique by key and effect pair",
                    taint.text()
                ),
            );
            ok = false;
        }
        if ok {
            taints.push(taint);
        }
    }
    taints
}

/// The namespace's ConfigMaps and Secrets (`cluster.configMaps`, `cluster.secrets`): each a
/// name with its data, of which only the keys matter, since nothing runs the containers'
/// code. A container whose environment refers to one that is missing cannot be created.
fn load_config_objects(l: &mut Loader<'_>, cluster: Option<&Value>, world: &mut World) {
    for (field, store) in [
        ("configMaps", &mut world.config_maps),
        ("secrets", &mut world.secrets),
    ] {
        let Some(v) = cluster.and_then(|c| c.get(field)) else {
            continue;
        };
        let Some(map) = v.as_object() else {
            l.err(
                &format!("cluster.{field}"),
                "must be a mapping from name to data, like {app-config: {LOG_LEVEL: debug}}",
            );
            continue;
        };
        for (name, data) in map {
            let keys = match data {
                Value::Null => Default::default(),
                Value::Object(d) => d.keys().cloned().collect(),
                _ => {
                    l.err(
                        &format!("cluster.{field}[{name}]"),
                        "must be a mapping of data keys to values",
                    );
                    continue;
                }
            };
            store.insert(name.clone(), keys);
        }
    }
}

/// At most this many PodDisruptionBudgets in a scenario.
const MAX_DISRUPTION_BUDGETS: usize = 20;

/// `cluster.podDisruptionBudgets`: policy/v1 PodDisruptionBudget manifests, each checked as
/// strictly as a `kubectl apply` of it (unknown fields refused) and validated as the API server
/// validates one.
fn load_disruption_budgets(
    l: &mut Loader<'_>,
    cluster: Option<&Value>,
) -> Vec<PodDisruptionBudget> {
    let mut out: Vec<PodDisruptionBudget> = Vec::new();
    let Some(v) = cluster.and_then(|c| c.get("podDisruptionBudgets")) else {
        return out;
    };
    let Some(list) = v.as_array() else {
        l.err(
            "cluster.podDisruptionBudgets",
            "must be a list of PodDisruptionBudget manifests",
        );
        return out;
    };
    if list.len() > MAX_DISRUPTION_BUDGETS {
        l.err(
            "cluster.podDisruptionBudgets",
            format!(
                "{} budgets is more than RolloutScope simulates (at most {MAX_DISRUPTION_BUDGETS})",
                list.len()
            ),
        );
        return out;
    }
    for (i, item) in list.iter().enumerate() {
        let path = format!("cluster.podDisruptionBudgets[{i}]");
        let Some(m) = item.as_object() else {
            l.err(
                &path,
                "must be a PodDisruptionBudget manifest (apiVersion: policy/v1)",
            );
            continue;
        };
        known_keys(l, &path, m, &["apiVersion", "kind", "metadata", "spec"]);
        for (key, want) in [("apiVersion", "policy/v1"), ("kind", "PodDisruptionBudget")] {
            match m.get(key).and_then(Value::as_str) {
                Some(v) if v == want => {}
                None => l.err(&format!("{path}.{key}"), format!("Required value: {want}")),
                Some(v) => l.err(
                    &format!("{path}.{key}"),
                    format!("Unsupported value: {v:?}: supported values: {want:?}"),
                ),
            }
        }
        let section = |key: &str| m.get(key).and_then(Value::as_object);
        if let Some(meta) = section("metadata") {
            known_keys(
                l,
                &format!("{path}.metadata"),
                meta,
                &["name", "namespace", "labels", "annotations"],
            );
            // One namespace is simulated: a budget copied with `namespace: default` is at home.
            if let Some(why) = meta
                .get("namespace")
                .and_then(Value::as_str)
                .and_then(super::manifest::beyond_simulated_namespace)
            {
                l.err(&format!("{path}.metadata.namespace"), why);
            }
        }
        if let Some(spec) = section("spec") {
            known_keys(
                l,
                &format!("{path}.spec"),
                spec,
                &[
                    "minAvailable",
                    "maxUnavailable",
                    "selector",
                    "unhealthyPodEvictionPolicy",
                ],
            );
            if let Some(sel) = spec.get("selector").and_then(Value::as_object) {
                known_keys(
                    l,
                    &format!("{path}.spec.selector"),
                    sel,
                    &["matchLabels", "matchExpressions"],
                );
            }
        }
        let mut object = m.clone();
        object.remove("apiVersion");
        object.remove("kind");
        let budget: PodDisruptionBudget = match serde_json::from_value(Value::Object(object)) {
            Ok(b) => b,
            Err(e) => {
                l.err(
                    &path,
                    format!("does not decode as a PodDisruptionBudget: {e}"),
                );
                continue;
            }
        };
        let errs = super::validation::validate_disruption_budget(&budget);
        for e in &errs {
            l.err(&format!("{path}.{}", e.field), e.to_string());
        }
        if !errs.is_empty() {
            continue;
        }
        if out.iter().any(|b| b.metadata.name == budget.metadata.name) {
            l.err(
                &format!("{path}.metadata.name"),
                format!(
                    "poddisruptionbudgets.policy {:?} already exists",
                    budget.metadata.name
                ),
            );
            continue;
        }
        out.push(budget);
    }
    out
}

fn load_images(l: &mut Loader<'_>, v: Option<&Value>) -> World {
    let mut world = World::default();
    let Some(v) = v else {
        return world;
    };
    let Some(map) = v.as_object() else {
        l.err("images", "must be a mapping from image to behaviour");
        return world;
    };
    for (image, b) in map {
        let path = format!("images[{image}]");
        let Some(m) = b.as_object() else {
            l.err(
                &path,
                "must be a mapping like {pull_time: 2s, listen_after: 3s, ready: always}",
            );
            continue;
        };
        known_keys(
            l,
            &path,
            m,
            &[
                "pull",
                "pull_time",
                "pull_error",
                "size",
                "listen_after",
                "ready",
                "crash_after",
                "complete_after",
                "exit_code",
                "shutdown",
                "shutdown_exit_code",
                "response_time",
                "exec_output",
                "user",
            ],
        );
        let mut ib = ImageBehavior {
            size_bytes: super::kubelet::images::default_size(image),
            ..Default::default()
        };
        if let Some(p) = m.get("pull") {
            match p.as_str() {
                Some("ok") => ib.pull_ok = true,
                Some("fail") => ib.pull_ok = false,
                _ => l.err(
                    &format!("{path}.pull"),
                    format!(
                        "Unsupported value: {}: supported values: \"ok\", \"fail\"",
                        render(p)
                    ),
                ),
            }
        }
        if let Some(v) = m.get("pull_time") {
            ib.pull_time_ms = l
                .duration(&format!("{path}.pull_time"), v)
                .unwrap_or(ib.pull_time_ms);
        }
        if let Some(v) = m.get("pull_error") {
            ib.pull_error = Some(render(v));
        }
        if let Some(v) = m.get("size") {
            match quantity::parse_bytes(v) {
                Some(n) => ib.size_bytes = u64::try_from(n).unwrap_or(0),
                None => l.err(
                    &format!("{path}.size"),
                    format!(
                        "Invalid value: {}: {}",
                        render(v),
                        quantity::QUANTITY_REGEX_MESSAGE
                    ),
                ),
            }
        }
        if let Some(v) = m.get("listen_after") {
            ib.listen_after_ms = l.duration(&format!("{path}.listen_after"), v).unwrap_or(0);
        }
        if let Some(v) = m.get("ready") {
            match v.as_str() {
                Some("always") => ib.ready = ReadyBehavior::Always,
                Some("never") => ib.ready = ReadyBehavior::Never,
                Some(s) if s.starts_with("after ") => {
                    let d = Value::String(s["after ".len()..].to_string());
                    if let Some(ms) = l.duration(&format!("{path}.ready"), &d) {
                        ib.ready = ReadyBehavior::AfterMs(ms);
                    }
                }
                _ => l.err(&format!("{path}.ready"), format!("Unsupported value: {}: supported values: \"always\", \"never\", \"after <duration>\"", render(v))),
            }
        }
        if let Some(v) = m.get("crash_after") {
            ib.crash_after_ms = l.duration(&format!("{path}.crash_after"), v);
        }
        if let Some(v) = m.get("complete_after") {
            ib.complete_after_ms = l.duration(&format!("{path}.complete_after"), v);
        }
        // A process's exit status is one byte, as the kubelet reports it.
        if let Some(v) = m.get("exit_code") {
            match v.as_i64().and_then(|c| u8::try_from(c).ok()) {
                Some(c) => ib.exit_code = c.into(),
                None => l.err(
                    &format!("{path}.exit_code"),
                    "must be an integer from 0 to 255",
                ),
            }
        }
        if let Some(v) = m.get("exec_output") {
            match v.as_str() {
                Some(text) => ib.exec_output = text.trim().to_string(),
                None => l.err(&format!("{path}.exec_output"), "must be a string"),
            }
        }
        if let Some(v) = m.get("user") {
            match v.as_i64().filter(|u| (0..=i64::from(i32::MAX)).contains(u)) {
                Some(u) => ib.user = u,
                None => l.err(
                    &format!("{path}.user"),
                    "must be a numeric user ID from 0 to 2147483647",
                ),
            }
        }
        if let Some(v) = m.get("response_time") {
            ib.response_ms = l.duration(&format!("{path}.response_time"), v).unwrap_or(0);
        }
        if let Some(v) = m.get("shutdown") {
            ib.shutdown_ms = l.duration(&format!("{path}.shutdown"), v);
        }
        if let Some(v) = m.get("shutdown_exit_code") {
            match v.as_i64().and_then(|c| u8::try_from(c).ok()) {
                Some(c) => ib.shutdown_exit_code = c.into(),
                None => l.err(
                    &format!("{path}.shutdown_exit_code"),
                    "must be an integer from 0 to 255",
                ),
            }
        }
        world.images.insert(image.clone(), ib);
    }
    world
}

/// Decodes, defaults and validates the manifest at `path` of the scenario document.
/// The Deployment at `path`: validated when it is the scenario's own (`validate`), only decoded
/// when an `apply` action sends it later ([`manifest::decode_document`]).
fn load_deployment(l: &mut Loader<'_>, path: &str, validate: bool) -> Option<Deployment> {
    let sub = l.manifests.child(path);
    let checked = if validate {
        manifest::check_document(&sub)
    } else {
        manifest::decode_document(&sub)
    };
    match checked {
        Ok(d) => Some(d),
        Err(errs) => {
            for (field, message) in errs {
                let full = if field.is_empty() {
                    path.to_string()
                } else {
                    format!("{path}.{field}")
                };
                l.errors.push(ScenarioError {
                    line: l.doc.line_of(&full),
                    field: full,
                    message,
                });
            }
            None
        }
    }
}

fn load_actions(l: &mut Loader<'_>, v: Option<&Value>, dname: &str, out: &mut Vec<TimedCommand>) {
    let Some(v) = v else {
        return;
    };
    let Some(list) = v.as_array() else {
        l.err("actions", "must be a list of {at: <time>, <action>: ...}");
        return;
    };
    if list.len() > MAX_ACTIONS {
        l.err(
            "actions",
            format!(
                "{} actions is more than RolloutScope simulates (at most {MAX_ACTIONS})",
                list.len()
            ),
        );
        return;
    }
    const VERBS: &[&str] = &[
        "set_image",
        "scale",
        "rollout_undo",
        "apply",
        "pause",
        "resume",
        "rollout_restart",
        "cordon",
        "uncordon",
        "drain",
        "taint",
        "untaint",
        "delete_pod",
        "fail_node",
        "restart_kubelet",
        "break_readiness",
        "crash_pod",
        "fail_registry",
        "create_configmap",
        "create_secret",
    ];
    for (i, a) in list.iter().enumerate() {
        let path = format!("actions[{i}]");
        let Some(m) = a.as_object() else {
            l.err(
                &path,
                "must be a mapping like {at: 60s, set_image: web:2.0}",
            );
            continue;
        };
        let mut keys: Vec<&str> = VERBS.to_vec();
        keys.push("at");
        known_keys(l, &path, m, &keys);
        let at = match m.get("at") {
            Some(v) => l.duration(&format!("{path}.at"), v),
            None => {
                l.err(
                    &format!("{path}.at"),
                    "Required value: when the action happens, e.g. 60s",
                );
                None
            }
        };
        let verbs: Vec<&str> = VERBS
            .iter()
            .copied()
            .filter(|k| m.contains_key(*k))
            .collect();
        if verbs.len() != 1 {
            l.err(
                &path,
                format!(
                    "must name exactly one action (one of: {})",
                    VERBS.join(", ")
                ),
            );
            continue;
        }
        let verb = verbs[0];
        let arg = &m[verb];
        let vpath = format!("{path}.{verb}");
        let d = dname.to_string();
        let command = match verb {
            "set_image" => match arg {
                Value::String(image) => Some(Command::SetImage {
                    deployment: d,
                    container: None,
                    image: image.clone(),
                }),
                Value::Object(o) => {
                    known_keys(l, &vpath, o, &["container", "image"]);
                    let container = match o.get("container") {
                        None => Some(None),
                        Some(Value::String(c)) => Some(Some(c.clone())),
                        Some(_) => None,
                    };
                    match (o.get("image").and_then(Value::as_str), container) {
                        (_, None) => {
                            l.err(
                                &format!("{vpath}.container"),
                                "must be a container name, or \"*\" for every container",
                            );
                            None
                        }
                        (Some(image), Some(container)) => Some(Command::SetImage {
                            deployment: d,
                            container,
                            image: image.to_string(),
                        }),
                        (None, _) => {
                            l.err(&format!("{vpath}.image"), "Required value");
                            None
                        }
                    }
                }
                _ => {
                    l.err(
                        &vpath,
                        "must be an image or {container: web, image: web:2.0}",
                    );
                    None
                }
            },
            "scale" => match arg.as_i64() {
                Some(n) if n < 0 => {
                    l.err(
                        &vpath,
                        format!("Invalid value: {n}: must be greater than or equal to 0"),
                    );
                    None
                }
                Some(n) if n > MAX_REPLICAS => {
                    l.err(
                        &vpath,
                        super::manifest::beyond_simulated(n).unwrap_or_default(),
                    );
                    None
                }
                Some(n) => Some(Command::Scale {
                    deployment: d,
                    replicas: n as i32,
                }),
                None => {
                    l.err(
                        &vpath,
                        format!(
                            "Invalid value: {}: must be an integer",
                            super::validation::render_value(arg)
                        ),
                    );
                    None
                }
            },
            "rollout_undo" => {
                no_args_but(l, &vpath, arg, &["to_revision"]);
                let to = arg.get("to_revision").map(|v| v.as_i64());
                match to {
                    Some(None) => {
                        l.err(&format!("{vpath}.to_revision"), "must be an integer");
                        None
                    }
                    Some(Some(n)) => Some(Command::RolloutUndo {
                        deployment: d,
                        to_revision: n,
                    }),
                    None => Some(Command::RolloutUndo {
                        deployment: d,
                        to_revision: 0,
                    }),
                }
            }
            "apply" => load_deployment(l, &vpath, false).map(|m| Command::Apply(Box::new(m))),
            "create_configmap" | "create_secret" => {
                no_args_but(l, &vpath, arg, &["name", "data"]);
                let name = arg.get("name").and_then(Value::as_str).unwrap_or("");
                let data = arg.get("data").map_or(Some(Default::default()), |d| {
                    d.as_object().map(|o| {
                        o.iter()
                            .map(|(k, v)| (k.clone(), render(v)))
                            .collect::<std::collections::BTreeMap<_, _>>()
                    })
                });
                match (name, data) {
                    ("", _) => {
                        l.err(&format!("{vpath}.name"), "Required value");
                        None
                    }
                    (_, None) => {
                        l.err(
                            &format!("{vpath}.data"),
                            "must be a mapping of keys to values, like {LOG_LEVEL: info}",
                        );
                        None
                    }
                    (name, Some(data)) => Some(Command::CreateConfig {
                        secret: verb == "create_secret",
                        name: name.to_string(),
                        data,
                    }),
                }
            }
            "pause" | "resume" | "rollout_restart" => {
                no_args_but(l, &vpath, arg, &[]);
                Some(match verb {
                    "pause" => Command::Pause { deployment: d },
                    "resume" => Command::Resume { deployment: d },
                    _ => Command::RolloutRestart { deployment: d },
                })
            }
            "taint" | "untaint" => {
                // `NODE key[=value]:Effect`, as kubectl's arguments (without the trailing `-`).
                let text = arg.as_str().unwrap_or_default();
                match text.split_once(' ') {
                    Some((node, spec)) if !node.is_empty() => {
                        let taints = parse_taints(
                            l,
                            &vpath,
                            Some(&Value::Array(vec![Value::String(spec.trim().to_string())])),
                        );
                        taints.into_iter().next().map(|taint| Command::Taint {
                            node: node.to_string(),
                            taint,
                            remove: verb == "untaint",
                        })
                    }
                    _ => {
                        l.err(
                            &vpath,
                            "must be a node and a taint, like \"node-1 dedicated=gpu:NoSchedule\"",
                        );
                        None
                    }
                }
            }
            "delete_pod" => {
                match super::commands::parse_delete_pod(arg.as_str().unwrap_or_default()) {
                    Ok(command) => Some(command),
                    Err(why) => {
                        l.err(&vpath, &why);
                        None
                    }
                }
            }
            "drain" => match super::drain::parse(arg.as_str().unwrap_or_default()) {
                Ok((node, flags)) => Some(Command::Drain { node, flags }),
                Err(why) => {
                    l.err(&vpath, &why);
                    None
                }
            },
            "cordon" | "uncordon" | "fail_node" | "restart_kubelet" | "break_readiness"
            | "crash_pod" | "fail_registry" => match arg.as_str() {
                Some(s) if !s.is_empty() => Some(match verb {
                    "cordon" => Command::Cordon(s.to_string()),
                    "uncordon" => Command::Uncordon(s.to_string()),
                    "fail_node" => Command::FailNode(s.to_string()),
                    "restart_kubelet" => Command::RestartKubelet(s.to_string()),
                    "break_readiness" => Command::BreakReadiness(s.to_string()),
                    "crash_pod" => Command::CrashPod(s.to_string()),
                    _ => Command::FailRegistry(s.to_string()),
                }),
                _ => {
                    l.err(
                        &vpath,
                        "must name a node, a pod (name or prefix) or, for fail_registry, an image",
                    );
                    None
                }
            },
            _ => None,
        };
        if let (Some(at), Some(command)) = (at, command) {
            out.push(TimedCommand {
                at: Time(at),
                command,
            });
        }
    }
}

/// The result of running a scenario to its end.
pub struct Run {
    pub steps: Vec<super::trace::Step>,
    pub sim: Sim,
    /// Why the run stopped.
    pub stopped: String,
    /// The simulated time the run stopped at: the run_until time or the cap when the clock ran
    /// out, which can be later than the last step (nothing happened in between), else the last
    /// step's time.
    pub stopped_at: Time,
}

/// Runs a scenario until `run_until`, calling `on_step` after each step with the simulator in
/// the state that step left.
pub fn run_with(scenario: &Scenario, mut on_step: impl FnMut(&super::trace::Step, &Sim)) -> Run {
    let mut sim = scenario.sim();
    let limit = scenario.time_limit();
    let mut steps = Vec::new();
    let mut stopped_at = None;
    let stopped = loop {
        if scenario.finished(&sim) {
            break "the rollout is complete".to_string();
        }
        let mut stop = |s: &Sim| scenario.finished(s);
        match sim.step_until_or(limit, &mut stop) {
            Some(step) => {
                on_step(&step, &sim);
                steps.push(step);
            }
            None => {
                if scenario.finished(&sim) {
                    break "the rollout is complete".to_string();
                }
                // Every way out but "nothing is left to do" ran the clock to the limit.
                let (why, at) = match scenario.run_until {
                    RunUntil::At(t) => (format!("reached run_until {t}"), limit),
                    // An action still waiting is past the cap: the run ends before it.
                    RunUntil::Complete if !sim.actions_done() => (
                        format!(
                            "an action comes after the {} that run_until: complete runs at most, so it never ran (give run_until a time after it)",
                            super::kubelet::go_duration(COMPLETE_CAP_MS)
                        ),
                        limit,
                    ),
                    RunUntil::Complete if sim.next_due().is_some() => (
                        format!(
                            "the rollout did not complete within {}",
                            super::kubelet::go_duration(COMPLETE_CAP_MS)
                        ),
                        limit,
                    ),
                    RunUntil::Complete => ("nothing is left to do".to_string(), sim.now()),
                };
                stopped_at = Some(at);
                break why;
            }
        }
    };
    let stopped_at = stopped_at.unwrap_or_else(|| sim.now());
    Run {
        steps,
        sim,
        stopped,
        stopped_at,
    }
}
