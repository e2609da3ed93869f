//! kubectl's view of the simulated cluster: what `kubectl` would print at the current moment of
//! a [`Sim`] — the rollout status line (`DeploymentStatusViewer.Status` in
//! `staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go`, unchanged from
//! kubectl 1.28 to 2026; spec §17), the `kubectl get` tables for Deployments, ReplicaSets, Pods
//! and Events in kubectl's column layout (`pkg/printers/internalversion/printers.go`, spec
//! §15.8), `kubectl describe pod`, `kubectl describe deployment`, `kubectl describe replicaset` and
//! `kubectl rollout history`.
//!
//! Every function here but one is pure: it reads the store (and, for events, the trace's steps —
//! events live in the steps, not in the store) and returns text. The exception is the watching
//! `rollout status`, which steps the simulator on for as long as kubectl would keep watching.
//! Timestamps are the simulator's logical clock: ages are `now − creationTimestamp` in kubectl's
//! human-duration form (`45s`, `2m10s`).

use super::api::pod::{Container, ContainerPort, ContainerStatus, PodSpec, PodTemplateSpec};
use super::api::{
    ConditionReason, ContainerState, Deployment, DeploymentConditionType, Event, EventType,
    IntOrString, LabelSelector, Pod, PodPhase, Probe, ReplicaSet, Time, quantity,
};
use super::api::{EventReason, Node};
use super::controller::deployment::util::{
    REVISION_ANNOTATION, by_creation_timestamp, find_new_replica_set,
};
use super::controller::scheduler::{self, format_cpu, format_mem};
use super::engine::Sim;
use super::fingerprint;
use super::recorder;
use super::rng::SAFE_ALPHANUMS;
use super::store::{Store, aggregate_containers};
use super::trace::Step;
use crate::sim::order;
use std::collections::BTreeMap;

/// `DeploymentStatusViewer.Status`: the message kubectl prints for one observed state of the
/// Deployment, and whether the rollout is done. Every message ends with a newline, as kubectl
/// prints it.
///
/// In upstream's order:
/// 1. With `revision` set to N > 0, the Deployment's `deployment.kubernetes.io/revision`
///    annotation (missing = 0) must equal N. `None` and values ≤ 0 skip this check, as kubectl's
///    default `--revision=0` does.
/// 2. If `metadata.generation ≤ status.observedGeneration` (the controller has seen the latest
///    spec), the first of these that applies:
///    * Progressing reason `ProgressDeadlineExceeded` → an error;
///    * `updatedReplicas < spec.replicas` (only when `spec.replicas` is set) →
///      `… <updated> out of <spec> new replicas have been updated...`;
///    * `replicas > updatedReplicas` → `… <replicas − updated> old replicas are pending
///      termination...`;
///    * `availableReplicas < updatedReplicas` → `… <available> of <updated> updated replicas are
///      available...`;
///    * otherwise `deployment "<d>" successfully rolled out` (done).
/// 3. Otherwise `Waiting for deployment spec update to be observed...`.
///
/// Example: spec.replicas 2, status replicas 2, updated 2, available 1 (generation observed)
/// gives `Waiting for deployment "web" rollout to finish: 1 of 2 updated replicas are
/// available...`.
///
/// # Errors
/// * `desired revision (N) is different from the running revision (M)` when step 1 fails, or
///   `cannot get the revision of deployment "<d>": …` when the annotation is not an integer;
/// * `deployment "<d>" exceeded its progress deadline` when the Progressing condition says so
///   (kubectl prints it as `error: …` and exits 1).
pub fn rollout_status(d: &Deployment, revision: Option<i64>) -> Result<(String, bool), String> {
    let name = &d.metadata.name;
    if let Some(want) = revision.filter(|r| *r > 0) {
        let running = deployment_revision(d)
            .map_err(|e| format!("cannot get the revision of deployment {name:?}: {e}"))?;
        if want != running {
            return Err(format!(
                "desired revision ({want}) is different from the running revision ({running})"
            ));
        }
    }
    if d.metadata.generation <= d.status.observed_generation {
        let timed_out = d
            .condition(DeploymentConditionType::Progressing)
            .is_some_and(|c| c.reason == ConditionReason::ProgressDeadlineExceeded);
        if timed_out {
            return Err(format!(
                "deployment {name:?} exceeded its progress deadline"
            ));
        }
        let s = &d.status;
        if let Some(spec) = d.spec.replicas
            && s.updated_replicas < spec
        {
            return Ok((
                format!(
                    "Waiting for deployment {name:?} rollout to finish: {} out of {spec} new replicas have been updated...\n",
                    s.updated_replicas
                ),
                false,
            ));
        }
        if s.replicas > s.updated_replicas {
            return Ok((
                format!(
                    "Waiting for deployment {name:?} rollout to finish: {} old replicas are pending termination...\n",
                    s.replicas - s.updated_replicas
                ),
                false,
            ));
        }
        if s.available_replicas < s.updated_replicas {
            return Ok((
                format!(
                    "Waiting for deployment {name:?} rollout to finish: {} of {} updated replicas are available...\n",
                    s.available_replicas, s.updated_replicas
                ),
                false,
            ));
        }
        return Ok((
            format!("deployment {name:?} successfully rolled out\n"),
            true,
        ));
    }
    Ok((
        "Waiting for deployment spec update to be observed...\n".to_string(),
        false,
    ))
}

/// kubectl's `deploymentutil.Revision`: the revision annotation as a number; missing is 0.
fn deployment_revision(d: &Deployment) -> Result<i64, String> {
    let Some(v) = d.metadata.annotations.get(REVISION_ANNOTATION) else {
        return Ok(0);
    };
    v.parse::<i64>().map_err(|_| {
        // strconv.ParseInt tells a digit run that does not fit apart from other garbage.
        let digits = v.strip_prefix(['-', '+']).unwrap_or(v);
        let why = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            "value out of range"
        } else {
            "invalid syntax"
        };
        format!("strconv.ParseInt: parsing {v:?}: {why}")
    })
}

/// `duration.HumanDuration` (`k8s.io/apimachinery/pkg/util/duration`), the AGE and LAST SEEN
/// form: exact seconds below 2 minutes, minutes and seconds below 10 minutes, then coarser.
///
/// Example: 45 s → `45s`, 130 s → `2m10s`, 300 s → `5m`, 11 min → `11m`, 3 h 5 min → `3h5m`.
pub fn human_duration(ms: u64) -> String {
    let seconds = ms / 1000;
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    format!("{}d", hours / 24)
}

/// `translateTimestampSince`: [`human_duration`] of the time since `t`. A time in the future (a
/// pending deletion's timestamp) is "almost now" within two seconds and `<invalid>` beyond, as
/// `HumanDuration` has it for negative durations.
fn since(now: Time, t: Time) -> String {
    if t > now {
        return if t.millis_since(now) >= 2_000 {
            "<invalid>".to_string()
        } else {
            "0s".to_string()
        };
    }
    human_duration(now.millis_since(t))
}

/// Go's `text/tabwriter` as kubectl configures it: cells end with `\t`, the text after a line's
/// last tab is not aligned, and a column's width is the widest cell of the consecutive lines
/// that have that column, plus `padding`, at least `min_width`.
///
/// `kubectl get` uses `min_width` 6 and `padding` 3 (`printers.GetNewTabWriter`); `kubectl
/// describe` uses 0 and 2.
pub fn tabwrite(text: &str, min_width: usize, padding: usize) -> String {
    let lines: Vec<Vec<&str>> = text
        .strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .map(|l| l.split('\t').collect())
        .collect();
    let mut widths: Vec<Vec<usize>> = vec![Vec::new(); lines.len()];
    format_block(
        &lines,
        &mut widths,
        &mut Vec::new(),
        0,
        lines.len(),
        min_width,
        padding,
    );
    let mut out = String::new();
    for (line, w) in lines.iter().zip(&widths) {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if let Some(width) = w.get(j)
                && j + 1 < line.len()
            {
                let n = cell.chars().count();
                out.extend(std::iter::repeat_n(' ', width.saturating_sub(n)));
            }
        }
        out.push('\n');
    }
    out
}

/// The recursion of `tabwriter.Writer.format`: finds the blocks of consecutive lines that have
/// a cell in the next column and sizes that column per block.
fn format_block(
    lines: &[Vec<&str>],
    out: &mut [Vec<usize>],
    stack: &mut Vec<usize>,
    mut line0: usize,
    line1: usize,
    min_width: usize,
    padding: usize,
) {
    let column = stack.len();
    let mut this = line0;
    while this < line1 {
        if column + 1 >= lines[this].len() {
            this += 1;
            continue;
        }
        for o in &mut out[line0..this] {
            o.clone_from(stack);
        }
        line0 = this;
        let mut width = min_width;
        while this < line1 && column + 1 < lines[this].len() {
            width = width.max(lines[this][column].chars().count() + padding);
            this += 1;
        }
        stack.push(width);
        format_block(lines, out, stack, line0, this, min_width, padding);
        stack.pop();
        line0 = this;
    }
    for o in &mut out[line0..line1] {
        o.clone_from(stack);
    }
}

/// One moment of a simulation as kubectl sees it: the cluster state, the trace so far (events
/// live in the steps, not in the store), and the time kubectl runs at. The time may be later
/// than the last step (`--at 3m` when the last step was at 2m50s): nothing changes in between,
/// but ages grow.
#[derive(Clone, Copy)]
pub struct Moment<'a> {
    pub sim: &'a Sim,
    pub steps: &'a [Step],
    pub now: Time,
}

impl<'a> Moment<'a> {
    /// The simulator's current moment.
    pub fn new(sim: &'a Sim, steps: &'a [Step]) -> Moment<'a> {
        Moment {
            sim,
            steps,
            now: sim.now(),
        }
    }

    /// The same state seen at a later time (never earlier than the simulator's clock).
    pub fn at(self, now: Time) -> Moment<'a> {
        Moment {
            now: now.max(self.sim.now()),
            ..self
        }
    }
}

/// The kinds `kubectl get` prints here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    Deployments,
    ReplicaSets,
    Pods,
    Events,
    Nodes,
    PodDisruptionBudgets,
}

impl Resource {
    /// Parses a kubectl resource word (`deploy`, `deployments`, `rs`, `po`, `pods`, `ev`, …).
    pub fn parse(word: &str) -> Option<Resource> {
        match word {
            "deploy" | "deployment" | "deployments" | "deployment.apps" | "deployments.apps" => {
                Some(Resource::Deployments)
            }
            "rs" | "replicaset" | "replicasets" | "replicaset.apps" | "replicasets.apps" => {
                Some(Resource::ReplicaSets)
            }
            "po" | "pod" | "pods" => Some(Resource::Pods),
            "ev" | "event" | "events" => Some(Resource::Events),
            "no" | "node" | "nodes" => Some(Resource::Nodes),
            "pdb"
            | "pdbs"
            | "poddisruptionbudget"
            | "poddisruptionbudgets"
            | "poddisruptionbudget.policy"
            | "poddisruptionbudgets.policy" => Some(Resource::PodDisruptionBudgets),
            _ => None,
        }
    }

    /// The `kind.group/` prefix kubectl puts on names when several kinds are listed.
    fn prefix(self) -> &'static str {
        match self {
            Resource::Deployments => "deployment.apps/",
            Resource::ReplicaSets => "replicaset.apps/",
            Resource::Pods => "pod/",
            Resource::Events => "event/",
            Resource::Nodes => "node/",
            Resource::PodDisruptionBudgets => "poddisruptionbudget.policy/",
        }
    }
}

/// What `kubectl get` writes to stderr when it finds nothing to list (and it still succeeds), so
/// that `kubectl get pods | wc -l` counts 0.
pub const NO_RESOURCES: &str = "No resources found in default namespace.";

/// `kubectl get <kinds> [-o wide]` at the simulator's current moment: one table per kind,
/// separated by a blank line, names prefixed with the kind when more than one kind is asked
/// for. `steps` supplies the events. Empty when there is nothing to list: kubectl then writes
/// only [`NO_RESOURCES`], to stderr.
pub fn get(m: &Moment<'_>, kinds: &[Resource], wide: bool) -> String {
    let prefixed = kinds.len() > 1;
    let mut tables = Vec::new();
    for &kind in kinds {
        let prefix = if prefixed { kind.prefix() } else { "" };
        let table = match kind {
            Resource::Deployments => get_deployments(m, prefix, wide),
            Resource::ReplicaSets => get_replica_sets(m, prefix, wide),
            Resource::Pods => get_pods(m, prefix, wide),
            Resource::Events => get_events_sorted(m, None, wide),
            Resource::Nodes => get_nodes(m, prefix, wide),
            Resource::PodDisruptionBudgets => aligned(&pdbs_table(m, prefix)),
        };
        tables.push(table);
    }
    let nonempty: Vec<String> = tables.into_iter().filter(|t| !t.is_empty()).collect();
    nonempty.join("\n")
}

/// A `get` table aligned as kubectl's printer aligns it; nothing for no rows at all.
fn aligned(raw: &str) -> String {
    if raw.is_empty() {
        String::new()
    } else {
        tabwrite(raw, 6, 3)
    }
}

/// `kubectl get TYPE NAME…` and `kubectl get TYPE/NAME…`: the named objects, each run of names
/// of one type as one table, its rows in the order the names were given, a blank line between
/// tables. Names are exact (get takes no prefix). When several types are named, names carry
/// their kind as in `get deploy,rs`. The second value is kubectl's error for each name that
/// names nothing (`Error from server (NotFound): deployments.apps "x" not found`), which it
/// prints on stderr after the tables, exiting 1. Events are not looked up by name here.
pub fn get_named(
    m: &Moment<'_>,
    requests: &[(Resource, &str)],
    wide: bool,
) -> (String, Vec<String>) {
    let several_kinds = requests.windows(2).any(|w| w[0].0 != w[1].0);
    let mut tables = Vec::new();
    let mut missing = Vec::new();
    for run in requests.chunk_by(|a, b| a.0 == b.0) {
        let kind = run[0].0;
        let prefix = if several_kinds { kind.prefix() } else { "" };
        let (raw, resource) = match kind {
            Resource::Deployments => (deployments_table(m, prefix, wide), "deployments.apps"),
            Resource::ReplicaSets => (replica_sets_table(m, prefix, wide), "replicasets.apps"),
            Resource::Pods => (pods_table(m, prefix, wide), "pods"),
            Resource::Nodes => (nodes_table(m, prefix, wide), "nodes"),
            Resource::PodDisruptionBudgets => {
                (pdbs_table(m, prefix), "poddisruptionbudgets.policy")
            }
            Resource::Events => (String::new(), "events"),
        };
        let mut lines = raw.lines();
        let header = lines.next().unwrap_or_default();
        let rows: Vec<&str> = lines.collect();
        let mut table = String::new();
        for (_, name) in run {
            let cell = format!("{prefix}{name}");
            match rows
                .iter()
                .find(|r| r.split('\t').next() == Some(cell.as_str()))
            {
                Some(row) => {
                    table.push_str(row);
                    table.push('\n');
                }
                None => missing.push(not_found(resource, name)),
            }
        }
        if !table.is_empty() {
            tables.push(aligned(&format!("{header}\n{table}")));
        }
    }
    (tables.join("\n"), missing)
}

/// `kubectl get deploy`: `NAME READY UP-TO-DATE AVAILABLE AGE`, READY being
/// `readyReplicas/spec.replicas`; `-o wide` adds `CONTAINERS IMAGES SELECTOR`.
pub fn get_deployments(m: &Moment<'_>, prefix: &str, wide: bool) -> String {
    aligned(&deployments_table(m, prefix, wide))
}

/// The rows of [`get_deployments`] before they are aligned: a header line, then one line per object,
/// its first cell the object's (prefixed) name, cells separated by tabs.
fn deployments_table(m: &Moment<'_>, prefix: &str, wide: bool) -> String {
    let (sim, now) = (m.sim, m.now);
    let mut t = String::new();
    if sim.store().deployments.is_empty() {
        return t;
    }
    t.push_str("NAME\tREADY\tUP-TO-DATE\tAVAILABLE\tAGE");
    if wide {
        t.push_str("\tCONTAINERS\tIMAGES\tSELECTOR");
    }
    t.push('\n');
    for d in sim.store().deployments.values() {
        let s = &d.status;
        t.push_str(&format!(
            "{prefix}{}\t{}/{}\t{}\t{}\t{}",
            d.metadata.name,
            s.ready_replicas,
            d.replicas(),
            s.updated_replicas,
            s.available_replicas,
            since(now, d.metadata.creation_timestamp)
        ));
        if wide {
            let spec = &d.spec.template.spec;
            t.push_str(&format!(
                "\t{}\t{}\t{}",
                join_containers(spec.containers.iter().map(|c| c.name.as_str())),
                join_containers(spec.containers.iter().map(|c| c.image.as_str())),
                d.spec
                    .selector
                    .as_ref()
                    .map(LabelSelector::to_selector_string)
                    .unwrap_or_default()
            ));
        }
        t.push('\n');
    }
    t
}

/// What every simulated node reports about itself (`status.nodeInfo`): a kind-style node of
/// the Kubernetes version RolloutScope follows.
pub const NODE_INFO: NodeInfo = NodeInfo {
    os_image: "Debian GNU/Linux 12 (bookworm)",
    kernel_version: "6.1.0-31-amd64",
    container_runtime: "containerd://2.1.4",
    kubelet_version: "v1.35.0",
};

/// A node's `status.nodeInfo` fields that kubectl prints.
pub struct NodeInfo {
    pub os_image: &'static str,
    pub kernel_version: &'static str,
    pub container_runtime: &'static str,
    pub kubelet_version: &'static str,
}

/// The API server's answer for an object that does not exist, as kubectl prints it:
/// `Error from server (NotFound): <resource> "<name>" not found`.
pub fn not_found(resource: &str, name: &str) -> String {
    format!("Error from server (NotFound): {resource} {name:?} not found")
}

/// A node's internal IP, matching the host IP its pods report.
fn node_ip(n: &Node) -> String {
    format!("192.168.49.{}", n.spec.pod_cidr_index + 2)
}

/// `kubectl get nodes`: `NAME STATUS ROLES AGE VERSION`, STATUS being `Ready` or `NotReady`,
/// with `,SchedulingDisabled` when cordoned; `-o wide` adds `INTERNAL-IP EXTERNAL-IP OS-IMAGE
/// KERNEL-VERSION CONTAINER-RUNTIME`. Nodes are cluster-scoped, so this table comes even when
/// the namespace has nothing.
pub fn get_nodes(m: &Moment<'_>, prefix: &str, wide: bool) -> String {
    aligned(&nodes_table(m, prefix, wide))
}

/// The rows of [`get_nodes`] before they are aligned: a header line, then one line per object,
/// its first cell the object's (prefixed) name, cells separated by tabs.
fn nodes_table(m: &Moment<'_>, prefix: &str, wide: bool) -> String {
    let (sim, now) = (m.sim, m.now);
    let mut t = String::from("NAME\tSTATUS\tROLES\tAGE\tVERSION");
    if wide {
        t.push_str("\tINTERNAL-IP\tEXTERNAL-IP\tOS-IMAGE\tKERNEL-VERSION\tCONTAINER-RUNTIME");
    }
    t.push('\n');
    for n in sim.store().nodes.values() {
        let mut status = if n.status.ready { "Ready" } else { "NotReady" }.to_string();
        if n.spec.unschedulable {
            status.push_str(",SchedulingDisabled");
        }
        t.push_str(&format!(
            "{prefix}{}\t{status}\t<none>\t{}\t{}",
            n.metadata.name,
            since(now, n.metadata.creation_timestamp),
            NODE_INFO.kubelet_version
        ));
        if wide {
            t.push_str(&format!(
                "\t{}\t<none>\t{}\t{}\t{}",
                node_ip(n),
                NODE_INFO.os_image,
                NODE_INFO.kernel_version,
                NODE_INFO.container_runtime
            ));
        }
        t.push('\n');
    }
    t
}

/// `kubectl get pdb` (`printPodDisruptionBudget`): `NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED
/// DISRUPTIONS AGE`, `N/A` for the bound a budget does not set; `-o wide` adds nothing. Empty
/// when there is none.
fn pdbs_table(m: &Moment<'_>, prefix: &str) -> String {
    let (sim, now) = (m.sim, m.now);
    let mut t = String::new();
    if sim.store().pdbs.is_empty() {
        return t;
    }
    t.push_str("NAME\tMIN AVAILABLE\tMAX UNAVAILABLE\tALLOWED DISRUPTIONS\tAGE\n");
    let bound = |v: &Option<crate::sim::api::IntOrString>| {
        v.as_ref().map_or("N/A".to_string(), ToString::to_string)
    };
    for b in sim.store().pdbs.values() {
        t.push_str(&format!(
            "{prefix}{}\t{}\t{}\t{}\t{}\n",
            b.metadata.name,
            bound(&b.spec.min_available),
            bound(&b.spec.max_unavailable),
            b.status.disruptions_allowed,
            since(now, b.metadata.creation_timestamp)
        ));
    }
    t
}

/// The sum of one resource over pods, each counted as the scheduler counts it (its app
/// containers and sidecars, or an init container's peak if larger: `PodRequestsAndLimits`), as
/// `Quantity.Add` leaves it and `String` prints it: in the format of the first quantity added
/// (`128Mi` + `128Mi` is `256Mi`, `100M` + `100M` is `200M`), `0` when there is none.
fn pods_quantity(
    pods: &[&Pod],
    list: fn(&Container) -> &BTreeMap<String, serde_json::Value>,
    name: &str,
) -> (i64, String) {
    let text = |c: &Container| {
        list(c)
            .get(name)
            .and_then(quantity::quantity_text)
            .map(|t| t.into_owned())
    };
    let mut milli: i64 = 0;
    let mut binary = None;
    for p in pods {
        if let Some(first) = p
            .spec
            .containers
            .iter()
            .chain(&p.spec.init_containers)
            .find_map(text)
        {
            binary.get_or_insert(first.ends_with('i'));
        }
        milli = milli.saturating_add(aggregate_containers(&p.spec, |c| {
            text(c).and_then(|t| quantity::parse_milli(&t)).unwrap_or(0)
        }));
    }
    let text = match binary {
        None => "0".to_string(),
        Some(true) if milli % 1000 == 0 => {
            let bytes = milli / 1000;
            if bytes >= 1024 && bytes % 1024 == 0 {
                quantity::canonical(&format!("{}Ki", bytes / 1024)).unwrap_or_default()
            } else {
                bytes.to_string()
            }
        }
        Some(_) => quantity::canonical(&format!("{milli}m")).unwrap_or_default(),
    };
    (milli, text)
}

/// `<amount> (<n>%)` of `describeNodeResource`, the percentage of the allocatable amount
/// truncated as Go's `int64(float64)` does (0 when nothing is allocatable).
fn with_fraction((amount, text): (i64, String), allocatable: i64) -> String {
    let pct = if allocatable > 0 {
        i128::from(amount) * 100 / i128::from(allocatable)
    } else {
        0
    };
    format!("{text} ({pct}%)")
}

/// The size of every simulated node's disk as its kubelet reports it (`ephemeral-storage`, in
/// KiB, as a 100 GiB ext4 volume reads).
const EPHEMERAL_STORAGE_KI: i64 = 102_626_232;

/// A node's machine ID (32 hex digits, `/etc/machine-id`), system UUID and boot ID, as
/// `status.nodeInfo` reports them: made up, but the same for the same node name every time.
fn node_ids(name: &str) -> [String; 3] {
    // FNV-1a of the name and a salt, then splitmix64's finalizer, so that names differing in
    // one letter get unrelated IDs.
    let word = |salt: u8| {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes().chain([0, salt]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^ (h >> 31)
    };
    let hex = |salt: u8| format!("{:016x}{:016x}", word(salt), word(salt.wrapping_add(1)));
    let uuid = |h: String| {
        format!(
            "{}-{}-{}-{}-{}",
            &h[0..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..32]
        )
    };
    // The boot ID is a random (version 4) UUID, which the kernel makes at boot.
    let boot = hex(4);
    let variant = ["8", "9", "a", "b"][usize::from(boot.as_bytes()[16] % 4)];
    let boot = format!("{}4{}{variant}{}", &boot[..12], &boot[13..16], &boot[17..]);
    [hex(0), uuid(hex(2)), uuid(boot)]
}

/// `kubectl describe nodes`: every node described in name order, each after the one before and
/// a blank line, as kubectl joins the descriptions of several objects.
/// `kubectl describe TYPE NAME`: the object of that name or, when there is none, every object of
/// the type whose name starts with NAME (`DescribeMatchingResources`), in the API's list order
/// (by name), each followed by a blank line; still the not-found error when none does. So
/// `kubectl describe pod web-5d4f` describes that ReplicaSet's pods.
///
/// # Errors
/// `describe`'s error for NAME when no object's name starts with it.
pub fn describe_by_prefix<'n>(
    names: impl IntoIterator<Item = &'n str>,
    name: &str,
    describe: impl Fn(&str) -> Result<String, String>,
) -> Result<String, String> {
    let exact = describe(name);
    if exact.is_ok() {
        return exact;
    }
    let matched: Vec<String> = names
        .into_iter()
        .filter(|n| n.starts_with(name))
        .filter_map(|n| describe(n).ok())
        .map(|text| text + "\n")
        .collect();
    if matched.is_empty() {
        exact
    } else {
        Ok(matched.concat())
    }
}

pub fn describe_nodes(m: &Moment<'_>) -> String {
    m.sim
        .store()
        .nodes
        .keys()
        .filter_map(|name| describe_node(m, name).ok())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `kubectl describe node NAME` (`describeNode`, kubectl v1.35) at the simulator's current
/// moment: labels, taints (`node.kubernetes.io/unschedulable:NoSchedule` when cordoned, the
/// `unreachable` taints once its kubelet stopped posting status), the four kubelet conditions
/// (Unknown, `NodeStatusUnknown`, once it stopped), addresses, capacity and allocatable (equal
/// here), the node info of [`NODE_INFO`], its pod CIDR, the non-terminated pods with their
/// requests and limits as a share of allocatable, the allocated totals and the node's events.
/// The node's Lease is as its kubelet keeps it: held by the node, renewed every 10 s while the
/// kubelet runs, and last renewed when it stopped.
///
/// # Errors
/// `Error from server (NotFound): nodes "<name>" not found`.
pub fn describe_node(m: &Moment<'_>, name: &str) -> Result<String, String> {
    let (sim, steps, now) = (m.sim, m.steps, m.now);
    let Some(n) = sim.store().nodes.get(name) else {
        return Err(not_found("nodes", name));
    };
    let mut o = String::new();
    o.push_str(&format!("Name:\t{name}\n"));
    o.push_str("Roles:\t<none>\n");
    describe_labels(&mut o, "Labels", &n.metadata.labels);
    describe_annotations(&mut o, "Annotations", &n.metadata.annotations);
    o.push_str(&format!(
        "CreationTimestamp:\t{}\n",
        n.metadata.creation_timestamp.rfc1123z()
    ));
    // `printTaintsMultilineWithIndent` orders taints by `effect,key` (`NoExecute` before
    // `NoSchedule`, and `unreachable` before `unschedulable`).
    let mut taints = n.taints();
    order::sort_by(&mut taints, |a, b| {
        (a.effect.as_str(), a.key.as_str()).cmp(&(b.effect.as_str(), b.key.as_str()))
    });
    let taints: Vec<String> = taints.iter().map(crate::sim::api::Taint::text).collect();
    describe_multiline(&mut o, "Taints", "\t", taints);
    o.push_str(&format!("Unschedulable:\t{}\n", n.spec.unschedulable));
    // The kubelet's node lease (`kube-node-lease/<node>`): it never sets acquireTime, and renews
    // every `nodeLeaseRenewIntervalFraction` (0.25) of the 40 s lease from its start.
    const LEASE_RENEW_MS: u64 = 10_000;
    let kubelet = sim.store().kubelet_nodes.get(name);
    // The kubelet's runs start with the node, or when it last started again.
    let started = kubelet
        .and_then(|r| r.started_at)
        .unwrap_or(n.metadata.creation_timestamp)
        .as_millis();
    let down_since = kubelet.and_then(|r| r.down_since).map(|t| t.min(now));
    // The last renewal on the grid before now; a kubelet that stopped renewed its lease at the
    // moment it fell silent, as the node controller's grace period counts from then.
    let renewed = down_since.unwrap_or_else(|| {
        Time::from_millis(
            started + now.as_millis().saturating_sub(started) / LEASE_RENEW_MS * LEASE_RENEW_MS,
        )
    });
    o.push_str(&format!(
        "Lease:\n  HolderIdentity:\t{name}\n  AcquireTime:\t<unset>\n  RenewTime:\t{}\n",
        renewed.rfc1123z()
    ));
    // The conditions change when the node controller marks the node NotReady (to Unknown) and
    // when a kubelet that started again posts them (back to healthy, with `NodeReady`).
    let last_change = |reason: EventReason| {
        steps
            .iter()
            .filter(|s| {
                s.events
                    .iter()
                    .any(|e| e.reason == reason && e.involved_object.name == name)
            })
            .map(|s| s.time.truncate_to_secs())
            .next_back()
    };
    let not_ready_at = last_change(EventReason::NodeNotReady);
    let since_healthy = last_change(EventReason::NodeReady)
        .unwrap_or(n.metadata.creation_timestamp)
        .rfc1123z();
    // The kubelet reports its status when it starts and then every five minutes
    // (`nodeStatusReportFrequency`) while nothing changes, so the last heartbeat is the last
    // report before now, or before it fell silent.
    const REPORT_MS: u64 = 300_000;
    let last_seen = down_since.unwrap_or(now).as_millis();
    let heartbeat =
        Time::from_millis(started + last_seen.saturating_sub(started) / REPORT_MS * REPORT_MS);
    let heartbeat = heartbeat.rfc1123z();
    o.push_str(
        "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n",
    );
    o.push_str("  ----\t------\t-----------------\t------------------\t------\t-------\n");
    let healthy = [
        (
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
        ),
        (
            "DiskPressure",
            "False",
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
        ),
        (
            "PIDPressure",
            "False",
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
        ),
        (
            "Ready",
            "True",
            "KubeletReady",
            "kubelet is posting ready status",
        ),
    ];
    for (kind, status, reason, message) in healthy {
        let (status, reason, message, changed) = match (n.status.ready, not_ready_at) {
            (false, Some(t)) => (
                "Unknown",
                "NodeStatusUnknown",
                "Kubelet stopped posting node status.",
                t.rfc1123z(),
            ),
            _ => (status, reason, message, since_healthy.clone()),
        };
        o.push_str(&format!(
            "  {kind} \t{status} \t{heartbeat} \t{changed} \t{reason} \t{message}\n"
        ));
    }
    o.push_str(&format!(
        "Addresses:\n  InternalIP:\t{}\n  Hostname:\t{name}\n",
        node_ip(n)
    ));
    let cpu = format_cpu(n.status.allocatable_milli_cpu);
    let memory = format_mem(n.status.allocatable_memory);
    // A resource list prints in name order; the kubelet also reports its disk and the two
    // huge page sizes (none reserved).
    for title in ["Capacity", "Allocatable"] {
        o.push_str(&format!(
            "{title}:\n  cpu:\t{cpu}\n  ephemeral-storage:\t{EPHEMERAL_STORAGE_KI}Ki\n  hugepages-1Gi:\t0\n  hugepages-2Mi:\t0\n  memory:\t{memory}\n  pods:\t{}\n",
            n.status.allocatable_pods
        ));
    }
    o.push_str("System Info:\n");
    let [machine, system, boot] = node_ids(name);
    o.push_str(&format!(
        "  Machine ID:\t{machine}\n  System UUID:\t{system}\n  Boot ID:\t{boot}\n"
    ));
    o.push_str(&format!(
        "  Kernel Version:\t{}\n",
        NODE_INFO.kernel_version
    ));
    o.push_str(&format!("  OS Image:\t{}\n", NODE_INFO.os_image));
    o.push_str("  Operating System:\tlinux\n  Architecture:\tamd64\n");
    o.push_str(&format!(
        "  Container Runtime Version:\t{}\n",
        NODE_INFO.container_runtime
    ));
    o.push_str(&format!(
        "  Kubelet Version:\t{}\n",
        NODE_INFO.kubelet_version
    ));
    o.push_str("  Kube-Proxy Version:\t\n");
    let cidr = format!("10.244.{}.0/24", n.spec.pod_cidr_index);
    o.push_str(&format!("PodCIDR:\t{cidr}\nPodCIDRs:\t{cidr}\n"));
    // `describeNodeResource`: the pods bound here that have not finished, by name.
    let pods: Vec<&Pod> = sim
        .store()
        .pods
        .values()
        .map(|p| &**p)
        .filter(|p| {
            p.node_name == name && !matches!(p.status.phase, PodPhase::Succeeded | PodPhase::Failed)
        })
        .collect();
    let (alloc_cpu, alloc_mem) = (
        n.status.allocatable_milli_cpu,
        n.status.allocatable_memory.saturating_mul(1000),
    );
    o.push_str(&format!(
        "Non-terminated Pods:\t({} in total)\n",
        pods.len()
    ));
    o.push_str(
        "  Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n",
    );
    o.push_str(
        "  ---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n",
    );
    let of = pods_quantity;
    fn requests(c: &Container) -> &BTreeMap<String, serde_json::Value> {
        &c.resources.requests
    }
    fn limits(c: &Container) -> &BTreeMap<String, serde_json::Value> {
        &c.resources.limits
    }
    for p in &pods {
        let one = [*p];
        o.push_str(&format!(
            "  default\t{}\t\t{}\t{}\t{}\t{}\t{}\n",
            p.metadata.name,
            with_fraction(of(&one, requests, "cpu"), alloc_cpu),
            with_fraction(of(&one, limits, "cpu"), alloc_cpu),
            with_fraction(of(&one, requests, "memory"), alloc_mem),
            with_fraction(of(&one, limits, "memory"), alloc_mem),
            since(now, p.metadata.creation_timestamp)
        ));
    }
    o.push_str(
        "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n",
    );
    o.push_str("  Resource\tRequests\tLimits\n  --------\t--------\t------\n");
    // `describeNodeResource`: cpu, memory and ephemeral-storage, then the huge page sizes in
    // name order.
    let alloc_storage = (EPHEMERAL_STORAGE_KI * 1024).saturating_mul(1000);
    for (resource, allocatable) in [
        ("cpu", alloc_cpu),
        ("memory", alloc_mem),
        ("ephemeral-storage", alloc_storage),
        ("hugepages-1Gi", 0),
        ("hugepages-2Mi", 0),
    ] {
        o.push_str(&format!(
            "  {resource}\t{}\t{}\n",
            with_fraction(of(&pods, requests, resource), allocatable),
            with_fraction(of(&pods, limits, resource), allocatable)
        ));
    }
    describe_events_of(&mut o, steps, "Node", name, now);
    Ok(tabwrite(&o, 0, 2))
}

fn join_containers<'a>(it: impl Iterator<Item = &'a str>) -> String {
    it.collect::<Vec<_>>().join(",")
}

/// `kubectl get rs`: `NAME DESIRED CURRENT READY AGE` (spec.replicas, status.replicas,
/// status.readyReplicas); `-o wide` adds `CONTAINERS IMAGES SELECTOR`.
pub fn get_replica_sets(m: &Moment<'_>, prefix: &str, wide: bool) -> String {
    aligned(&replica_sets_table(m, prefix, wide))
}

/// The rows of [`get_replica_sets`] before they are aligned: a header line, then one line per object,
/// its first cell the object's (prefixed) name, cells separated by tabs.
fn replica_sets_table(m: &Moment<'_>, prefix: &str, wide: bool) -> String {
    let (sim, now) = (m.sim, m.now);
    let mut t = String::new();
    if sim.store().replica_sets.is_empty() {
        return t;
    }
    t.push_str("NAME\tDESIRED\tCURRENT\tREADY\tAGE");
    if wide {
        t.push_str("\tCONTAINERS\tIMAGES\tSELECTOR");
    }
    t.push('\n');
    for rs in sim.store().replica_sets.values() {
        t.push_str(&format!(
            "{prefix}{}\t{}\t{}\t{}\t{}",
            rs.metadata.name,
            rs.spec.replicas,
            rs.status.replicas,
            rs.status.ready_replicas,
            since(now, rs.metadata.creation_timestamp)
        ));
        if wide {
            let spec = &rs.spec.template.spec;
            t.push_str(&format!(
                "\t{}\t{}\t{}",
                join_containers(spec.containers.iter().map(|c| c.name.as_str())),
                join_containers(spec.containers.iter().map(|c| c.image.as_str())),
                rs.spec.selector.to_selector_string()
            ));
        }
        t.push('\n');
    }
    t
}

/// The RESTARTS cell of `printPod`: the restart count summed over containers, with
/// `(<age> ago)` of the latest `lastState.terminated.finishedAt` once it is above zero. While
/// the pod initializes the init containers' restarts are what counts; once it has, the
/// sidecars' and the app containers'.
///
/// Example: three restarts, the last exit 45 s ago → `3 (45s ago)`.
pub fn restarts_cell(pod: &Pod, now: Time) -> String {
    let walk = pod.init_walk();
    let (mut restarts, mut last) = (walk.restarts, walk.last_restart);
    if walk.status.is_none() || pod.is_initialized() {
        restarts = walk.sidecar_restarts;
        last = walk.last_sidecar_restart;
        for c in &pod.status.container_statuses {
            restarts += c.restart_count;
            if let Some(ContainerState::Terminated { finished_at, .. }) = &c.last_state {
                last = last.max(Some(*finished_at));
            }
        }
    }
    match last {
        Some(t) if restarts > 0 => format!("{restarts} ({} ago)", since(now, t)),
        _ => restarts.to_string(),
    }
}

/// The READY cell of `printPod`: ready containers over containers, where the sidecars count
/// beside the app containers (a sidecar once started and ready, among those `printPod` walks).
pub fn ready_cell(pod: &Pod) -> String {
    let ready = pod.init_walk().ready_sidecars
        + pod
            .status
            .container_statuses
            .iter()
            .filter(|c| c.ready)
            .count();
    let total = pod
        .spec
        .init_containers
        .iter()
        .filter(|c| c.is_restartable())
        .count()
        + pod.spec.containers.len();
    format!("{ready}/{total}")
}

/// `kubectl get pods`: `NAME READY STATUS RESTARTS AGE`; `-o wide` adds `IP NODE NOMINATED NODE
/// READINESS GATES`. STATUS is [`Pod::kubectl_status`].
pub fn get_pods(m: &Moment<'_>, prefix: &str, wide: bool) -> String {
    aligned(&pods_table(m, prefix, wide))
}

/// The rows of [`get_pods`] before they are aligned: a header line, then one line per object,
/// its first cell the object's (prefixed) name, cells separated by tabs.
fn pods_table(m: &Moment<'_>, prefix: &str, wide: bool) -> String {
    let (sim, now) = (m.sim, m.now);
    let mut t = String::new();
    if sim.store().pods.is_empty() {
        return t;
    }
    t.push_str("NAME\tREADY\tSTATUS\tRESTARTS\tAGE");
    if wide {
        t.push_str("\tIP\tNODE\tNOMINATED NODE\tREADINESS GATES");
    }
    t.push('\n');
    for pod in sim.store().pods.values() {
        t.push_str(&format!(
            "{prefix}{}\t{}\t{}\t{}\t{}",
            pod.metadata.name,
            ready_cell(pod),
            pod.kubectl_status(),
            restarts_cell(pod, now),
            since(now, pod.metadata.creation_timestamp)
        ));
        if wide {
            let node = if pod.node_name.is_empty() {
                "<none>"
            } else {
                pod.node_name.as_str()
            };
            // `<true gates>/<gates>`; no condition the simulator knows can satisfy a gate.
            let gates = pod.spec.readiness_gates().len();
            let gates = if gates == 0 {
                "<none>".to_string()
            } else {
                format!("0/{gates}")
            };
            t.push_str(&format!(
                "\t{}\t{node}\t<none>\t{gates}",
                pod.status.pod_ip.as_deref().unwrap_or("<none>")
            ));
        }
        t.push('\n');
    }
    t
}

/// One event as the API server holds it after the recorder's aggregation: identical events
/// (same source, object, type, reason and message) are one object with a count and first and
/// last timestamps (the event correlator's `EventAggregator`/`eventLogger`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRecord {
    pub event: Event,
    /// When the API server received the event first, to the millisecond (its name's time).
    pub created: Time,
    pub first_timestamp: Time,
    pub last_timestamp: Time,
    pub count: u32,
    /// For an events.k8s.io record (the scheduler's), its series' last observed time or else
    /// its eventTime, to the millisecond: that API keeps MicroTime where core/v1 keeps whole
    /// seconds, and `kubectl events` sorts and ages by it.
    pub micro_last: Option<Time>,
}

/// An event's object name as its event name begins (`<object>.`), for ordering: the `.` sorts
/// after `-`, so a pod's events (`web-5d9f-x7k2p.…`) come before its ReplicaSet's
/// (`web-5d9f.…`).
#[derive(Clone, Copy, PartialEq, Eq)]
struct EventName<'a>(&'a str);

impl Ord for EventName<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let dot = std::iter::once(b'.');
        self.0
            .bytes()
            .chain(dot.clone())
            .cmp(other.0.bytes().chain(dot))
    }
}

impl PartialOrd for EventName<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Sorts records as `kubectl events` lists them: by when each was last seen (an events.k8s.io
/// record's last observation to the millisecond, else its whole-second lastTimestamp), and
/// among those seen at the same moment in the API's list order, by name (`<object>.<hex of
/// its creation>`): kubectl's insertion sort keeps that order for a dozen events or fewer,
/// and past that its order among ties is not fixed at all.
pub fn sort_by_last_seen(records: &mut Vec<EventRecord>) {
    order::sort_by(records, |a, b| {
        let seen = |r: &EventRecord| r.micro_last.unwrap_or(r.last_timestamp);
        seen(a)
            .cmp(&seen(b))
            .then_with(|| {
                EventName(&a.event.involved_object.name)
                    .cmp(&EventName(&b.event.involved_object.name))
            })
            .then_with(|| a.created.cmp(&b.created))
    });
}

/// The events of a trace, folded the way the event recorder folds repeats, in the order they
/// were first emitted. Timestamps are truncated to whole seconds, as on the wire.
pub fn event_records(steps: &[Step], now: Time) -> Vec<EventRecord> {
    let mut fold = EventFold::default();
    fold.extend(steps);
    fold.at(steps.len(), usize::MAX, now).1
}

/// The identity under which the event recorder folds repeats: source (and the run of its
/// process), object, field path, type, reason and message. A combined event ([`recorder`]) is one record per source, object,
/// type and reason whatever its wording, which follows the latest event.
type EventKey = (
    std::borrow::Cow<'static, str>,
    u32,
    String,
    String,
    &'static str,
    &'static str,
    String,
);

fn event_key(e: &Event) -> EventKey {
    let combined = e.message.starts_with(recorder::COMBINED_PREFIX);
    (
        e.source.clone(),
        e.run,
        e.involved_object.kubectl_object(),
        match &e.involved_object.field_path {
            Some(fp) if !combined => fp.clone(),
            _ => String::new(),
        },
        e.type_.as_str(),
        e.reason.as_str(),
        if combined {
            recorder::COMBINED_PREFIX.to_string()
        } else {
            e.message.clone()
        },
    )
}

/// One record of an [`EventFold`]: the event as first emitted, its occurrences, and for a
/// combined event the wording of each.
#[derive(Clone, Debug)]
struct FoldedEvent {
    event: Event,
    occurrences: Vec<Occurrence>,
    /// The step of the first occurrence the API server received: records are kept in this
    /// order, so the records known at a position are a prefix.
    first_sent: usize,
}

/// One emission of a folded event: its (0-based) step and time, whether the recorder's spam
/// filter let it through, and for a combined event its wording.
#[derive(Clone, Debug)]
struct Occurrence {
    step: usize,
    /// The step's time, truncated to whole seconds as on the wire.
    time: Time,
    /// The step's time to the millisecond.
    exact: Time,
    sent: bool,
    wording: Option<String>,
}

/// The events of a growing trace folded as [`event_records`] folds them, kept up to date one
/// step at a time, so that the fold as of any earlier position is read without going over the
/// whole trace again: each record remembers the steps it occurred at.
///
/// The fold follows the recorder's event cache: every emission counts, but the API server only
/// hears of the ones the spam filter let through, so a record appears with its first such one
/// and its count and last time are those of the latest one sent.
#[derive(Clone, Debug, Default)]
pub struct EventFold {
    folded: usize,
    /// Records in the order the API server first received them.
    records: Vec<FoldedEvent>,
    index: BTreeMap<EventKey, usize>,
    /// Emissions of events the API server has not received any of yet.
    unsent: BTreeMap<EventKey, (Event, Vec<Occurrence>)>,
}

impl EventFold {
    /// Folds the steps of `steps` not folded yet. `steps` must extend the steps folded before.
    pub fn extend(&mut self, steps: &[Step]) {
        for (i, step) in steps.iter().enumerate().skip(self.folded) {
            let time = step.time.truncate_to_secs();
            for e in &step.events {
                let key = event_key(e);
                let occurrence = Occurrence {
                    step: i,
                    time,
                    exact: step.time,
                    sent: !e.dropped,
                    wording: e
                        .message
                        .starts_with(recorder::COMBINED_PREFIX)
                        .then(|| e.message.clone()),
                };
                if let Some(&r) = self.index.get(&key) {
                    self.records[r].occurrences.push(occurrence);
                    continue;
                }
                let (event, mut occurrences) = self
                    .unsent
                    .remove(&key)
                    .unwrap_or_else(|| (e.clone(), Vec::new()));
                let sent = occurrence.sent;
                occurrences.push(occurrence);
                if sent {
                    self.index.insert(key, self.records.len());
                    self.records.push(FoldedEvent {
                        event,
                        occurrences,
                        first_sent: i,
                    });
                } else {
                    self.unsent.insert(key, (event, occurrences));
                }
            }
        }
        self.folded = self.folded.max(steps.len());
    }

    /// How many steps are folded.
    pub fn folded(&self) -> usize {
        self.folded
    }

    /// The records as [`event_records`] gives them for the first `position` steps, looked at
    /// `now`, keeping only the last `max` of them, and how many earlier ones were left out.
    pub fn at(&self, position: usize, max: usize, now: Time) -> (usize, Vec<EventRecord>) {
        let seen = self.records.partition_point(|r| r.first_sent < position);
        let hidden = seen.saturating_sub(max);
        let mut records = Vec::with_capacity(seen - hidden);
        for r in &self.records[hidden..seen] {
            let n = r.occurrences.partition_point(|o| o.step < position);
            if r.event.source == scheduler::COMPONENT {
                let mut writes = Vec::new();
                series_writes(&r.occurrences[..n], now, &mut writes);
                records.extend(
                    writes
                        .into_iter()
                        .filter(|w| !expired(w.last, now))
                        .map(|w| w.record(&r.event)),
                );
                continue;
            }
            if Self::last_sent(r, n).is_some_and(|o| !expired(o.exact, now)) {
                records.extend(Self::core_record(r, n));
            }
        }
        (hidden, records)
    }

    /// The last `max` records for the first `position` steps as `kubectl events` lists them,
    /// looked at `now`: by the time each was last observed (`eventTime` in `SortableEvents`:
    /// an events.k8s.io series' last observed time to the millisecond, else the whole-second
    /// lastTimestamp), oldest first, ties in name order (the API's list order, which kubectl's
    /// sort keeps for a dozen events; past that it is not stable, and this one is, so the order
    /// is always the same); and how many earlier ones were left out. Unlike the API's name order, an event that just
    /// repeated comes last, where a log's reader looks.
    ///
    /// This runs on every step in the browser, over every record of the run (thousands at a
    /// thousand pods): only small keys are sorted, and only the records shown are built.
    pub fn latest(&self, position: usize, max: usize, now: Time) -> (usize, Vec<EventRecord>) {
        let seen = self.records.partition_point(|r| r.first_sent < position);
        // (time, record, write of an events.k8s.io record or u32::MAX for a core record, the
        // occurrences counted). The shown ones are put in kubectl's order below, with ties in
        // time in the API's name order ([`sort_by_last_seen`]).
        let mut keys: Vec<(Time, u32, u32, u32)> = Vec::with_capacity(seen);
        let mut writes = Vec::new();
        for (i, r) in self.records[..seen].iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            let n = r.occurrences.partition_point(|o| o.step < position);
            let n32 = u32::try_from(n).unwrap_or(u32::MAX);
            if r.event.source == scheduler::COMPONENT {
                writes.clear();
                series_writes(&r.occurrences[..n], now, &mut writes);
                for (w, write) in writes.iter().enumerate() {
                    let w = u32::try_from(w).unwrap_or(u32::MAX - 1);
                    if !expired(write.last, now) {
                        keys.push((write.last, i, w, n32));
                    }
                }
            } else if let Some(last) = Self::last_sent(r, n)
                && !expired(last.exact, now)
            {
                keys.push((last.time, i, u32::MAX, n32));
            }
        }
        let hidden = keys.len().saturating_sub(max);
        let name = |k: &(Time, u32, u32, u32)| {
            EventName(
                self.records
                    .get(k.1 as usize)
                    .map_or("", |r| r.event.involved_object.name.as_str()),
            )
        };
        // kubectl's order: by time, ties in name order (compared only when times tie), then
        // by record.
        let kubectl_order = |a: &(Time, u32, u32, u32), b: &(Time, u32, u32, u32)| {
            a.0.cmp(&b.0)
                .then_with(|| {
                    if a.1 == b.1 {
                        std::cmp::Ordering::Equal
                    } else {
                        name(a).cmp(&name(b))
                    }
                })
                .then_with(|| a.cmp(b))
        };
        // The window is cut by time first, cheaply; of the keys at the cut's time, names
        // decide which the window keeps, and only those are compared by name.
        let mut shown = if hidden > 0 {
            keys.select_nth_unstable(hidden);
            let cut = keys[hidden].0;
            let (mut ties, mut later): (Vec<_>, Vec<_>) = keys
                .into_iter()
                .filter(|k| k.0 >= cut)
                .partition(|k| k.0 == cut);
            let room = max.saturating_sub(later.len());
            let dropped = ties.len().saturating_sub(room);
            if dropped == ties.len() {
                ties.clear();
            } else if dropped > 0 {
                ties.select_nth_unstable_by(dropped, kubectl_order);
                ties.drain(..dropped);
            }
            later.extend(ties);
            later
        } else {
            keys
        };
        order::sort_by(&mut shown, kubectl_order);
        let records = shown
            .iter()
            .filter_map(|&(_, i, w, n)| {
                let r = self.records.get(i as usize)?;
                let occ = r.occurrences.get(..n as usize)?;
                if w == u32::MAX {
                    return Self::core_record(r, occ.len());
                }
                writes.clear();
                series_writes(occ, now, &mut writes);
                writes.get(w as usize).map(|write| write.record(&r.event))
            })
            .collect();
        (hidden, records)
    }

    /// The latest of the first `n` emissions of `r` that the API server received: its last
    /// write of the record.
    fn last_sent(r: &FoldedEvent, n: usize) -> Option<&Occurrence> {
        r.occurrences[..n].iter().rev().find(|o| o.sent)
    }

    /// A core/v1 record as the API server holds it after the first `n` occurrences.
    fn core_record(r: &FoldedEvent, n: usize) -> Option<EventRecord> {
        let occ = &r.occurrences;
        // The API server's copy is as the latest emission it received left it.
        let last = occ[..n].iter().rposition(|o| o.sent)?;
        let mut event = r.event.clone();
        if let Some(latest) = &occ[last].wording {
            event.message.clone_from(latest);
        }
        event.dropped = false;
        let created = occ[..n]
            .iter()
            .find(|o| o.sent)
            .map_or(occ[0].exact, |o| o.exact);
        Some(EventRecord {
            event,
            created,
            first_timestamp: occ[0].time,
            last_timestamp: occ[last].time,
            count: u32::try_from(last + 1).unwrap_or(u32::MAX),
            micro_last: None,
        })
    }
}

/// How long the API server keeps an event after its last write: kube-apiserver's `--event-ttl`,
/// one hour by default. Events are stored with a lease of this length, renewed by every update,
/// so an event that stops repeating disappears from `kubectl get events`, `kubectl events` and
/// `kubectl describe` an hour after it was last seen.
pub const EVENT_TTL_MS: u64 = 3_600_000;

/// Whether an event last written at `last_write` has outlived [`EVENT_TTL_MS`] by `now`.
fn expired(last_write: Time, now: Time) -> bool {
    now.millis_since(last_write) >= EVENT_TTL_MS
}

/// client-go `tools/events`' `finishTime`: a series idle this long is written one last time and
/// forgotten, as is a single event this old.
const SERIES_FINISH_MS: u64 = 6 * 60_000;
/// `refreshTime`: every series still remembered is written again this often.
const SERIES_REFRESH_MS: u64 = 30 * 60_000;

/// The writes one isomorphic event of the events.k8s.io API (the scheduler's) has had in the
/// API server by `now` (client-go `tools/events`, `recordToSink`), each the event object it
/// left, without the event itself: the first occurrence is written as it is; the second turns
/// it into a series of count 2, written at once; later ones only count in the recorder's cache,
/// which is written when the series has been idle for six minutes (then forgotten: a later
/// repeat starts a new event) and every thirty minutes. Both run on tickers from the
/// scheduler's start, with the scenario. So `describe pod` of a pod that fails to schedule every
/// five minutes shows `(x2 over …)` for half an hour. The browser's event log sorts by these
/// before it builds the few records it shows.
fn series_writes(occurrences: &[Occurrence], now: Time, out: &mut Vec<SeriesWrite>) {
    let mut current: Option<SeriesObject> = None;
    let mut tickers = SeriesTickers::default();
    for o in occurrences {
        tickers.run_until(o.exact, &mut current, out);
        match &mut current {
            Some(c) => match &mut c.series {
                Some((count, last)) => {
                    *count += 1;
                    *last = o.exact;
                }
                None => {
                    c.series = Some((2, o.exact));
                    c.flush();
                }
            },
            None => {
                current = Some(SeriesObject {
                    written: SeriesWrite {
                        created: o.exact,
                        last: o.exact,
                        count: 1,
                    },
                    series: None,
                });
            }
        }
    }
    tickers.run_until(now, &mut current, out);
    out.extend(current.map(|c| c.written));
}

/// One events.k8s.io event object as last written: created (its eventTime) and last observed,
/// to the millisecond, and its count.
#[derive(Clone, Copy, Debug)]
struct SeriesWrite {
    created: Time,
    last: Time,
    count: u32,
}

impl SeriesWrite {
    /// The record of `event` as this write left it, in core/v1's whole seconds beside the
    /// exact last observed time.
    fn record(self, event: &Event) -> EventRecord {
        EventRecord {
            event: Event {
                dropped: false,
                run: 0,
                ..event.clone()
            },
            created: self.created,
            first_timestamp: self.created.truncate_to_secs(),
            last_timestamp: self.last.truncate_to_secs(),
            count: self.count,
            micro_last: Some(self.last),
        }
    }
}

/// One event object of an events.k8s.io series: the object as last written, and the recorder
/// cache's copy of the series.
struct SeriesObject {
    written: SeriesWrite,
    /// The series' count and last observed time in the cache (`None` before a second
    /// occurrence).
    series: Option<(u32, Time)>,
}

impl SeriesObject {
    /// Writes the cache's copy of the series to the API server.
    fn flush(&mut self) {
        if let Some((count, last)) = self.series {
            self.written.count = count;
            self.written.last = last;
        }
    }
}

/// The recorder's two tickers, from the scheduler's start: the finish of idle series and the
/// refresh of all of them.
#[derive(Default)]
struct SeriesTickers {
    next_finish: u64,
    next_refresh: u64,
}

impl SeriesTickers {
    /// Runs the ticks up to and including `until`: a finish writes and forgets an object idle
    /// for longer than six minutes (its record goes to `out`), a refresh writes the one kept.
    fn run_until(
        &mut self,
        until: Time,
        current: &mut Option<SeriesObject>,
        out: &mut Vec<SeriesWrite>,
    ) {
        loop {
            let tick = self.next_finish.min(self.next_refresh);
            if tick > until.as_millis() {
                return;
            }
            if tick == self.next_finish {
                self.next_finish += SERIES_FINISH_MS;
                if let Some(c) = current {
                    let idle_since = c.series.map_or(c.written.created, |(_, last)| last);
                    if idle_since.as_millis() + SERIES_FINISH_MS < tick {
                        c.flush();
                        out.extend(current.take().map(|c| c.written));
                    }
                }
            } else {
                self.next_refresh += SERIES_REFRESH_MS;
                if let Some(c) = current {
                    c.flush();
                }
            }
        }
    }
}

/// `kubectl get events`: `LAST SEEN TYPE REASON OBJECT MESSAGE`. The API server lists events
/// by name, `<object name>.<timestamp hex>`, so they come grouped by object, in time order
/// within an object. Events without a field-path prefix: `kubectl get events` shows the bare
/// message (only `describe` adds `spec.containers{web}: `).
pub fn get_events(m: &Moment<'_>) -> String {
    get_events_sorted(m, None, false)
}

/// A field `kubectl get events --sort-by` sorts on, among those tutorials use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventSortBy {
    /// `.lastTimestamp`.
    LastTimestamp,
    /// `.firstTimestamp`, or `.metadata.creationTimestamp` (an event object is created at its
    /// first occurrence).
    FirstTimestamp,
    /// `.count`.
    Count,
}

impl EventSortBy {
    /// Parses a `--sort-by` JSONPath as kubectl relaxes it (`.lastTimestamp`,
    /// `{.lastTimestamp}` or `lastTimestamp`).
    pub fn parse(path: &str) -> Option<EventSortBy> {
        let path = path
            .strip_prefix('{')
            .and_then(|p| p.strip_suffix('}'))
            .unwrap_or(path);
        match path.strip_prefix('.').unwrap_or(path) {
            "lastTimestamp" => Some(EventSortBy::LastTimestamp),
            "firstTimestamp" | "metadata.creationTimestamp" => Some(EventSortBy::FirstTimestamp),
            "count" => Some(EventSortBy::Count),
            _ => None,
        }
    }
}

/// `kubectl get events [--sort-by=<field>] [-o wide]`: the events in the API server's order (by
/// name), then, with a field, stably sorted on it, ascending, as kubectl's sorting printer does.
/// Wide adds `printEvent`'s SUBOBJECT (the field path), SOURCE (`component, host`), FIRST SEEN,
/// COUNT and NAME (`<object>.<creation time in hexadecimal nanoseconds>`) columns.
pub fn get_events_sorted(m: &Moment<'_>, sort_by: Option<EventSortBy>, wide: bool) -> String {
    let now = m.now;
    let mut records = event_records(m.steps, now);
    if records.is_empty() {
        return String::new();
    }
    order::sort_by(&mut records, |a, b| {
        let ka = format!("{}.", a.event.involved_object.name);
        let kb = format!("{}.", b.event.involved_object.name);
        ka.cmp(&kb).then(a.first_timestamp.cmp(&b.first_timestamp))
    });
    // The scheduler records through the events.k8s.io API: in the core/v1 view kubectl sorts,
    // its events have no firstTimestamp, lastTimestamp or count, and kubectl's sorter puts a
    // null before any value (`isLess`). So they come first, whatever their time.
    let legacy = |r: &EventRecord| r.event.source != scheduler::COMPONENT;
    match sort_by {
        Some(EventSortBy::LastTimestamp) => {
            order::sort_by_key(&mut records, |r| legacy(r).then_some(r.last_timestamp))
        }
        Some(EventSortBy::FirstTimestamp) => {
            order::sort_by_key(&mut records, |r| legacy(r).then_some(r.first_timestamp))
        }
        Some(EventSortBy::Count) => {
            order::sort_by_key(&mut records, |r| legacy(r).then_some(r.count))
        }
        None => {}
    }
    let mut t = String::from(if wide {
        "LAST SEEN\tTYPE\tREASON\tOBJECT\tSUBOBJECT\tSOURCE\tMESSAGE\tFIRST SEEN\tCOUNT\tNAME\n"
    } else {
        "LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE\n"
    });
    // Only the wide table shows the names.
    let names = if wide {
        event_names(&records)
    } else {
        Vec::new()
    };
    for (i, r) in records.iter().enumerate() {
        let e = &r.event;
        // `printEvent`: an events.k8s.io record has no first or last timestamp, so its ages come
        // from its eventTime and its series' last observation, to the millisecond.
        let (first, last) = match r.micro_last {
            Some(observed) => {
                let first = since(now, r.created);
                let last = if r.count > 1 {
                    since(now, observed)
                } else {
                    first.clone()
                };
                (first, last)
            }
            None => (since(now, r.first_timestamp), since(now, r.last_timestamp)),
        };
        let (kind, reason, object) = (
            e.type_.as_str(),
            e.reason.as_str(),
            e.involved_object.kubectl_object(),
        );
        let message = e.message.trim();
        if wide {
            // `formatEventSource` falls back to the reporting controller and instance when the
            // core source is empty, as it is for the scheduler's events.k8s.io records; the
            // legacy recorders fill the source (`kubelet, <node>`, `deployment-controller`).
            let source = if legacy(r) {
                e.source.to_string()
            } else {
                format!("{}, {}", e.source, scheduler::REPORTING_INSTANCE)
            };
            t.push_str(&format!(
                "{last}\t{kind}\t{reason}\t{object}\t{}\t{source}\t{message}\t{}\t{}\t{}\n",
                e.involved_object.field_path.as_deref().unwrap_or(""),
                first,
                r.count,
                names.get(i).map_or("", String::as_str)
            ));
        } else {
            t.push_str(&format!("{last}\t{kind}\t{reason}\t{object}\t{message}\n"));
        }
    }
    tabwrite(&t, 6, 3)
}

/// `kubectl events`' LAST SEEN cell (`getInterval` in its event printer): the age of the
/// first occurrence, or for a repeated event the age of the last with `(x<count> over <age of
/// the first>)`.
pub fn events_interval(r: &EventRecord, now: Time) -> String {
    // An events.k8s.io record's times are MicroTime (`translateMicroTimestampSince`), a core
    // one's whole seconds.
    let (first, last) = match r.micro_last {
        Some(last) => (r.created, last),
        None => (r.first_timestamp, r.last_timestamp),
    };
    if r.count > 1 {
        format!(
            "{} (x{} over {})",
            since(now, last),
            r.count,
            since(now, first)
        )
    } else {
        since(now, first)
    }
}

/// `kubectl events`' OBJECT cell: the involved object's kind as the API names it, then its
/// name (`Pod/web-5d9f-x7k2p`), where `kubectl get events` writes the kind in lower case.
pub fn events_object(r: &EventRecord) -> String {
    [
        &*r.event.involved_object.kind,
        "/",
        &r.event.involved_object.name,
    ]
    .concat()
}

/// `kubectl events` (no flags): every event by the time it was last seen, oldest first
/// (`SortableEvents`), printed as `LAST SEEN TYPE REASON OBJECT MESSAGE` by its own printer.
/// With none, kubectl writes `No events found in default namespace.` to stderr: `Err`.
pub fn events(m: &Moment<'_>) -> Result<String, String> {
    let mut fold = EventFold::default();
    fold.extend(m.steps);
    let (_, records) = fold.latest(m.steps.len(), usize::MAX, m.now);
    if records.is_empty() {
        return Err(format!(
            "No events found in {} namespace.",
            crate::sim::api::DEFAULT_NAMESPACE
        ));
    }
    let mut t = String::from("LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE\n");
    for r in &records {
        t.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\n",
            events_interval(r, m.now),
            r.event.type_.as_str(),
            r.event.reason.as_str(),
            events_object(r),
            r.event.message.trim()
        ));
    }
    Ok(tabwrite(&t, 6, 3))
}

/// Simulated time 0 (2026-01-01T00:00:00Z) in Unix nanoseconds.
const EPOCH_UNIX_NANOS: u64 = 1_767_225_600 * 1_000_000_000;

/// Each record's event name, as the recorder names a new event: `<object name>.<%x of the
/// creation time in Unix nanoseconds>`. The simulated clock has milliseconds, so events of one
/// object created in the same millisecond are a nanosecond apart, in the order created.
fn event_names(records: &[EventRecord]) -> Vec<String> {
    let mut taken: BTreeMap<(&str, Time), u64> = BTreeMap::new();
    records
        .iter()
        .map(|r| {
            let object = r.event.involved_object.name.as_str();
            let nth = taken.entry((object, r.created)).or_insert(0);
            let nanos = EPOCH_UNIX_NANOS + r.created.as_millis() * 1_000_000 + *nth;
            *nth += 1;
            format!("{object}.{nanos:x}")
        })
        .collect()
}

/// `kubectl get events --field-selector type=Warning [--sort-by=<field>]`: the same table,
/// warnings only.
pub fn get_warning_events(m: &Moment<'_>, sort_by: Option<EventSortBy>, wide: bool) -> String {
    let warnings: Vec<Step> = m
        .steps
        .iter()
        .map(|s| Step {
            events: s
                .events
                .iter()
                .filter(|e| e.type_ == EventType::Warning)
                .cloned()
                .collect(),
            ..s.clone()
        })
        .collect();
    get_events_sorted(
        &Moment {
            steps: &warnings,
            ..*m
        },
        sort_by,
        wide,
    )
}

/// The message as `kubectl describe` ≥ v1.35 shows it: `<fieldPath>: <message>` for events
/// about one container (spec §16), the bare message otherwise.
pub fn describe_message(e: &Event) -> String {
    match &e.involved_object.field_path {
        Some(fp) => format!("{fp}: {}", e.message.trim()),
        None => e.message.trim().to_string(),
    }
}

/// `source.component` of an event: `kubelet` for `kubelet, node-1` (describe's From column
/// shows the component only).
fn source_component(e: &Event) -> &str {
    e.source.split(", ").next().unwrap_or(&e.source)
}

/// The URL `DescribeProbe` prints for an HTTP probe: Go's
/// `url.URL{Scheme, Host: net.JoinHostPort(host, port), Path}.String()`. An IPv6 host is
/// bracketed, a path without a leading `/` gets one, and the path is escaped as Go's
/// `encodePath` mode escapes it: everything but letters, digits, `-_.~` and `$&+,/:;=@`
/// becomes `%XX` (so `?` and `#` do, and the sub-delimiters `!'()*` too).
fn go_url(scheme: &str, host: &str, port: &str, path: &str) -> String {
    let host = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    // `encodeHost` also keeps the sub-delimiters, `:`, the brackets, `<`, `>` and `"`.
    let mut out = format!(
        "{scheme}://{}",
        percent_escape(&host, |c| b"!$&'()*+,;=:[]<>\"".contains(&c))
    );
    if !path.is_empty() && !path.starts_with('/') {
        out.push('/');
    }
    out.push_str(&percent_escape(path, |c| b"$&+,/:;=@".contains(&c)));
    out
}

/// Go's `url.escape`: each byte that is not a letter, a digit, one of `-_.~`, or one `keep`
/// allows, as `%XX` with upper-case hex digits.
fn percent_escape(text: &str, keep: impl Fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) || keep(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn probe_text(p: &Probe) -> String {
    let how = if let Some(h) = &p.http_get {
        let scheme = h.scheme.as_deref().unwrap_or("HTTP").to_lowercase();
        format!(
            "http-get {}",
            go_url(
                &scheme,
                h.host.as_deref().unwrap_or(""),
                &h.port.to_string(),
                h.path.as_deref().unwrap_or("")
            )
        )
    } else if let Some(t) = &p.tcp_socket {
        format!("tcp-socket {}:{}", t.host.as_deref().unwrap_or(""), t.port)
    } else if let Some(e) = &p.exec {
        format!("exec [{}]", e.command.join(" "))
    } else if let Some(g) = &p.grpc {
        format!(
            "grpc <pod>:{} {}",
            g.port,
            g.service.as_deref().unwrap_or("")
        )
    } else {
        "unknown".to_string()
    };
    format!(
        "{how} delay={}s timeout={}s period={}s #success={} #failure={}",
        p.initial_delay_seconds(),
        p.timeout_seconds(),
        p.period_seconds(),
        p.success_threshold(),
        p.failure_threshold()
    )
}

fn describe_state(out: &mut String, label: &str, state: &ContainerState) {
    match state {
        // `describeStatus` prints a waiting container's reason only; its message (the back-off
        // or the pull error) is left to `kubectl get pod -o yaml` and the events.
        ContainerState::Waiting { reason, .. } => {
            out.push_str(&format!("    {label}:\tWaiting\n"));
            if !reason.is_empty() {
                out.push_str(&format!("      Reason:\t{reason}\n"));
            }
        }
        ContainerState::Running { started_at } => {
            out.push_str(&format!("    {label}:\tRunning\n"));
            out.push_str(&format!("      Started:\t{}\n", started_at.rfc1123z()));
        }
        ContainerState::Terminated {
            exit_code,
            reason,
            message,
            started_at,
            finished_at,
        } => {
            out.push_str(&format!("    {label}:\tTerminated\n"));
            if !reason.is_empty() {
                out.push_str(&format!("      Reason:\t{reason}\n"));
            }
            if !message.is_empty() {
                out.push_str(&format!("      Message:\t{message}\n"));
            }
            out.push_str(&format!("      Exit Code:\t{exit_code}\n"));
            out.push_str(&format!("      Started:\t{}\n", started_at.rfc1123z()));
            out.push_str(&format!("      Finished:\t{}\n", finished_at.rfc1123z()));
        }
    }
}

/// `kubectl describe pod NAME` at the simulator's current moment: status, the container's
/// State / Last State / Ready / Restart Count and probes, the conditions in describe's order,
/// and the pod's events with the v1.35 `spec.containers{<c>}: ` prefix. Dates are the wall-clock
/// dates the simulated times stand for, in `time.RFC1123Z` as describe prints them.
///
/// # Errors
/// `Error from server (NotFound): pods "<name>" not found` when there is no such pod.
pub fn describe_pod(m: &Moment<'_>, name: &str) -> Result<String, String> {
    let (sim, steps, now) = (m.sim, m.steps, m.now);
    let Some(pod) = sim.store().pods.get(name) else {
        return Err(not_found("pods", name));
    };
    let mut o = String::new();
    o.push_str(&format!("Name:\t{}\n", pod.metadata.name));
    o.push_str("Namespace:\tdefault\n");
    let spec_str = |key: &str| extra_str(&pod.spec.extra, key);
    // The priority admission computed from the pod's class (0 without one).
    let priority =
        crate::sim::controller::replica_set::priority_class_value(spec_str("priorityClassName"))
            .unwrap_or(0);
    o.push_str(&format!("Priority:\t{priority}\n"));
    for (title, key) in [
        ("Priority Class Name", "priorityClassName"),
        ("Runtime Class Name", "runtimeClassName"),
    ] {
        if !spec_str(key).is_empty() {
            o.push_str(&format!("{title}:\t{}\n", spec_str(key)));
        }
    }
    // The ServiceAccount admission plugin names `default` when the template names none.
    let account = match crate::sim::api::pod::service_account_name(&pod.spec) {
        "" => "default",
        name => name,
    };
    o.push_str(&format!("Service Account:\t{account}\n"));
    if pod.node_name.is_empty() {
        o.push_str("Node:\t<none>\n");
    } else {
        o.push_str(&format!(
            "Node:\t{}/{}\n",
            pod.node_name,
            reported_host_ip(pod).unwrap_or("")
        ));
    }
    if let Some(t) = pod.status.start_time {
        o.push_str(&format!("Start Time:\t{}\n", t.rfc1123z()));
    }
    describe_labels(&mut o, "Labels", &pod.metadata.labels);
    describe_annotations(&mut o, "Annotations", &pod.metadata.annotations);
    match pod.metadata.deletion_timestamp {
        Some(t) if !pod.is_terminal() => {
            o.push_str(&format!("Status:\tTerminating (lasts {})\n", since(now, t)));
            o.push_str(&format!(
                "Termination Grace Period:\t{}s\n",
                pod.metadata.deletion_grace_period_seconds.unwrap_or(30)
            ));
        }
        _ => o.push_str(&format!("Status:\t{}\n", pod.status.phase.as_str())),
    }
    describe_seccomp(&mut o, "", &pod.spec.extra);
    match &pod.status.pod_ip {
        Some(ip) => {
            o.push_str(&format!("IP:\t{ip}\n"));
            o.push_str("IPs:\n");
            o.push_str(&format!("  IP:\t{ip}\n"));
        }
        None => {
            o.push_str("IP:\t\n");
            o.push_str("IPs:\t<none>\n");
        }
    }
    if let Some(r) = pod.metadata.controller_ref() {
        o.push_str(&format!("Controlled By:\t{}/{}\n", r.kind, r.name));
    }
    // The ServiceAccount admission plugin's token volume, mounted into every container.
    let token = service_account_token_volume(pod);
    if !pod.spec.init_containers.is_empty() {
        describe_pod_containers(
            &mut o,
            "Init Containers",
            (
                &pod.spec.init_containers,
                &pod.status.init_container_statuses,
            ),
            pod,
            token.as_deref(),
        );
    }
    describe_pod_containers(
        &mut o,
        "Containers",
        (&pod.spec.containers, &pod.status.container_statuses),
        pod,
        token.as_deref(),
    );
    // A gate's status is that of the pod condition of its type, `<none>` while there is none
    // (nothing in the simulated cluster sets a gate's condition).
    let gates = pod.spec.readiness_gates();
    if !gates.is_empty() {
        o.push_str("Readiness Gates:\n  Type\tStatus\n");
        for gate in gates {
            let status = pod
                .status
                .conditions
                .iter()
                .find(|c| c.type_.as_str() == gate)
                .map_or("<none>", |c| c.status.as_str());
            o.push_str(&format!("  {gate} \t{status} \n"));
        }
    }
    if !pod.status.conditions.is_empty() {
        o.push_str("Conditions:\n");
        o.push_str("  Type\tStatus\n");
        for c in conditions_in_api_order(sim.store(), pod) {
            o.push_str(&format!(
                "  {} \t{} \n",
                c.type_.as_str(),
                c.status.as_str()
            ));
        }
    }
    describe_volumes(&mut o, "", &pod.spec.extra, token.as_deref());
    o.push_str(&format!("QoS Class:\t{}\n", qos_class(&pod.spec)));
    describe_labels(&mut o, "Node-Selectors", &pod.spec.node_selector);
    // The DefaultTolerationSeconds admission plugin's tolerations come after the template's.
    describe_tolerations(&mut o, "", &crate::sim::api::toleration::of_pod(&pod.spec));
    describe_topology_spread(&mut o, "", &pod.spec.extra);
    describe_events_of(&mut o, steps, "Pod", name, now);
    Ok(tabwrite(&o, 0, 2))
}

/// `kubectl rollout status deploy/<name> --watch=false [--revision=N]` at the simulator's
/// current moment: the one line kubectl prints, `error: …` when it fails.
pub fn rollout_status_now(sim: &Sim, name: &str, revision: Option<i64>) -> String {
    match sim.deployment(name) {
        None => not_found("deployments.apps", name) + "\n",
        Some(d) => match rollout_status(d, revision) {
            Ok((line, _)) => line,
            Err(e) => format!("error: {e}\n"),
        },
    }
}

/// `kubectl rollout status deployment/<name>` as kubectl runs it by default, watching, from the
/// simulator's current moment until `until` (spec §17): the status is evaluated for the
/// Deployment as first listed and again for every write that changes it (each Modified event),
/// and every message is printed, so identical lines repeat as they do on a real cluster. The
/// simulator steps onward while the watch lasts. With `revision`, every evaluation first checks
/// that the Deployment runs that revision, as `--revision=N` does.
///
/// Returns what kubectl prints on stdout, and how the watch ended: `Ok` once the rollout is
/// done, or the text kubectl prints on stderr.
///
/// # Errors
/// * `Error from server (NotFound): deployments.apps "<name>" not found`;
/// * `error: deployment "<name>" exceeded its progress deadline` (after the lines printed
///   before it);
/// * at `until`, `error: timed out waiting for the condition` when it is the end of a
///   `--timeout` (`timeout` set), otherwise a note that the scenario ended while kubectl would
///   still be watching.
pub fn rollout_status_watch(
    sim: &mut Sim,
    name: &str,
    revision: Option<i64>,
    until: Time,
    timeout: bool,
) -> (String, Result<(), String>) {
    let mut out = String::new();
    let Some(d) = sim.deployment(name) else {
        return (out, Err(not_found("deployments.apps", name)));
    };
    // One evaluation: its line printed, and whether the watch is over.
    let evaluate = |d: &Deployment, out: &mut String| match rollout_status(d, revision) {
        Ok((line, done)) => {
            out.push_str(&line);
            done.then_some(Ok(()))
        }
        Err(e) => Some(Err(format!("error: {e}"))),
    };
    if let Some(end) = evaluate(d, &mut out) {
        return (out, end);
    }
    sim.watch_deployments();
    while sim.step_until(until).is_some() {
        for d in sim.deployment_writes() {
            if d.metadata.name == name
                && let Some(end) = evaluate(d, &mut out)
            {
                return (out, end);
            }
        }
    }
    let end = if timeout {
        "error: timed out waiting for the condition".to_string()
    } else {
        format!(
            "error: the scenario ends at {until} before the rollout is done (kubectl would go on watching)"
        )
    };
    (out, Err(end))
}

/// `printLabelsMultiline` (title already indented): `<title>:\t<none>`, or the sorted
/// `key=value` pairs, the first beside the title and each next one on its own line after a tab.
fn describe_labels(o: &mut String, title: &str, labels: &BTreeMap<String, String>) {
    describe_multiline(
        o,
        title,
        "\t",
        labels.iter().map(|(k, v)| format!("{k}={v}")),
    );
}

/// The shape kubectl's multi-line printers share (`printLabelsMultilineWithIndent`,
/// `printTolerationsMultilineWithIndent`, `printTaintsMultilineWithIndent`): `<title>:\t` and
/// the first item, each next item on its own line after `continuation` (kubectl's initial and
/// inner indents), or `<none>` when there is none.
fn describe_multiline(
    o: &mut String,
    title: &str,
    continuation: &str,
    items: impl IntoIterator<Item = String>,
) {
    o.push_str(title);
    o.push_str(":\t");
    let mut any = false;
    for item in items {
        if any {
            o.push_str(continuation);
        }
        any = true;
        o.push_str(&item);
        o.push('\n');
    }
    if !any {
        o.push_str("<none>\n");
    }
}

/// `printAnnotationsMultiline`: like [`describe_labels`] with `key: value`, skipping kubectl's
/// last-applied configuration; a value that is long (key and value over 140 characters) or spans
/// lines is written under its key, each line cut at 138 characters with `...`.
fn describe_annotations(o: &mut String, title: &str, annotations: &BTreeMap<String, String>) {
    o.push_str(title);
    o.push_str(":\t");
    let shown: Vec<(&String, &String)> = annotations
        .iter()
        .filter(|(k, _)| k.as_str() != "kubectl.kubernetes.io/last-applied-configuration")
        .collect();
    if shown.is_empty() {
        o.push_str("<none>\n");
        return;
    }
    for (i, (k, v)) in shown.into_iter().enumerate() {
        if i > 0 {
            o.push('\t');
        }
        let value = v.strip_suffix('\n').unwrap_or(v);
        if value.len() + k.len() + 2 > 140 || value.contains('\n') {
            o.push_str(&format!("{k}:\n"));
            for line in value.split('\n') {
                let cut = match line.char_indices().nth(138) {
                    Some((at, _)) => format!("{}...", &line[..at]),
                    None => line.to_string(),
                };
                o.push_str(&format!("\t  {cut}\n"));
            }
        } else {
            o.push_str(&format!("{k}: {value}\n"));
        }
    }
}

/// `describeContainerPorts` and `describeContainerHostPorts` (v1.34+: a named port reads
/// `80/TCP (http)`): `Port:` for one, `Ports:` for several, `<none>` for none; a port without
/// a host port shows host port 0.
fn describe_ports(o: &mut String, indent: &str, c: &Container) {
    let named = |text: String, name: &Option<String>| match name.as_deref() {
        Some(n) if !n.is_empty() => format!("{text} ({n})"),
        _ => text,
    };
    let proto = |p: &ContainerPort| p.protocol.clone().unwrap_or_else(|| "TCP".to_string());
    let ports: Vec<String> = c
        .ports
        .iter()
        .map(|p| named(format!("{}/{}", p.container_port, proto(p)), &p.name))
        .collect();
    let host: Vec<String> = c
        .ports
        .iter()
        .map(|p| {
            named(
                format!("{}/{}", p.host_port.unwrap_or(0), proto(p)),
                &p.name,
            )
        })
        .collect();
    for (label, list) in [("Port", ports), ("Host Port", host)] {
        let joined = list.join(", ");
        if joined.contains(',') {
            o.push_str(&format!("{indent}{label}s:\t{joined}\n"));
        } else if joined.is_empty() {
            o.push_str(&format!("{indent}{label}:\t<none>\n"));
        } else {
            o.push_str(&format!("{indent}{label}:\t{joined}\n"));
        }
    }
}

/// `describeResources`: `Limits:` and then `Requests:`, each resource on its own line in name
/// order, CPU and memory in the API server's canonical form.
fn describe_resources(o: &mut String, indent: &str, c: &Container) {
    // Quantities as stored, which decoding made canonical (`0.5` is `500m`, `1024Mi` is `1Gi`).
    let show = |v: &serde_json::Value| -> String {
        quantity::quantity_text(v)
            .map(|q| q.into_owned())
            .unwrap_or_default()
    };
    for (title, list) in [
        ("Limits", &c.resources.limits),
        ("Requests", &c.resources.requests),
    ] {
        if list.is_empty() {
            continue;
        }
        o.push_str(&format!("{indent}{title}:\n"));
        for (name, v) in list {
            o.push_str(&format!("{indent}  {name}:\t{}\n", show(v)));
        }
    }
}

/// The probe lines of a container (`describeContainerProbe`): Liveness, Readiness, Startup.
fn describe_probes(o: &mut String, indent: &str, c: &Container) {
    for (title, probe) in [
        ("Liveness", &c.liveness_probe),
        ("Readiness", &c.readiness_probe),
        ("Startup", &c.startup_probe),
    ] {
        if let Some(p) = probe {
            o.push_str(&format!("{indent}{title}:\t{}\n", probe_text(p)));
        }
    }
}

/// A string field of an unmodelled JSON object (`env[i].name`), empty when absent.
fn json_str<'a>(v: &'a serde_json::Value, key: &str) -> &'a str {
    v.get(key).and_then(serde_json::Value::as_str).unwrap_or("")
}

/// A flag of an unmodelled JSON object (`readOnly`, `optional`), false when absent, as Go's
/// nil pointer reads.
fn json_bool(v: &serde_json::Value, key: &str) -> bool {
    v.get(key)
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

/// A string among a spec's unmodelled fields (`serviceAccountName`), empty when absent.
fn extra_str<'a>(extra: &'a BTreeMap<String, serde_json::Value>, key: &str) -> &'a str {
    extra
        .get(key)
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
}

/// A list among a spec's unmodelled fields (`env`, `volumes`), empty when absent.
fn json_list<'a>(
    extra: &'a BTreeMap<String, serde_json::Value>,
    key: &str,
) -> &'a [serde_json::Value] {
    extra
        .get(key)
        .and_then(serde_json::Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The template-only lines of a container that RolloutScope keeps but does not model:
/// `Command:` and `Args:` (`describeContainerCommand`), `Environment:` (`describeContainerEnvVars`)
/// and `Mounts:` (`describeContainerVolumes`, sorted by mount path).
fn describe_unmodelled(
    o: &mut String,
    indent: &str,
    c: &Container,
    section: Unmodelled,
    pod: Option<&Pod>,
) {
    let list = |key: &str| json_list(&c.extra, key);
    match section {
        Unmodelled::Command => {
            for (title, key) in [("Command", "command"), ("Args", "args")] {
                let words = list(key);
                if words.is_empty() {
                    continue;
                }
                o.push_str(&format!("{indent}{title}:\n"));
                for w in words {
                    for line in w.as_str().unwrap_or_default().split('\n') {
                        o.push_str(&format!("{indent}  {line}\n"));
                    }
                }
            }
        }
        Unmodelled::Environment => {
            // `describeContainerEnvFrom`, only when the container has sources.
            let sources = list("envFrom");
            if !sources.is_empty() {
                o.push_str(&format!("{indent}Environment Variables from:\n"));
            }
            for e in sources {
                let (from, r) = match (e.get("configMapRef"), e.get("secretRef")) {
                    (Some(r), _) => ("ConfigMap", r),
                    (None, Some(r)) => ("Secret", r),
                    (None, None) => ("", e),
                };
                let optional = json_bool(r, "optional");
                let name = json_str(r, "name");
                match json_str(e, "prefix") {
                    "" => o.push_str(&format!("{indent}  {name}\t{from}\tOptional: {optional}\n")),
                    prefix => o.push_str(&format!(
                        "{indent}  {name}\t{from} with prefix '{prefix}'\tOptional: {optional}\n"
                    )),
                }
            }
            let env = list("env");
            if env.is_empty() {
                o.push_str(&format!("{indent}Environment:\t<none>\n"));
                return;
            }
            o.push_str(&format!("{indent}Environment:\n"));
            for e in env {
                let name = json_str(e, "name");
                let from = e.get("valueFrom");
                let secret = from.and_then(|f| f.get("secretKeyRef"));
                let config = from.and_then(|f| f.get("configMapKeyRef"));
                let field = from.and_then(|f| f.get("fieldRef"));
                let resource = from.and_then(|f| f.get("resourceFieldRef"));
                let optional = |r: &serde_json::Value| json_bool(r, "optional");
                if let Some(r) = secret {
                    o.push_str(&format!(
                        "{indent}  {name}:\t<set to the key '{}' in secret '{}'>\tOptional: {}\n",
                        json_str(r, "key"),
                        json_str(r, "name"),
                        optional(r)
                    ));
                } else if let Some(r) = config {
                    o.push_str(&format!(
                        "{indent}  {name}:\t<set to the key '{}' of config map '{}'>\tOptional: {}\n",
                        json_str(r, "key"),
                        json_str(r, "name"),
                        optional(r)
                    ));
                } else if let Some(r) = field {
                    let version = match json_str(r, "apiVersion") {
                        "" => "v1",
                        v => v,
                    };
                    let path = json_str(r, "fieldPath");
                    o.push_str(&format!(
                        "{indent}  {name}:\t{} ({version}:{path})\n",
                        pod.map_or("", |p| env_field_value(p, version, path))
                    ));
                } else if let Some(r) = resource {
                    let resource = json_str(r, "resource");
                    o.push_str(&format!(
                        "{indent}  {name}:\t{} ({resource})\n",
                        env_resource_value(c, resource, r.get("divisor"))
                    ));
                } else {
                    let mut lines = json_str(e, "value").split('\n');
                    o.push_str(&format!(
                        "{indent}  {name}:\t{}\n",
                        lines.next().unwrap_or_default()
                    ));
                    for more in lines {
                        o.push_str(&format!("{indent}  \t{more}\n"));
                    }
                }
            }
        }
        Unmodelled::Mounts => describe_mounts(o, indent, c, None),
    }
}

/// kubectl's `EnvValueRetriever` for a pod's `fieldRef`: the path must be one of the field
/// labels a Pod converts (`ConvertFieldLabel`), and then one `ExtractFieldPathAsString` reads,
/// which leaves the pod's name and namespace; anything else prints empty, as kubectl prints it.
fn env_field_value<'p>(pod: &'p Pod, api_version: &str, path: &str) -> &'p str {
    if api_version != "v1" {
        return "";
    }
    match path {
        "metadata.name" => &pod.metadata.name,
        "metadata.namespace" if pod.metadata.namespace.is_empty() => {
            crate::sim::api::DEFAULT_NAMESPACE
        }
        "metadata.namespace" => &pod.metadata.namespace,
        _ => "",
    }
}

/// `ExtractContainerResourceValue` for a `resourceFieldRef`, from the container as written
/// (a missing quantity is 0): CPU in whole divisors (default 1) rounded up from millicores,
/// memory and storage in whole divisors rounded up from bytes; a zero limit prints `node
/// allocatable`, as `describeContainerEnvVars` says it. An unknown resource prints empty.
fn env_resource_value(
    c: &Container,
    resource: &str,
    divisor: Option<&serde_json::Value>,
) -> String {
    let (list, name) = match resource.split_once('.') {
        Some(("limits", name)) => (&c.resources.limits, name),
        Some(("requests", name)) => (&c.resources.requests, name),
        _ => return String::new(),
    };
    let supported =
        matches!(name, "cpu" | "memory" | "ephemeral-storage") || name.starts_with("hugepages-");
    if !supported {
        return String::new();
    }
    let milli = |v: Option<&serde_json::Value>| {
        v.and_then(quantity::quantity_text)
            .and_then(|t| quantity::parse_milli(&t))
    };
    // Quantities here are never negative (`parse_milli` refuses a sign).
    let unsigned = |m: Option<i64>| m.and_then(|m| u64::try_from(m).ok());
    let amount = unsigned(milli(list.get(name))).unwrap_or(0);
    let divisor = unsigned(milli(divisor)).filter(|d| *d != 0).unwrap_or(1000);
    let value = if name == "cpu" {
        amount.div_ceil(divisor)
    } else {
        // Bytes are whole: `Quantity.Value()` rounds up.
        let whole = |m: u64| m.div_ceil(1000);
        whole(amount).div_ceil(whole(divisor).max(1))
    };
    if value == 0 && matches!(resource, "limits.cpu" | "limits.memory") {
        "node allocatable".to_string()
    } else {
        value.to_string()
    }
}

/// `Mounts:` (`describeContainerVolumes`): `<none>`, or each volume mount sorted by mount path
/// as `<path> from <volume> (ro|rw[,path="<subPath>"])`; `token` is the service-account token
/// volume the admission plugin mounted read-only into a pod's containers.
fn describe_mounts(o: &mut String, indent: &str, c: &Container, token: Option<&str>) {
    let mut mounts: Vec<serde_json::Value> = json_list(&c.extra, "volumeMounts").to_vec();
    if let Some(name) = token {
        mounts.push(serde_json::json!({
            "name": name,
            "readOnly": true,
            "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"
        }));
    }
    if mounts.is_empty() {
        o.push_str(&format!("{indent}Mounts:\t<none>\n"));
        return;
    }
    order::sort_by(&mut mounts, |a, b| {
        json_str(a, "mountPath").cmp(json_str(b, "mountPath"))
    });
    o.push_str(&format!("{indent}Mounts:\n"));
    for m in &mounts {
        let read_only = json_bool(m, "readOnly");
        let mut flags = vec![if read_only { "ro" } else { "rw" }.to_string()];
        let sub = json_str(m, "subPath");
        if !sub.is_empty() {
            flags.push(format!("path={sub:?}"));
        }
        o.push_str(&format!(
            "{indent}  {} from {} ({})\n",
            json_str(m, "mountPath"),
            json_str(m, "name"),
            flags.join(",")
        ));
    }
}

/// Which unmodelled container lines [`describe_unmodelled`] writes.
#[derive(Clone, Copy)]
enum Unmodelled {
    Command,
    Environment,
    Mounts,
}

/// `describeContainers` for a pod: `<title>:` and each container with its status (matched by
/// position, as the kubelet reports them in the spec's order): IDs, image, ports, command, state,
/// last state, readiness, restarts, resources, probes, environment and mounts.
fn describe_pod_containers(
    o: &mut String,
    title: &str,
    (containers, statuses): (&[Container], &[ContainerStatus]),
    pod: &Pod,
    token: Option<&str>,
) {
    o.push_str(title);
    o.push_str(":\n");
    for (i, c) in containers.iter().enumerate() {
        let cs = statuses.get(i);
        o.push_str(&format!("  {}:\n", c.name));
        let ids = cs.map(|cs| container_ids(pod, cs));
        if let Some((container_id, _)) = &ids {
            o.push_str(&format!("    Container ID:\t{container_id}\n"));
        }
        o.push_str(&format!("    Image:\t{}\n", c.image));
        if let Some((_, image_id)) = &ids {
            o.push_str(&format!("    Image ID:\t{image_id}\n"));
        }
        describe_ports(o, "    ", c);
        describe_seccomp(o, "    ", &c.extra);
        describe_unmodelled(o, "    ", c, Unmodelled::Command, None);
        // A container without a status (no kubelet has synced the pod) has no state lines.
        if let Some(cs) = cs {
            describe_state(o, "State", &cs.state);
            if let Some(last) = &cs.last_state {
                describe_state(o, "Last State", last);
            }
            o.push_str(&format!(
                "    Ready:\t{}\n",
                if cs.ready { "True" } else { "False" }
            ));
            o.push_str(&format!("    Restart Count:\t{}\n", cs.restart_count));
        }
        describe_resources(o, "    ", c);
        describe_probes(o, "    ", c);
        describe_unmodelled(o, "    ", c, Unmodelled::Environment, Some(pod));
        describe_mounts(o, "    ", c, token);
    }
}

/// `describeContainers` for a pod template (no status): `  <title>:` and each container's
/// image, ports, command, resources, probes, environment and mounts.
fn describe_template_containers(o: &mut String, title: &str, containers: &[Container]) {
    if containers.is_empty() {
        o.push_str(&format!("  {title}: <none>\n"));
    } else {
        o.push_str(&format!("  {title}:\n"));
    }
    for c in containers {
        let indent = "    ";
        o.push_str(&format!("   {}:\n", c.name));
        o.push_str(&format!("{indent}Image:\t{}\n", c.image));
        describe_ports(o, indent, c);
        describe_seccomp(o, indent, &c.extra);
        describe_unmodelled(o, indent, c, Unmodelled::Command, None);
        describe_resources(o, indent, c);
        describe_probes(o, indent, c);
        describe_unmodelled(o, indent, c, Unmodelled::Environment, None);
        describe_unmodelled(o, indent, c, Unmodelled::Mounts, None);
    }
}

/// `DescribePodTemplate`: the template's labels and annotations, its init containers and
/// containers as `describeContainers` shows them without a status, volumes (the common kinds in
/// full, others by kind), the priority class, node selectors and tolerations.
fn describe_pod_template(o: &mut String, template: &PodTemplateSpec) {
    o.push_str("Pod Template:\n");
    describe_labels(o, "  Labels", &template.metadata.labels);
    if !template.metadata.annotations.is_empty() {
        describe_annotations(o, "  Annotations", &template.metadata.annotations);
    }
    let spec = &template.spec;
    let sa = extra_str(&spec.extra, "serviceAccountName");
    if !sa.is_empty() {
        o.push_str(&format!("  Service Account:\t{sa}\n"));
    }
    if !spec.init_containers.is_empty() {
        describe_template_containers(o, "Init Containers", &spec.init_containers);
    }
    describe_template_containers(o, "Containers", &spec.containers);
    describe_volumes(o, "  ", &spec.extra, None);
    describe_topology_spread(o, "  ", &spec.extra);
    let pc = extra_str(&spec.extra, "priorityClassName");
    if !pc.is_empty() {
        o.push_str(&format!("  Priority Class Name:\t{pc}\n"));
    }
    describe_labels(o, "  Node-Selectors", &spec.node_selector);
    describe_tolerations(o, "  ", json_list(&spec.extra, "tolerations"));
}

/// `describeVolumes`: `Volumes:\t<none>`, or each volume by name with its source, in the
/// spec's order; `token` is the name of the service-account token volume the admission plugin
/// appended to a pod (`printProjectedVolumeSource` of its three sources).
fn describe_volumes(
    o: &mut String,
    space: &str,
    extra: &BTreeMap<String, serde_json::Value>,
    token: Option<&str>,
) {
    let volumes = json_list(extra, "volumes");
    if volumes.is_empty() && token.is_none() {
        o.push_str(&format!("{space}Volumes:\t<none>\n"));
        return;
    }
    o.push_str(&format!("{space}Volumes:\n"));
    // Names one level in, and one space more inside a template; sources two levels in.
    let name_indent = if space.is_empty() { "  " } else { "   " };
    for v in volumes {
        o.push_str(&format!("{name_indent}{}:\n", json_str(v, "name")));
        o.push_str(&volume_source_text(v));
    }
    if let Some(name) = token {
        o.push_str(&format!("{name_indent}{name}:\n"));
        o.push_str(
            "    Type:\tProjected (a volume that contains injected data from multiple sources)\n",
        );
        o.push_str("    TokenExpirationSeconds:\t3607\n");
        o.push_str("    ConfigMapName:\tkube-root-ca.crt\n");
        o.push_str("    Optional:\tfalse\n");
        o.push_str("    DownwardAPI:\ttrue\n");
    }
}

/// `printPodTolerationsMultiline`: `Tolerations:\t<none>`, or each toleration sorted by key
/// alone (the manifest's order kept on ties), the first beside the title.
fn describe_tolerations(o: &mut String, space: &str, tolerations: &[serde_json::Value]) {
    let mut tolerations: Vec<&serde_json::Value> = tolerations.iter().collect();
    order::sort_by(&mut tolerations, |a, b| {
        json_str(a, "key").cmp(json_str(b, "key"))
    });
    let title = format!("{space}Tolerations");
    describe_multiline(
        o,
        &title,
        "\t",
        tolerations.into_iter().map(toleration_text),
    );
}

/// `describeTopologySpreadConstraints`: nothing without constraints, otherwise each as
/// `<topologyKey>:<whenUnsatisfiable> when max skew <n> is exceeded[ for selector <s>]`, sorted
/// by topology key.
fn describe_topology_spread(
    o: &mut String,
    space: &str,
    extra: &BTreeMap<String, serde_json::Value>,
) {
    let mut constraints: Vec<&serde_json::Value> = json_list(extra, "topologySpreadConstraints")
        .iter()
        .collect();
    if constraints.is_empty() {
        return;
    }
    order::sort_by(&mut constraints, |a, b| {
        json_str(a, "topologyKey").cmp(json_str(b, "topologyKey"))
    });
    let lines = constraints.into_iter().map(|c| {
        let mut line = format!(
            "{}:{} when max skew {} is exceeded",
            json_str(c, "topologyKey"),
            json_str(c, "whenUnsatisfiable"),
            c.get("maxSkew")
                .and_then(serde_json::Value::as_i64)
                .unwrap_or(0)
        );
        if let Some(selector) = c
            .get("labelSelector")
            .and_then(|v| serde_json::from_value::<LabelSelector>(v.clone()).ok())
        {
            line.push_str(&format!(" for selector {}", selector_text(&selector)));
        }
        line
    });
    let title = format!("{space}Topology Spread Constraints");
    describe_multiline(o, &title, &format!("{space}\t"), lines);
}

/// `metav1.FormatLabelSelector`: the selector's requirements, or `<none>` when it has none.
fn selector_text(selector: &LabelSelector) -> String {
    match selector.to_selector_string() {
        s if s.is_empty() => "<none>".to_string(),
        s => s,
    }
}

/// The seccomp profile line of `describeContainerBasicInfo` (a container's security context)
/// or `describePod` (the pod's), when the security context among `extra` sets one:
/// `SeccompProfile:\t<type>`, and for a `Localhost` profile its file one level in.
fn describe_seccomp(o: &mut String, indent: &str, extra: &BTreeMap<String, serde_json::Value>) {
    let Some(profile) = extra
        .get("securityContext")
        .and_then(|s| s.get("seccompProfile"))
    else {
        return;
    };
    let kind = json_str(profile, "type");
    o.push_str(&format!("{indent}SeccompProfile:\t{kind}\n"));
    if kind == "Localhost" {
        o.push_str(&format!(
            "{indent}  LocalhostProfile:\t{}\n",
            json_str(profile, "localhostProfile")
        ));
    }
}

/// The container and image IDs of a container status as containerd reports them
/// (`containerd://<64 hex>`, `<repository>@sha256:<digest>`), or empty for a container the
/// runtime never created (waiting, never restarted). See [`container_id`] and [`image_refs`].
fn container_ids(pod: &Pod, cs: &ContainerStatus) -> (String, String) {
    let never_created = cs.restart_count == 0
        && cs.last_state.is_none()
        && matches!(cs.state, ContainerState::Waiting { .. });
    if never_created {
        return (String::new(), String::new());
    }
    (
        container_id(pod, &cs.name, cs.restart_count),
        image_refs(&cs.image).1,
    )
}

/// The ID containerd gives the `instance`-th run (from 0) of a container: 64 hex digits drawn
/// from the pod's UID, the container's name and the run, so each run has its own.
pub(crate) fn container_id(pod: &Pod, name: &str, instance: i32) -> String {
    let key = (pod.metadata.uid.as_str(), name, instance);
    let hex: String = (0..4u64)
        .map(|i| format!("{:016x}", fingerprint::of(&(key, i))))
        .collect();
    format!("containerd://{hex}")
}

/// An image as containerd names it once pulled, and its image ID: the repository made fully
/// qualified as Docker's reference normalizing does (`web:2.0` is
/// `docker.io/library/web:2.0`, a missing tag `latest`), and the repository with the image's
/// digest (the one written, else one drawn from the image's name).
pub(crate) fn image_refs(image: &str) -> (String, String) {
    let hex = |seed: &dyn Fn(u64) -> u64| -> String {
        (0..4u64).map(|i| format!("{:016x}", seed(i))).collect()
    };
    let (repo, tag, digest) = match image.split_once('@') {
        Some((repo, digest)) => (repo, None, Some(digest.to_string())),
        None => {
            // A tag follows the last ':' after the last '/' (a registry's port is not a tag).
            let slash = image.rfind('/').map_or(0, |i| i + 1);
            match image[slash..].rfind(':') {
                Some(colon) => (
                    &image[..slash + colon],
                    Some(&image[slash + colon + 1..]),
                    None,
                ),
                None => (image, None, None),
            }
        }
    };
    let first = repo.split('/').next().unwrap_or_default();
    let repo = if !repo.contains('/') {
        format!("docker.io/library/{repo}")
    } else if first.contains(['.', ':']) || first == "localhost" {
        repo.to_string()
    } else {
        format!("docker.io/{repo}")
    };
    let name = match (tag, &digest) {
        (Some(tag), _) => format!("{repo}:{tag}"),
        (None, Some(digest)) => format!("{repo}@{digest}"),
        (None, None) => format!("{repo}:latest"),
    };
    let digest =
        digest.unwrap_or_else(|| format!("sha256:{}", hex(&|i| fingerprint::of(&(image, i)))));
    (name, format!("{repo}@{digest}"))
}

/// Whether the pod's kubelet has written its status: its first sync gives every container a
/// status. Until then the status holds only what the API server and the scheduler wrote.
pub(crate) fn kubelet_wrote_status(pod: &Pod) -> bool {
    !pod.status.container_statuses.is_empty()
}

/// The node's address as the pod's status reports it: the kubelet writes `hostIP`, so a pod
/// bound to a node whose kubelet has not synced it (one that stopped) has none yet.
pub(crate) fn reported_host_ip(pod: &Pod) -> Option<&str> {
    pod.status
        .host_ip
        .as_deref()
        .filter(|_| kubelet_wrote_status(pod))
}

/// Whether the pod's kubelet has written its status since the pod was deleted: a running
/// kubelet syncs a deleted pod at once, one that stopped does not.
pub(crate) fn kubelet_saw_deletion(store: &Store, pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
        && kubelet_wrote_status(pod)
        && !crate::sim::kubelet::node_down(store, &pod.node_name)
}

/// The pod's conditions in the order the API server holds them: the kubelet's
/// (PodReadyToStartContainers, Initialized, Ready, ContainersReady, PodScheduled), then one
/// another component appended (DisruptionTarget, before an eviction's delete). The kubelet's
/// next status write (`mergePodStatus`) puts the conditions it does not own first, and a running
/// kubelet writes at once when the pod is deleted, so an evicted pod on a live node lists
/// DisruptionTarget first.
pub(crate) fn conditions_in_api_order<'p>(
    store: &Store,
    pod: &'p Pod,
) -> Vec<&'p crate::sim::api::PodCondition> {
    let mut conds: Vec<_> = pod.status.conditions.iter().collect();
    order::sort_by_key(&mut conds, |c| c.type_);
    if kubelet_saw_deletion(store, pod) {
        order::sort_by_key(&mut conds, |c| {
            c.type_ != crate::sim::api::PodConditionType::DisruptionTarget
        });
    }
    conds
}

/// The name of the token volume the ServiceAccount admission plugin adds to a pod
/// (`kube-api-access-` and five random characters, here drawn from the pod's UID so that they
/// stay the same for the pod), or `None` when the pod opts out with
/// `automountServiceAccountToken: false`.
pub(crate) fn service_account_token_volume(pod: &Pod) -> Option<String> {
    if pod.spec.extra.get("automountServiceAccountToken") == Some(&serde_json::Value::Bool(false)) {
        return None;
    }
    let mut h = fingerprint::of(pod.metadata.uid.as_str());
    let mut name = String::from("kube-api-access-");
    for _ in 0..5 {
        let n = SAFE_ALPHANUMS.len() as u64;
        name.push(char::from(SAFE_ALPHANUMS[(h % n) as usize]));
        h /= n;
    }
    Some(name)
}

/// `GetPodQOS` (`ComputePodQOS`): `BestEffort` when no container requests or limits CPU or
/// memory; `Guaranteed` when every container limits both and the summed requests equal the
/// summed limits; `Burstable` otherwise. Zero quantities count as unset.
pub(crate) fn qos_class(spec: &PodSpec) -> &'static str {
    let mut requests: BTreeMap<&'static str, i64> = BTreeMap::new();
    let mut limits: BTreeMap<&'static str, i64> = BTreeMap::new();
    let mut guaranteed = true;
    // The positive CPU and memory amounts of one resource list, in milli-units.
    let amounts = |list: &BTreeMap<String, serde_json::Value>| -> Vec<(&'static str, i64)> {
        ["cpu", "memory"]
            .into_iter()
            .filter_map(|name| {
                let text = quantity::quantity_text(list.get(name)?)?;
                let amount = quantity::parse_milli(&text)?;
                (amount > 0).then_some((name, amount))
            })
            .collect()
    };
    for c in spec.containers.iter().chain(&spec.init_containers) {
        for (name, amount) in amounts(&c.resources.requests) {
            let sum = requests.entry(name).or_insert(0);
            *sum = sum.saturating_add(amount);
        }
        let limited = amounts(&c.resources.limits);
        for &(name, amount) in &limited {
            let sum = limits.entry(name).or_insert(0);
            *sum = sum.saturating_add(amount);
        }
        if limited.len() < 2 {
            guaranteed = false;
        }
    }
    if requests.is_empty() && limits.is_empty() {
        return "BestEffort";
    }
    if guaranteed
        && requests.iter().all(|(k, v)| limits.get(k) == Some(v))
        && requests.len() == limits.len()
    {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

/// A volume's source as `describeVolumes` prints the common kinds (`printEmptyDirVolumeSource`,
/// `printConfigMapVolumeSource`, `printSecretVolumeSource`, `printPersistentVolumeClaimVolumeSource`,
/// `printHostPathVolumeSource`, `printDownwardAPIVolumeSource`, `printNFSVolumeSource`,
/// `printGitRepoVolumeSource`, `printCSIVolumeSource`, `printProjectedVolumeSource`,
/// `printImageVolumeSource`); any other kind gets `describeVolumes`' own `<unknown>` line.
fn volume_source_text(v: &serde_json::Value) -> String {
    if let Some(src) = v.get("emptyDir") {
        let size = match src.get("sizeLimit").and_then(quantity::quantity_text) {
            Some(q) if q != "0" => q.into_owned(),
            _ => "<unset>".to_string(),
        };
        return format!(
            "    Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t{}\n    SizeLimit:\t{size}\n",
            json_str(src, "medium")
        );
    }
    // `printDownwardAPIVolumeSource`: each item as `<field path or resource> -> <file>`.
    if let Some(src) = v.get("downwardAPI") {
        let mut text = String::from(
            "    Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n",
        );
        let items = src.get("items").and_then(serde_json::Value::as_array);
        for item in items.into_iter().flatten() {
            let path = json_str(item, "path");
            for (reference, field) in [("fieldRef", "fieldPath"), ("resourceFieldRef", "resource")]
            {
                if let Some(r) = item.get(reference) {
                    text.push_str(&format!("      {} -> {path}\n", json_str(r, field)));
                }
            }
        }
        return text;
    }
    // Each kind: its field, the Type text, and the lines after it (label, field; the `optional`
    // and `readOnly` flags print `false` when unset).
    type Kind = (
        &'static str,
        &'static str,
        &'static [(&'static str, &'static str)],
    );
    const KINDS: &[Kind] = &[
        (
            "configMap",
            "ConfigMap (a volume populated by a ConfigMap)",
            &[("Name", "name"), ("Optional", "optional")],
        ),
        (
            "secret",
            "Secret (a volume populated by a Secret)",
            &[("SecretName", "secretName"), ("Optional", "optional")],
        ),
        (
            "persistentVolumeClaim",
            "PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
            &[("ClaimName", "claimName"), ("ReadOnly", "readOnly")],
        ),
        (
            "hostPath",
            "HostPath (bare host directory volume)",
            &[("Path", "path"), ("HostPathType", "type")],
        ),
        (
            "nfs",
            "NFS (an NFS mount that lasts the lifetime of a pod)",
            &[
                ("Server", "server"),
                ("Path", "path"),
                ("ReadOnly", "readOnly"),
            ],
        ),
        (
            "gitRepo",
            "GitRepo (a volume that is pulled from git when the pod is created)",
            &[("Repository", "repository"), ("Revision", "revision")],
        ),
        (
            "csi",
            "CSI (a Container Storage Interface (CSI) volume source)",
            &[
                ("Driver", "driver"),
                ("FSType", "fsType"),
                ("ReadOnly", "readOnly"),
            ],
        ),
    ];
    for (key, type_text, lines) in KINDS {
        let Some(src) = v.get(*key) else {
            continue;
        };
        let mut text = format!("    Type:\t{type_text}\n");
        for (label, field) in *lines {
            let value = match *field {
                "optional" | "readOnly" => json_bool(src, field).to_string(),
                _ => json_str(src, field).to_string(),
            };
            text.push_str(&format!("    {label}:\t{value}\n"));
        }
        if *key == "csi" {
            csi_volume_attributes(&mut text, src);
        }
        return text;
    }
    if let Some(src) = v.get("projected") {
        return projected_volume_text(src);
    }
    // `printImageVolumeSource`, with the pull policy the API server defaulted.
    if let Some(src) = v.get("image") {
        let reference = json_str(src, "reference");
        let policy = match json_str(src, "pullPolicy") {
            "" => crate::sim::kubelet::default_pull_policy(reference)
                .as_str()
                .to_string(),
            set => set.to_string(),
        };
        return format!(
            "    Type:\tImage (a container image or OCI artifact)\n    Reference:\t{reference}\n    PullPolicy:\t{policy}\n"
        );
    }
    // The rest of `describeVolumes`' kinds are not modelled; its own fallback is this line.
    "  <unknown>\n".to_string()
}

/// `printProjectedVolumeSource`: the type, then for each source a Secret's or ConfigMap's name
/// and whether it is optional, `DownwardAPI: true`, or a service account token's lifetime (the
/// API server defaults `expirationSeconds` to an hour); other sources print nothing.
fn projected_volume_text(src: &serde_json::Value) -> String {
    let mut text = String::from(
        "    Type:\tProjected (a volume that contains injected data from multiple sources)\n",
    );
    let sources = src.get("sources").and_then(serde_json::Value::as_array);
    for source in sources.into_iter().flatten() {
        if let Some(secret) = source.get("secret") {
            text.push_str(&format!(
                "    SecretName:\t{}\n    Optional:\t{}\n",
                json_str(secret, "name"),
                json_bool(secret, "optional")
            ));
        } else if source.get("downwardAPI").is_some() {
            text.push_str("    DownwardAPI:\ttrue\n");
        } else if let Some(config) = source.get("configMap") {
            text.push_str(&format!(
                "    ConfigMapName:\t{}\n    Optional:\t{}\n",
                json_str(config, "name"),
                json_bool(config, "optional")
            ));
        } else if let Some(token) = source.get("serviceAccountToken") {
            let secs = token
                .get("expirationSeconds")
                .and_then(serde_json::Value::as_i64)
                .unwrap_or(3600);
            text.push_str(&format!("    TokenExpirationSeconds:\t{secs}\n"));
        }
    }
    text
}

/// `printCSIPersistentVolumeAttributesMultiline` for an inline CSI volume: `<none>`, or each
/// attribute as `key=value` in key order, cut to 140 bytes with `...`. Upstream writes each
/// value line through the prefix writer at the volume's level, so even the first one, after the
/// title's tab, starts with four spaces, and the later ones sit behind three writes' indents.
fn csi_volume_attributes(text: &mut String, src: &serde_json::Value) {
    const MAX_ANNOTATION_LEN: usize = 140;
    text.push_str("    VolumeAttributes:\t");
    let attributes = src
        .get("volumeAttributes")
        .and_then(serde_json::Value::as_object)
        .filter(|m| !m.is_empty());
    let Some(attributes) = attributes else {
        text.push_str("<none>\n");
        return;
    };
    // A JSON object's keys come in order already.
    for (i, (key, value)) in attributes.iter().enumerate() {
        if i != 0 {
            text.push_str("        \t");
        }
        let line = format!("{key}={}", value.as_str().unwrap_or(""));
        match line.get(..MAX_ANNOTATION_LEN) {
            Some(cut) if line.len() > MAX_ANNOTATION_LEN => {
                text.push_str(&format!("    {cut}...\n"));
            }
            _ => text.push_str(&format!("    {line}\n")),
        }
    }
}

/// A toleration as `printPodTolerationsMultiline` writes it: `key[=value][:effect]`, ` op=Exists`
/// for an Exists toleration without a value, ` for <n>s` with a toleration time.
fn toleration_text(t: &serde_json::Value) -> String {
    let (key, value, effect) = (
        json_str(t, "key"),
        json_str(t, "value"),
        json_str(t, "effect"),
    );
    let mut text = key.to_string();
    if !value.is_empty() {
        text.push_str(&format!("={value}"));
    }
    if !effect.is_empty() {
        text.push_str(&format!(":{effect}"));
    }
    if json_str(t, "operator") == "Exists" && value.is_empty() {
        if key.is_empty() && effect.is_empty() {
            text.push_str("op=Exists");
        } else {
            text.push_str(" op=Exists");
        }
    }
    if let Some(secs) = t
        .get("tolerationSeconds")
        .and_then(serde_json::Value::as_i64)
    {
        text.push_str(&format!(" for {secs}s"));
    }
    text
}

/// The `Events:` section for one object, as `DescribeEvents` prints the events `searchEvents`
/// found for its kind and name.
fn describe_events_of(o: &mut String, steps: &[Step], kind: &str, name: &str, now: Time) {
    let events: Vec<EventRecord> = event_records(steps, now)
        .into_iter()
        .filter(|r| r.event.involved_object.kind == kind && r.event.involved_object.name == name)
        .collect();
    describe_events(o, events, now);
}

/// The `Conditions:` table of a controller (`Type`, `Status`, `Reason`, with the space kubectl
/// leaves after the type), printed only when there are conditions.
fn describe_controller_conditions<'a>(
    o: &mut String,
    conditions: impl ExactSizeIterator<Item = (&'a str, &'a str, &'a str)>,
) {
    if conditions.len() == 0 {
        return;
    }
    o.push_str("Conditions:\n  Type\tStatus\tReason\n");
    o.push_str("  ----\t------\t------\n");
    for (type_, status, reason) in conditions {
        o.push_str(&format!("  {type_} \t{status}\t{reason}\n"));
    }
}

/// The `Events:` block of `kubectl describe` (`DescribeEvents`): `Events:\t<none>`, or the
/// events by last time seen with Type, Reason, Age (`<last> (x<n> over <first>)` for repeats),
/// From (the source component) and Message (v1.35: prefixed by a container's field path).
fn describe_events(o: &mut String, mut events: Vec<EventRecord>, now: Time) {
    // `SortableEvents` sorts by `lastTimestamp`, which an events.k8s.io record (the
    // scheduler's) leaves unset: those come first.
    order::sort_by_key(&mut events, |r| {
        r.micro_last.map_or(r.last_timestamp, |_| Time::ZERO)
    });
    if events.is_empty() {
        o.push_str("Events:\t<none>\n");
        return;
    }
    o.push_str("Events:\n");
    o.push_str("  Type\tReason\tAge\tFrom\tMessage\n");
    o.push_str("  ----\t------\t----\t----\t-------\n");
    for r in &events {
        let age = events_interval(r, now);
        o.push_str(&format!(
            "  {}\t{}\t{age}\t{}\t{}\n",
            r.event.type_.as_str(),
            r.event.reason.as_str(),
            source_component(&r.event),
            describe_message(&r.event)
        ));
    }
}

/// `kubectl describe deployment NAME` (the `DeploymentDescriber`, kubectl v1.35) at the
/// simulator's current moment: metadata, the Replicas line (`desired | updated | total |
/// available | unavailable`), the strategy, the pod template, the conditions with their reasons,
/// the old and new ReplicaSets (`name (status/spec replicas created)`, old ones oldest first,
/// those scaled to zero included) and the Deployment's events. Wall-clock dates are shown as
/// simulated times.
///
/// # Errors
/// `Error from server (NotFound): deployments.apps "<name>" not found`.
pub fn describe_deployment(m: &Moment<'_>, name: &str) -> Result<String, String> {
    let (sim, steps, now) = (m.sim, m.steps, m.now);
    let Some(d) = sim.deployment(name) else {
        return Err(not_found("deployments.apps", name));
    };
    let mut o = String::new();
    o.push_str(&format!("Name:\t{}\n", d.metadata.name));
    o.push_str("Namespace:\tdefault\n");
    o.push_str(&format!(
        "CreationTimestamp:\t{}\n",
        d.metadata.creation_timestamp.rfc1123z()
    ));
    describe_labels(&mut o, "Labels", &d.metadata.labels);
    describe_annotations(&mut o, "Annotations", &d.metadata.annotations);
    o.push_str(&format!(
        "Selector:\t{}\n",
        d.spec
            .selector
            .as_ref()
            .map_or_else(String::new, LabelSelector::to_selector_string)
    ));
    o.push_str(&format!(
        "Replicas:\t{} desired | {} updated | {} total | {} available | {} unavailable\n",
        d.replicas(),
        d.status.updated_replicas,
        d.status.replicas,
        d.status.available_replicas,
        d.status.unavailable_replicas
    ));
    o.push_str(&format!("StrategyType:\t{}\n", d.strategy_type().as_str()));
    o.push_str(&format!("MinReadySeconds:\t{}\n", d.spec.min_ready_seconds));
    if let Some(ru) = &d.spec.strategy.rolling_update {
        let text = |v: &Option<IntOrString>| v.as_ref().map_or_else(String::new, |v| v.to_string());
        o.push_str(&format!(
            "RollingUpdateStrategy:\t{} max unavailable, {} max surge\n",
            text(&ru.max_unavailable),
            text(&ru.max_surge)
        ));
    }
    describe_pod_template(&mut o, &d.spec.template);
    describe_controller_conditions(
        &mut o,
        d.status
            .conditions
            .iter()
            .map(|c| (c.type_.as_str(), c.status.as_str(), c.reason.as_str())),
    );
    let rss = replica_sets_by_age(sim, d);
    if !rss.is_empty() {
        let new = find_new_replica_set(d, &rss);
        let created = |rs: &ReplicaSet| {
            format!(
                "{} ({}/{} replicas created)",
                rs.metadata.name, rs.status.replicas, rs.spec.replicas
            )
        };
        let list = |it: Vec<String>| {
            if it.is_empty() {
                "<none>".to_string()
            } else {
                it.join(", ")
            }
        };
        // Every old ReplicaSet, the emptied ones too, oldest first: `describe` takes the second
        // list of `GetAllReplicaSetsInChunks` (all old ReplicaSets), not the first (those that
        // still want pods), since kubernetes/kubernetes#113083 (v1.27).
        let old: Vec<String> = rss
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != new)
            .map(|(_, rs)| created(rs))
            .collect();
        o.push_str(&format!("OldReplicaSets:\t{}\n", list(old)));
        let new: Vec<String> = new
            .and_then(|i| rss.get(i))
            .map(created)
            .into_iter()
            .collect();
        o.push_str(&format!("NewReplicaSet:\t{}\n", list(new)));
    }
    describe_events_of(&mut o, steps, "Deployment", name, now);
    Ok(tabwrite(&o, 0, 2))
}

/// The name of the Deployment's new ReplicaSet (the one whose template is the Deployment's),
/// if it has one yet: the ReplicaSet a learner describes to see the rollout's side of it.
pub fn new_replica_set_name(sim: &Sim, deployment: &str) -> Option<String> {
    let d = sim.deployment(deployment)?;
    let rss = replica_sets_by_age(sim, d);
    let new = find_new_replica_set(d, &rss)?;
    rss.get(new).map(|rs| rs.metadata.name.clone())
}

/// The ReplicaSets the Deployment controls, oldest first (`ReplicaSetsByCreationTimestamp`), the
/// order in which `FindNewReplicaSet` picks among equal templates.
fn replica_sets_by_age(sim: &Sim, d: &Deployment) -> Vec<ReplicaSet> {
    let mut rss: Vec<ReplicaSet> = sim
        .store()
        .replica_sets_owned_by(&d.metadata.uid)
        .cloned()
        .collect();
    order::sort_by(&mut rss, by_creation_timestamp);
    rss
}

/// `kubectl describe pdb NAME` (kubectl's `describePodDisruptionBudgetV1`): the bound the budget
/// sets, its selector, its status counts (`Allowed disruptions`, `Current`, `Desired`, `Total`)
/// and its events.
///
/// # Errors
/// `Error from server (NotFound): poddisruptionbudgets.policy "<name>" not found`.
pub fn describe_disruption_budget(m: &Moment<'_>, name: &str) -> Result<String, String> {
    let Some(b) = m.sim.store().pdbs.get(name) else {
        return Err(not_found("poddisruptionbudgets.policy", name));
    };
    let mut o = String::new();
    o.push_str(&format!("Name:\t{}\n", b.metadata.name));
    o.push_str("Namespace:\tdefault\n");
    if let Some(min) = &b.spec.min_available {
        o.push_str(&format!("Min available:\t{min}\n"));
    } else if let Some(max) = &b.spec.max_unavailable {
        o.push_str(&format!("Max unavailable:\t{max}\n"));
    }
    // A missing selector prints `<unset>`; `{}` prints `<none>` (`FormatLabelSelector`).
    let selector = match &b.spec.selector {
        None => "<unset>".to_string(),
        Some(s) if s.is_empty() => "<none>".to_string(),
        Some(s) => s.to_selector_string(),
    };
    o.push_str(&format!("Selector:\t{selector}\n"));
    let st = &b.status;
    o.push_str("Status:\n");
    o.push_str(&format!(
        "    Allowed disruptions:\t{}\n",
        st.disruptions_allowed
    ));
    o.push_str(&format!("    Current:\t{}\n", st.current_healthy));
    o.push_str(&format!("    Desired:\t{}\n", st.desired_healthy));
    o.push_str(&format!("    Total:\t{}\n", st.expected_pods));
    describe_events_of(&mut o, m.steps, "PodDisruptionBudget", name, m.now);
    Ok(tabwrite(&o, 0, 2))
}

/// `kubectl describe replicaset NAME` (`describeReplicaSet`, kubectl v1.35) at the simulator's
/// current moment: name, selector, labels and annotations (the revision and the desired/max
/// replicas the Deployment controller wrote), the controlling Deployment, `current / desired`
/// replicas, the phases of the pods it controls, its pod template, its conditions (a
/// `ReplicaFailure` when pods could not be created) and its events.
///
/// `Pods Status` counts, as `getPodStatusForController` does, every pod whose controller
/// reference is this ReplicaSet, terminating ones included, by phase: Running, Pending as
/// Waiting, Succeeded and Failed (an Unknown phase counts nowhere).
///
/// # Errors
/// `Error from server (NotFound): replicasets.apps "<name>" not found`.
pub fn describe_replica_set(m: &Moment<'_>, name: &str) -> Result<String, String> {
    let (sim, steps, now) = (m.sim, m.steps, m.now);
    let Some(rs) = sim.store().replica_sets.get(name) else {
        return Err(not_found("replicasets.apps", name));
    };
    let mut o = String::new();
    o.push_str(&format!("Name:\t{}\n", rs.metadata.name));
    o.push_str("Namespace:\tdefault\n");
    o.push_str(&format!(
        "Selector:\t{}\n",
        rs.spec.selector.to_selector_string()
    ));
    describe_labels(&mut o, "Labels", &rs.metadata.labels);
    describe_annotations(&mut o, "Annotations", &rs.metadata.annotations);
    if let Some(r) = rs.metadata.controller_ref() {
        o.push_str(&format!("Controlled By:\t{}/{}\n", r.kind, r.name));
    }
    o.push_str(&format!(
        "Replicas:\t{} current / {} desired\n",
        rs.status.replicas, rs.spec.replicas
    ));
    let mut phases = [0usize; 4];
    for pod in sim.store().pods_owned_by(&rs.metadata.uid) {
        let slot = match pod.status.phase {
            PodPhase::Running => 0,
            PodPhase::Pending => 1,
            PodPhase::Succeeded => 2,
            PodPhase::Failed => 3,
            PodPhase::Unknown => continue,
        };
        phases[slot] += 1;
    }
    let [running, waiting, succeeded, failed] = phases;
    o.push_str(&format!(
        "Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed\n"
    ));
    describe_pod_template(&mut o, &rs.spec.template);
    describe_controller_conditions(
        &mut o,
        rs.status
            .conditions
            .iter()
            .map(|c| (c.type_.as_str(), c.status.as_str(), c.reason.as_str())),
    );
    describe_events_of(&mut o, steps, "ReplicaSet", name, now);
    Ok(tabwrite(&o, 0, 2))
}

/// `kubectl rollout history deployment/<name>`: `DeploymentHistoryViewer.ViewHistory`
/// (`polymorphichelpers/history.go`) printed through kubectl's name printer, whose operation is
/// the history text, so the first line is `deployment.apps/<name> ` with its trailing space and
/// the table ends with a blank line. Each ReplicaSet the Deployment controls is a revision (its
/// revision annotation; missing counts as 0, a non-number is skipped), and CHANGE-CAUSE is its
/// `kubernetes.io/change-cause` annotation, which the controller copied from the Deployment.
///
/// With `--revision=N` (`revision` Some(N), N > 0) it prints that revision's pod template
/// instead, as `DescribePodTemplate` writes it into a plain buffer: no tab writer, so the tabs
/// stay as they are. The template is the ReplicaSet's (with its `pod-template-hash` label),
/// carrying the change cause as an annotation when there is one.
///
/// # Errors
/// `Error from server (NotFound): deployments.apps "<name>" not found`, or `error: unable to
/// find the specified revision`.
pub fn rollout_history(sim: &Sim, name: &str, revision: Option<i64>) -> Result<String, String> {
    let Some(d) = sim.deployment(name) else {
        return Err(not_found("deployments.apps", name));
    };
    let mut revisions: BTreeMap<i64, &ReplicaSet> = BTreeMap::new();
    for rs in sim.store().replica_sets_owned_by(&d.metadata.uid) {
        let revision = match rs.metadata.annotations.get(REVISION_ANNOTATION) {
            None => 0,
            Some(v) => match v.parse::<i64>() {
                Ok(r) => r,
                Err(_) => continue,
            },
        };
        revisions.insert(revision, rs);
    }
    let cause_of = |rs: &ReplicaSet| {
        rs.metadata
            .annotations
            .get(CHANGE_CAUSE_ANNOTATION)
            .cloned()
            .unwrap_or_default()
    };
    // `RolloutHistoryOptions.Validate`, then the header kubectl builds before it looks.
    if let Some(n) = revision.filter(|n| *n < 0) {
        return Err(format!("error: revision must be a positive integer: {n}"));
    }
    let wanted = revision.filter(|n| *n > 0);
    let with_revision = match wanted {
        Some(n) => format!("with revision #{n}"),
        None => String::new(),
    };
    if revisions.is_empty() {
        return Ok(format!(
            "deployment.apps/{name} {with_revision}\nNo rollout history found.\n"
        ));
    }
    if let Some(n) = wanted {
        let rs = revisions
            .get(&n)
            .ok_or_else(|| "error: unable to find the specified revision".to_string())?;
        let mut template = rs.spec.template.clone();
        let cause = cause_of(rs);
        if !cause.is_empty() {
            template
                .metadata
                .annotations
                .insert(CHANGE_CAUSE_ANNOTATION.to_string(), cause);
        }
        let mut text = String::new();
        describe_pod_template(&mut text, &template);
        return Ok(format!(
            "deployment.apps/{name} with revision #{n}\n{text}\n"
        ));
    }
    let head = format!("deployment.apps/{name} \n");
    let mut table = String::from("REVISION\tCHANGE-CAUSE\n");
    for (revision, rs) in revisions {
        let cause = cause_of(rs);
        let cause = if cause.is_empty() { "<none>" } else { &cause };
        table.push_str(&format!("{revision}\t{cause}\n"));
    }
    Ok(format!("{head}{}\n", tabwrite(&table, 0, 2)))
}

/// `kubernetes.io/change-cause`, the annotation `rollout history` shows as CHANGE-CAUSE.
pub const CHANGE_CAUSE_ANNOTATION: &str = "kubernetes.io/change-cause";

/// Whether the pod is Running but a container waits to be restarted (kubectl shows
/// `CrashLoopBackOff` while the phase stays Running).
pub fn is_crash_looping(pod: &Pod) -> bool {
    pod.status.phase == PodPhase::Running
        && pod.status.container_statuses.iter().any(|c| {
            matches!(&c.state, ContainerState::Waiting { reason, .. } if reason == "CrashLoopBackOff")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `describeVolumes` for the kinds past the common ones, as upstream's printers write them
    /// (before the tab writer aligns them).
    #[test]
    fn more_volume_kinds_print_as_describe_volumes_does() {
        let text = |v: serde_json::Value| volume_source_text(&v);
        assert_eq!(
            text(serde_json::json!({"name": "p", "projected": {"sources": [
                {"secret": {"name": "s1"}},
                {"configMap": {"name": "c1", "optional": true}},
                {"downwardAPI": {"items": []}},
                {"serviceAccountToken": {"path": "token", "expirationSeconds": 7200}},
            ]}})),
            "    Type:\tProjected (a volume that contains injected data from multiple sources)\n    SecretName:\ts1\n    Optional:\tfalse\n    ConfigMapName:\tc1\n    Optional:\ttrue\n    DownwardAPI:\ttrue\n    TokenExpirationSeconds:\t7200\n"
        );
        assert_eq!(
            text(serde_json::json!({"name": "n", "nfs": {"server": "nfs", "path": "/x"}})),
            "    Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n    Server:\tnfs\n    Path:\t/x\n    ReadOnly:\tfalse\n"
        );
        assert_eq!(
            text(
                serde_json::json!({"name": "c", "csi": {"driver": "d", "volumeAttributes": {"z": "1", "a": "2"}}})
            ),
            "    Type:\tCSI (a Container Storage Interface (CSI) volume source)\n    Driver:\td\n    FSType:\t\n    ReadOnly:\tfalse\n    VolumeAttributes:\t    a=2\n        \t    z=1\n"
        );
        assert!(
            text(serde_json::json!({"name": "c", "csi": {"driver": "d"}}))
                .ends_with("    VolumeAttributes:\t<none>\n")
        );
        assert_eq!(
            text(serde_json::json!({"name": "i", "image": {"reference": "data"}})),
            "    Type:\tImage (a container image or OCI artifact)\n    Reference:\tdata\n    PullPolicy:\tAlways\n"
        );
        assert_eq!(
            text(serde_json::json!({"name": "f", "fc": {"lun": 2}})),
            "  <unknown>\n"
        );
    }

    /// What `url.URL{Scheme, Host: net.JoinHostPort(h, p), Path}.String()` gives in Go.
    #[test]
    fn an_http_probe_url_is_built_as_go_builds_it() {
        for ((scheme, host, port, path), want) in [
            (("http", "", "8080", "/healthz"), "http://:8080/healthz"),
            (("http", "", "8080", "/"), "http://:8080/"),
            (
                ("https", "10.0.0.1", "http", "healthz"),
                "https://10.0.0.1:http/healthz",
            ),
            (
                ("http", "::1", "8080", "healthz"),
                "http://[::1]:8080/healthz",
            ),
            (
                ("http", "", "8080", "/healthz?verbose=1"),
                "http://:8080/healthz%3Fverbose=1",
            ),
            (
                ("http", "", "80", "/a b#f(!)*'~$&+,;=:@"),
                "http://:80/a%20b%23f%28%21%29%2A%27~$&+,;=:@",
            ),
            (("http", "", "80", "/é%"), "http://:80/%C3%A9%25"),
            (("http", "", "80", ""), "http://:80"),
        ] {
            assert_eq!(go_url(scheme, host, port, path), want, "{path:?}");
        }
    }

    #[test]
    fn human_duration_matches_kubectl() {
        for (secs, want) in [
            (0, "0s"),
            (45, "45s"),
            (119, "119s"),
            (130, "2m10s"),
            (300, "5m"),
            (660, "11m"),
            (3 * 3600 + 300, "3h5m"),
            (9 * 3600, "9h"),
            (50 * 3600, "2d2h"),
        ] {
            assert_eq!(human_duration(secs * 1000), want, "{secs}s");
        }
    }

    #[test]
    fn tabwriter_pads_columns_but_not_the_last_cell() {
        // kubectl's printers: minwidth 6, padding 3 (`READY` + 3 spaces, as a real cluster
        // prints `NAME    READY   STATUS    RESTARTS   AGE`).
        let t = tabwrite("NAME\tREADY\tAGE\nweb-1234567890\t1/1\t5s\n", 6, 3);
        assert_eq!(
            t,
            "NAME             READY   AGE\nweb-1234567890   1/1     5s\n"
        );
    }
}
