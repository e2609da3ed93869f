//! The kubelet: the node agent that pulls images, starts and restarts containers, runs probes and
//! reports pod status (`pkg/kubelet`). Each call handles one kubelet action for one pod and, like
//! the controllers, returns an [`Outcome`] instead of mutating the store.
//!
//! What an application does once started is described by the scenario's image behaviours
//! ([`ImageBehavior`]): when it starts listening, whether readiness ever passes, when it crashes.

pub mod images;
pub mod probes;
pub mod status;

use crate::sim::api::{
    Container, ContainerState, ContainerStatus, Event, EventReason, EventType, Node, ObjectRef,
    Pod, PodPhase, PodStatus, PullPolicy, Time,
};
use crate::sim::controller::{Change, ObjectName, Outcome, ProbeKind, Work};
use crate::sim::rng::Rng;
use crate::sim::store::{PodName, Store};
use crate::sim::trace::Stage;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

pub use images::{Backoff, go_duration};

/// The component name on kubelet events (`kubelet` from `<node>`).
pub const COMPONENT: &str = "kubelet";
/// The kubelet's restart back-off: 10 s doubling to 300 s (`MaxContainerBackOff`).
pub const BACKOFF_INITIAL_MS: u64 = 10_000;
/// The back-off cap.
pub const BACKOFF_MAX_MS: u64 = 300_000;
/// The pod worker's retry period after a failed sync (`backOffPeriod`), jittered by up to 50%.
pub const POD_WORKER_BACKOFF_MS: u64 = 10_000;
/// The pod worker's resync cap when waiting for a crash-loop back-off to expire.
pub const POD_WORKER_RESYNC_MS: u64 = 60_000;

/// Whether an application's readiness endpoint ever succeeds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadyBehavior {
    Always,
    Never,
    /// Readiness passes this long after the container starts.
    AfterMs(u64),
}

/// How one image behaves on the simulated nodes and registry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageBehavior {
    /// Whether the registry serves the image.
    pub pull_ok: bool,
    /// The error a failed pull reports; `None` gives containerd's "not found" text.
    pub pull_error: Option<String>,
    pub pull_time_ms: u64,
    pub size_bytes: u64,
    /// When the process starts answering on its port, after container start.
    pub listen_after_ms: u64,
    pub ready: ReadyBehavior,
    /// When the process exits on its own, after container start.
    pub crash_after_ms: Option<u64>,
    pub exit_code: i32,
    /// When the process finishes its work and exits with code 0, after container start.
    #[serde(default)]
    pub complete_after_ms: Option<u64>,
    /// How long the process takes to exit after SIGTERM; `None` means it ignores SIGTERM and is
    /// killed when the grace period ends.
    pub shutdown_ms: Option<u64>,
    /// The exit code of the process when it exits after SIGTERM within the grace period: 143
    /// (128 + 15, how most runtimes' default handlers end), or 0 for an app that shuts down
    /// cleanly, whose deleted pod then ends `Completed` rather than `Error`.
    #[serde(default = "probes::sigterm_exit_code")]
    pub shutdown_exit_code: i32,
    /// How long the app takes to answer a probe request once it listens; a probe whose
    /// `timeoutSeconds` is shorter fails with a timeout.
    pub response_ms: u64,
    /// What an exec probe's command prints when it fails (`cat: can't open '/tmp/healthy': No
    /// such file or directory`), which the kubelet puts after `probe failed: ` in its
    /// `Unhealthy` event; empty when the scenario does not say, as for a silent command.
    #[serde(default)]
    pub exec_output: String,
    /// The numeric user the image runs its process as (its `USER`): 0, root, unless the
    /// scenario says otherwise. `runAsNonRoot` checks it.
    #[serde(default)]
    pub user: i64,
}

impl Default for ImageBehavior {
    fn default() -> Self {
        ImageBehavior {
            pull_ok: true,
            pull_error: None,
            pull_time_ms: 1000,
            size_bytes: 0,
            listen_after_ms: 0,
            ready: ReadyBehavior::Always,
            crash_after_ms: None,
            exit_code: 1,
            complete_after_ms: None,
            shutdown_ms: None,
            shutdown_exit_code: probes::SIGTERM_EXIT_CODE,
            response_ms: 0,
            exec_output: String::new(),
            user: 0,
        }
    }
}

/// How long an init container runs when its image says nothing of when it exits: a short task
/// (a migration, a wait that finds its service at once) that finishes in a second.
pub const INIT_CONTAINER_DEFAULT_RUN_MS: u64 = 1000;

impl ImageBehavior {
    /// When a container of this image exits on its own after it starts, and with which code:
    /// at `crash_after` with `exit_code`, or at `complete_after` with 0, whichever comes first.
    /// A container that `runs_to_completion` (an init container that is not a sidecar) with
    /// neither finishes after [`INIT_CONTAINER_DEFAULT_RUN_MS`]; any other runs until stopped.
    pub fn exit_plan(&self, runs_to_completion: bool) -> Option<(u64, i32)> {
        let crash = self.crash_after_ms.map(|t| (t, self.exit_code));
        let complete = self.complete_after_ms.map(|t| (t, 0));
        match (crash, complete) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (Some(a), None) => Some(a),
            (None, Some(b)) => Some(b),
            (None, None) => runs_to_completion.then_some((INIT_CONTAINER_DEFAULT_RUN_MS, 0)),
        }
    }
}

/// What a container's environment needs and the namespace lacks: a ConfigMap or Secret, or one
/// key in it. Displayed in the kubelet's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigProblem {
    pub secret: bool,
    pub name: String,
    /// The missing key, when the object is there.
    pub key: Option<String>,
}

impl std::fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lower = crate::sim::commands::config_kind(self.secret);
        let upper = if self.secret { "Secret" } else { "ConfigMap" };
        match &self.key {
            Some(key) => write!(
                f,
                "couldn't find key {key} in {upper} default/{}",
                self.name
            ),
            None => write!(f, "{lower} {:?} not found", self.name),
        }
    }
}

/// The references of container `c`'s environment, in the kubelet's order (`envFrom`, then
/// `env`): whether a Secret, the object's name, the key (`None` for a whole `envFrom` source)
/// and whether the reference is optional.
fn config_refs(c: &Container) -> Vec<(bool, String, Option<String>, bool)> {
    let optional = |r: &Value| r.get("optional").and_then(Value::as_bool) == Some(true);
    let name_of = |r: &Value| {
        r.get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let items = |field: &str| {
        c.extra
            .get(field)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    };
    let mut out = Vec::new();
    for from in items("envFrom") {
        for (field, secret) in [("configMapRef", false), ("secretRef", true)] {
            if let Some(r) = from.get(field) {
                out.push((secret, name_of(r), None, optional(r)));
            }
        }
    }
    for value_from in items("env").filter_map(|e| e.get("valueFrom")) {
        for (field, secret) in [("configMapKeyRef", false), ("secretKeyRef", true)] {
            if let Some(r) = value_from.get(field) {
                let key = r
                    .get("key")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                out.push((secret, name_of(r), Some(key), optional(r)));
            }
        }
    }
    out
}

/// Why the kubelet cannot build container `c`'s environment (`makeEnvironmentVariables`), or
/// `None` if every ConfigMap and Secret it needs is there. The first problem wins; a reference
/// marked `optional: true` is skipped when its object or key is missing.
pub fn missing_config(store: &Store, c: &Container) -> Option<ConfigProblem> {
    config_refs(c)
        .into_iter()
        .filter(|(_, _, _, optional)| !optional)
        .find_map(
            |(secret, name, key, _)| match store.config_object(secret, &name) {
                None => Some(ConfigProblem {
                    secret,
                    name,
                    key: None,
                }),
                Some(keys) => key.filter(|k| !keys.contains(k)).map(|k| ConfigProblem {
                    secret,
                    name: name.clone(),
                    key: Some(k),
                }),
            },
        )
}

/// A `securityContext` field of the container, else of the pod
/// (`DetermineEffectiveSecurityContext`).
pub fn effective_security_field<'a>(
    pod: &'a Pod,
    c: &'a Container,
    key: &str,
) -> Option<&'a Value> {
    c.extra
        .get("securityContext")
        .and_then(|sc| sc.get(key))
        .or_else(|| {
            pod.spec
                .extra
                .get("securityContext")
                .and_then(|sc| sc.get(key))
        })
}

/// `verifyRunAsNonRoot`: with `runAsNonRoot: true`, a `runAsUser` of 0, or without one an image
/// that runs as root (`image_user` 0), keeps the container from being created.
pub fn run_as_non_root_error(pod: &Pod, c: &Container, image_user: i64) -> Option<String> {
    let non_root = effective_security_field(pod, c, "runAsNonRoot").and_then(Value::as_bool);
    if non_root != Some(true) {
        return None;
    }
    let who = format!("(pod: {:?}, container: {})", format_pod(pod), c.name);
    match effective_security_field(pod, c, "runAsUser").and_then(Value::as_i64) {
        Some(0) => Some(format!(
            "container's runAsUser breaks non-root policy {who}"
        )),
        Some(_) => None,
        None if image_user == 0 => Some(format!(
            "container has runAsNonRoot and image will run as root {who}"
        )),
        None => None,
    }
}

/// Every data key the pod's containers read one by one from the ConfigMap (or Secret) `name`:
/// what creating it must hold for all of them to start.
pub fn keys_read(spec: &crate::sim::api::PodSpec, secret: bool, name: &str) -> BTreeSet<String> {
    spec.init_containers
        .iter()
        .chain(&spec.containers)
        .flat_map(config_refs)
        .filter(|(s, n, _, _)| *s == secret && n == name)
        .filter_map(|(_, _, key, _)| key)
        .collect()
}

/// The world outside the control plane: image behaviours by image reference, and the
/// ConfigMaps and Secrets the scenario starts with.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct World {
    pub images: BTreeMap<String, ImageBehavior>,
    /// The ConfigMaps the namespace starts with, by name, with their data keys. They are API
    /// objects: a run copies them into its store ([`Store::config_object`]), which is what the
    /// kubelet reads and what `kubectl create configmap` adds to.
    #[serde(default)]
    pub config_maps: BTreeMap<String, BTreeSet<String>>,
    /// The Secrets the namespace starts with, the same way.
    #[serde(default)]
    pub secrets: BTreeMap<String, BTreeSet<String>>,
}

impl World {
    /// The behaviour of an image; unlisted images pull in 1 s and serve fine.
    pub fn image(&self, image: &str) -> ImageBehavior {
        self.behavior(image).into_owned()
    }

    /// The behaviour of an image, borrowed when the scenario lists it: the probe workers ask
    /// on every tick.
    pub fn behavior(&self, image: &str) -> Cow<'_, ImageBehavior> {
        match self.images.get(image) {
            Some(b) => Cow::Borrowed(b),
            None => Cow::Owned(ImageBehavior {
                size_bytes: images::default_size(image),
                ..Default::default()
            }),
        }
    }
}

/// One probe worker (`pkg/kubelet/prober/worker.go`). It lives as long as the pod: a new
/// container ID only resets its result and lifts its hold (§15.4); its count of equal results
/// and its tick times carry on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeWorker {
    /// The last published result for the current container: `None` is the initial value.
    pub result: Option<bool>,
    pub last_run: Option<bool>,
    pub run_count: i32,
    pub on_hold: bool,
    /// The result of the most recent probe run, for display (pass / fail).
    pub last_observed: Option<bool>,
    /// The worker's first tick, from which it ticks every `periodSeconds` (kept for liveness and
    /// startup workers; see [`probes::add_pod`]).
    #[serde(default)]
    pub ticks_from: Option<Time>,
    /// How many times a triggered run has restarted the worker's ticker (readiness only): a
    /// tick carries the count it was scheduled under, and one from an earlier ticker is dropped.
    #[serde(default)]
    pub ticker: u16,
    /// The next run is one the pod's status computation triggered (`UpdatePodStatus`), not a
    /// tick of the worker's period; for the narration.
    #[serde(default)]
    pub triggered: bool,
    /// A triggered run is still to come (`manualTriggerCh`, which holds one, is full): another
    /// trigger now changes nothing.
    #[serde(default)]
    pub trigger_pending: bool,
    /// The worker has seen the current container's ID, and so has set its initial result.
    #[serde(default)]
    pub has_id: bool,
    /// The container has stopped, and this worker's next tick will find it not running and set
    /// its result to Failure (`doProbe`), a change from the Success it had: the results
    /// manager's update prompts a sync of the pod (`handleProbeSync`).
    #[serde(default)]
    pub fails_on_stop: bool,
    /// A probe run under way: the worker waits for the app's answer (or the timeout) before it
    /// counts the result, and ticks nothing meanwhile.
    #[serde(default)]
    pub in_flight: Option<RunInFlight>,
    /// The ticker's next tick after a run that held a tick: Go's ticker keeps its schedule, so
    /// the run that takes the held tick is followed by this one, not by a period after it.
    #[serde(default)]
    pub grid_next: Option<Time>,
    /// A tick or a trigger came during that run: Go's ticker channel (or `manualTriggerCh`)
    /// holds it, so the next run starts as soon as this one ends.
    #[serde(default)]
    pub run_queued: bool,
    /// A readiness worker a restarted kubelet made first sleeps a random part of its period
    /// (`worker.run`) and runs nothing before this; a trigger meanwhile waits for it.
    #[serde(default)]
    pub held_until: Option<Time>,
}

/// A probe run that takes time ([`probes::run_duration_ms`]), from its start to its end.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInFlight {
    /// When it started.
    pub started: Time,
    /// When the worker's ticker ticks next, from the run's start.
    pub on_schedule: Time,
    /// The pod's status computation triggered it (for the narration).
    pub triggered: bool,
    /// What it found: the app as it was when the run began decides the answer it waits for.
    pub ok: bool,
    pub output: String,
}

impl ProbeWorker {
    /// What a new container ID does to the worker: its result goes back to the initial value
    /// and it probes again if it was on hold.
    fn new_container(&mut self) {
        self.result = None;
        self.on_hold = false;
        self.last_observed = None;
        self.triggered = false;
        self.trigger_pending = false;
        self.has_id = false;
        self.fails_on_stop = false;
        self.in_flight = None;
        self.grid_next = None;
        self.run_queued = false;
    }
}

/// Node-local state for one container.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerRuntime {
    /// Increments on every (re)start: the container ID.
    pub instance: u32,
    /// The exit code `begin_termination` worked out for this container's end: the image's
    /// `shutdown_exit_code` if it exits within its share of the grace period, else 137.
    #[serde(default)]
    pub termination_exit: Option<i32>,
    /// When this container stops in the pod's termination, as planned.
    #[serde(default)]
    pub stops_at: Option<Time>,
    pub pull_started: Option<Time>,
    /// How long the pull itself takes once the puller is free.
    pub pull_ms: u64,
    /// When the pull under way ends. A completion queued for an earlier pull (one a kubelet
    /// that stopped had begun, due before this one) finds it later and waits for it.
    #[serde(default)]
    pub pull_done: Option<Time>,
    pub running_since: Option<Time>,
    /// Startup probe passed (or there is none).
    pub started: bool,
    pub startup: ProbeWorker,
    pub readiness: ProbeWorker,
    pub liveness: ProbeWorker,
    pub crash_backoff: Option<Backoff>,
    /// When the last instance exited, as the container runtime reports it (full precision; the
    /// API status rounds to seconds). The crash-loop back-off is measured from here.
    pub finished_at: Option<Time>,
    /// Why the current instance is being killed (liveness or startup failure).
    pub killing: Option<ProbeKind>,
    /// When the kubelet sent that kill's SIGTERM: its process ends a set time later.
    #[serde(default)]
    pub killed_at: Option<Time>,
    /// The container has started in a sync that has not ended yet (it goes on to pull the
    /// images of the containers after it): the pod status, which gives the probe workers the
    /// container's ID, is written only when the pod worker next syncs the pod.
    #[serde(default)]
    pub unpublished: bool,
    /// Why the last sync did not start the stopped container (the kubelet's `reasonCache`): a
    /// waiting reason and message that the pod's status shows from its next computation on,
    /// since a sync computes the status before it acts (`generateAPIPodStatus` comes before the
    /// runtime's `SyncPod`). Cleared when the container starts.
    #[serde(default)]
    pub reason_cache: Option<(String, String)>,
}

impl ContainerRuntime {
    /// A kill after a failed probe is under way: SIGTERM sent, the process not yet exited.
    pub fn kill_in_flight(&self) -> bool {
        self.killing.is_some() && self.killed_at.is_some() && self.running_since.is_some()
    }

    /// A failed probe asked for a kill that waits for the pod worker: no SIGTERM yet.
    pub fn kill_waiting(&self) -> bool {
        self.killing.is_some() && self.killed_at.is_none() && self.running_since.is_some()
    }

    /// The worker for a probe type, to read.
    pub fn probe_worker(&self, kind: ProbeKind) -> &ProbeWorker {
        match kind {
            ProbeKind::Startup => &self.startup,
            ProbeKind::Readiness => &self.readiness,
            ProbeKind::Liveness => &self.liveness,
        }
    }

    /// The ticker a probe type's worker ticks under now.
    pub fn worker_ticker(&self, kind: ProbeKind) -> u16 {
        self.probe_worker(kind).ticker
    }

    /// Whether a probe tick belongs to this container instance and to its worker's current
    /// ticker: a tick of a replaced container, or of a ticker a triggered run restarted, is
    /// dropped.
    fn is_current_tick(&self, target: &ProbeTarget<'_>) -> bool {
        self.instance == target.instance && self.worker_ticker(target.kind) == target.ticker
    }

    /// The worker for a probe type.
    pub fn worker(&mut self, kind: ProbeKind) -> &mut ProbeWorker {
        match kind {
            ProbeKind::Startup => &mut self.startup,
            ProbeKind::Readiness => &mut self.readiness,
            ProbeKind::Liveness => &mut self.liveness,
        }
    }
}

/// Node-local state for one pod.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodRuntime {
    pub containers: Vec<ContainerRuntime>,
    /// Image-pull back-off by image.
    pub pull_backoff: BTreeMap<String, Backoff>,
    pub sandbox_ready: bool,
    /// The pod lifecycle event generator has yet to report the sandbox that the pod's first sync
    /// created. Its relist, within a second, wakes the pod worker; while a pull blocks the
    /// worker the wake-up waits, so the sync after a first failed pull comes at once rather
    /// than after the worker's 10 s back-off, and shows ImagePullBackOff. Later failures have
    /// no such event.
    #[serde(default)]
    pub sandbox_event_pending: bool,
    pub terminating: bool,
    /// The containers of a terminating pod have stopped and its final status is written: the
    /// phase is terminal, and the pod object goes next.
    #[serde(default)]
    pub terminated: bool,
    /// The readiness endpoint fails from now on (the `break_readiness` fault).
    #[serde(default)]
    pub readiness_broken: bool,
    /// A sync was asked for while a kill held the pod worker; it runs once the kill ends.
    #[serde(default)]
    pub sync_deferred: bool,
    /// A probe result changed at the moment a container stopped, before the sync its exit asks
    /// for had run: the pod worker takes that update after the sync, as one more sync.
    #[serde(default)]
    pub sync_again: bool,
    /// The probe worker whose result, turned Failure by its tick on a stopped container,
    /// prompted the next sync: for that sync's narration.
    #[serde(default)]
    pub prompted_by: Option<ProbeKind>,
    /// The pod worker's queued look ([`KubeletContext::look_again`]): a look that carries
    /// another number was replaced by a later sync and does nothing.
    #[serde(default)]
    pub look: u32,
    /// The grace period the kubelet is stopping the pod's containers with (at least its 2 s
    /// minimum): a delete that shortens it kills them again.
    #[serde(default)]
    pub kill_grace_ms: Option<u64>,
    /// The run of the node's kubelet ([`NodeRuntime::restarts`]) that last worked on the pod.
    /// Work an earlier run queued is dropped, and the new run's first sync of the pod starts it
    /// over ([`probes::restart_pod`]).
    #[serde(default)]
    pub kubelet_run: u32,
}

impl PodRuntime {
    /// When the containers of a terminating pod will all have stopped, as its termination
    /// planned it: the last of their planned stops.
    pub fn stopped_by(&self) -> Option<Time> {
        self.containers.iter().filter_map(|c| c.stops_at).max()
    }

    /// Whether the pod's status may report its sandbox (its IP, PodReadyToStartContainers
    /// True). The first sync generates the status before it creates the sandbox
    /// (`generateAPIPodStatus` runs before the runtime's `SyncPod`), so only a later sync's
    /// status reports it: the model's first sync reports it when it also started a container,
    /// and otherwise (its pull holds the worker) the sync the sandbox's event asks for does.
    pub fn sandbox_published(&self) -> bool {
        self.sandbox_ready && !self.sandbox_event_pending
    }
}

/// Node-local state shared by the pods of one node: the serialized image puller.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRuntime {
    /// When the image puller is free again (pulls are serialized, as by default).
    pub puller_busy_until: Time,
    /// Images being pulled, with the time each pull completes.
    pub in_flight: BTreeMap<String, Time>,
    /// The kubelet has stopped (the `fail_node` fault): it acts on nothing and posts no status.
    pub kubelet_down: bool,
    /// When it stopped: its node lease was last renewed then.
    #[serde(default)]
    pub down_since: Option<Time>,
    /// `lastNodeUnschedulable`: whether the node was cordoned when the kubelet last computed
    /// its status, so that it records a change of it once.
    #[serde(default)]
    pub last_unschedulable: bool,
    /// How many times the kubelet has started again after it stopped (the `restart_kubelet`
    /// repair). A pod's node-local state from an earlier run of the kubelet is what that run
    /// kept in memory, which the new one starts without: see [`PodRuntime::kubelet_run`].
    #[serde(default)]
    pub restarts: u32,
    /// When the kubelet last started; `None` for the start with the cluster, at time zero.
    #[serde(default)]
    pub started_at: Option<Time>,
    /// Pods force-deleted while the kubelet was stopped, with the containers they still had:
    /// they keep running until a kubelet finds them without a pod object.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub orphans: Vec<(String, Vec<String>)>,
}

impl NodeRuntime {
    /// When the kubelet (and its probe manager) last started.
    pub fn kubelet_started_at(&self) -> Time {
        self.started_at.unwrap_or(Time::ZERO)
    }
}

/// `recordNodeSchedulableEvent`, one of the setters of the kubelet's node status sync
/// (`tryUpdateNodeStatus`, every `nodeStatusUpdateFrequency`): when `spec.unschedulable` differs
/// from what the kubelet saw last, it records `NodeNotSchedulable` or `NodeSchedulable` on the
/// node. A kubelet that is down records nothing, and a cordon undone before the sync is never
/// seen.
pub fn sync_node_status(store: &Store, node: &str) -> Outcome {
    let mut out = Outcome::default();
    let Some(n) = store.nodes.get(node) else {
        return out;
    };
    let mut rt = store.kubelet_nodes.get(node).cloned().unwrap_or_default();
    if rt.kubelet_down || rt.last_unschedulable == n.spec.unschedulable {
        return out;
    }
    rt.last_unschedulable = n.spec.unschedulable;
    let (reason, said) = if n.spec.unschedulable {
        (EventReason::NodeNotSchedulable, "cordoned")
    } else {
        (EventReason::NodeSchedulable, "uncordoned")
    };
    out.events.push(node_status_event(node, reason));
    out.change(Change::SetNodeRuntime {
        name: node.to_string(),
        runtime: rt,
    });
    out.stage = Some(Stage::Schedule);
    out.say(format!(
        "The kubelet on {node} computes its node status (every {}s) and sees the node was {said}: it records {} on the node. The scheduler acted on the change already; this event is only the kubelet's note of it.",
        crate::sim::controller::node_lifecycle::NODE_STATUS_UPDATE_MS / 1000,
        reason.as_str()
    ));
    out
}

/// An event the kubelet records on its node.
fn node_event(node: &str, reason: EventReason, message: String) -> Event {
    Event {
        type_: EventType::Normal,
        reason,
        involved_object: ObjectRef::new("Node", node),
        message,
        source: kubelet_source(node),
        dropped: false,
        run: 0,
    }
}

/// The kubelet on `node` stopping container `c` of `pod` (`killContainer`), for a pod the caller
/// holds no context of: one just force-deleted, or an orphan housekeeping found.
pub fn killing_event(node: &str, pod: &str, c: &str) -> Event {
    let mut e = Event::normal(
        COMPONENT,
        ObjectRef::container(pod, c),
        EventReason::Killing,
        format!("Stopping container {c}"),
    );
    e.source = kubelet_source(node);
    e
}

/// `recordNodeStatusEvent`: `Node <node> status is now: <reason>`.
fn node_status_event(node: &str, reason: EventReason) -> Event {
    node_event(
        node,
        reason,
        format!("Node {node} status is now: {}", reason.as_str()),
    )
}

/// The node conditions' setters (`MemoryPressureCondition`, `DiskPressureCondition`,
/// `PIDPressureCondition`) record an event whenever their condition was not False before.
const PRESSURE_EVENTS: [EventReason; 3] = [
    EventReason::NodeHasSufficientMemory,
    EventReason::NodeHasNoDiskPressure,
    EventReason::NodeHasSufficientPID,
];

/// The repair of the `fail_node` fault: the node's kubelet starts again, as
/// `systemctl start kubelet` on the node would start it; the containers it left kept running.
///
/// The new process records `Starting` (`BirthCry`). Registering, it builds a node object from
/// scratch (`initialNode`), whose pressure conditions are new, so their setters record
/// `NodeHasSufficientMemory`, `NodeHasNoDiskPressure` and `NodeHasSufficientPID`; the container
/// manager records `NodeAllocatableEnforced`. The node exists already, so the kubelet then
/// updates the stored one: if the node controller had marked it NotReady, its conditions are
/// Unknown, and the setters record the three pressure events again (`x2` in kubectl) and
/// `NodeReady` as Ready turns True. The NoSchedule `unreachable` taint follows Ready at once
/// (`doNoScheduleTaintingPass`); the NoExecute one goes at the node controller's next look
/// ([`crate::sim::controller::node_lifecycle::monitor_node_health`]). Each pod bound to the
/// node gets a sync, whose first starts it over under the new run of the kubelet
/// ([`probes::restart_pod`]).
pub fn start_again(store: &Store, node: &Node, now: Time) -> Outcome {
    use crate::sim::controller::node_lifecycle::{NODE_MONITOR_GRACE_MS, NODE_MONITOR_PERIOD_MS};
    let name = node.metadata.name.as_str();
    let mut out = Outcome::default();
    let mut rt = store.kubelet_nodes.get(name).cloned().unwrap_or_default();
    let down_since = rt.down_since.unwrap_or(now);
    rt.kubelet_down = false;
    rt.down_since = None;
    rt.restarts = rt.restarts.wrapping_add(1);
    rt.started_at = Some(now);
    // The image pulls under way went with the old process. The new one's
    // `lastNodeUnschedulable` starts false, so on a cordoned node its first status update
    // records NodeNotSchedulable (below).
    rt.in_flight.clear();
    rt.puller_busy_until = now;
    rt.last_unschedulable = node.spec.unschedulable;
    let orphans = std::mem::take(&mut rt.orphans);
    out.change(Change::SetNodeRuntime {
        name: name.to_string(),
        runtime: rt,
    });
    out.events.push(node_event(
        name,
        EventReason::Starting,
        "Starting kubelet.".to_string(),
    ));
    for reason in PRESSURE_EVENTS {
        out.events.push(node_status_event(name, reason));
    }
    out.events.push(node_event(
        name,
        EventReason::NodeAllocatableEnforced,
        "Updated Node Allocatable limit across pods".to_string(),
    ));
    let was_not_ready = !node.status.ready;
    if was_not_ready {
        for reason in PRESSURE_EVENTS.into_iter().chain([EventReason::NodeReady]) {
            out.events.push(node_status_event(name, reason));
        }
        let mut ready = node.clone();
        ready.status.ready = true;
        out.change(Change::UpdateNode(Box::new(ready)));
    }
    if node.spec.unschedulable {
        out.events
            .push(node_status_event(name, EventReason::NodeNotSchedulable));
    }
    // Housekeeping (`HandlePodCleanups`, every 2 s from the start) finds the containers of
    // pods that no longer exist and stops them.
    for (pod, containers) in &orphans {
        for c in containers {
            out.events.push(killing_event(name, pod, c));
        }
    }
    let pods: Vec<&Pod> = store
        .pods
        .values()
        .filter(|p| p.node_name == name)
        .map(|p| &**p)
        .collect();
    for p in &pods {
        out.requeue
            .push((0, Work::KubeletSyncPod(p.metadata.name.as_str().into())));
    }
    let deleted = pods
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_some())
        .count();
    let live = pods.len() - deleted;
    let away = go_duration(now.millis_since(down_since));
    let mut said = format!(
        "The kubelet on {name} starts again after {away} away, as `sudo systemctl start kubelet` on the node would start it; the containers it left kept running. "
    );
    if was_not_ready {
        // The node controller looks at the node every --node-monitor-period from when it found
        // it NotReady.
        let not_ready_at = down_since.plus_millis(NODE_MONITOR_GRACE_MS);
        let into = now.millis_since(not_ready_at) % NODE_MONITOR_PERIOD_MS;
        let next = (NODE_MONITOR_PERIOD_MS - into) % NODE_MONITOR_PERIOD_MS;
        out.requeue.push((next, Work::NodeMonitor(name.into())));
        let tainted = node
            .spec
            .taints
            .iter()
            .any(|t| t.key == crate::sim::api::toleration::UNREACHABLE);
        let _ = write!(
            said,
            "It posts the node's status: Ready again (NodeReady), so the node controller's node.kubernetes.io/unreachable:NoSchedule taint goes at once and the scheduler may place pods there again.{} ",
            if tainted {
                format!(
                    " The NoExecute taint goes at the node controller's next look ({}), which cancels any eviction still to come.",
                    if next == 0 {
                        "now".to_string()
                    } else {
                        format!("in {}", go_duration(next))
                    }
                )
            } else {
                String::new()
            }
        );
    } else {
        let _ = write!(
            said,
            "The node controller had not noticed yet (it waits {}s without a heartbeat), so the node stays Ready and its pods keep their status. ",
            NODE_MONITOR_GRACE_MS / 1000
        );
    }
    if node.spec.unschedulable {
        said.push_str(
            "The node is cordoned, which the new process records once more (NodeNotSchedulable). ",
        );
    }
    said.push_str("Everything the old process held in memory is gone");
    match live {
        0 => {}
        1 => said.push_str(": the first sync of the node's pod gives it new probe workers, which first wait a random part of their period, and starts its back-offs over"),
        n => {
            let _ = write!(
                said,
                ": the first sync of each of the node's {n} pods gives it new probe workers, which first wait a random part of their period, and starts its back-offs over"
            );
        }
    }
    said.push('.');
    if !orphans.is_empty() {
        let names: Vec<&str> = orphans.iter().map(|(p, _)| p.as_str()).collect();
        let _ = write!(
            said,
            " Its housekeeping finds containers still running for {}, force-deleted while it was away: with no pod object left, it stops them.",
            names.join(" and ")
        );
    }
    if deleted > 0 {
        let _ = write!(
            said,
            " {deleted} pod{} there {} deleted: {} containers are stopped, with the whole grace period, unless the old process had already begun that.",
            if deleted == 1 { "" } else { "s" },
            if deleted == 1 { "was" } else { "were" },
            if deleted == 1 { "its" } else { "their" },
        );
    }
    out.say(said);
    out.stage = Some(Stage::Retry);
    out
}

/// How an image behaves for one pod now: the scenario's behaviour with the faults a person
/// injected on top — a registry that stopped serving the image, a pod whose readiness
/// endpoint broke.
pub fn effective_behavior<'a>(
    world: &'a World,
    store: &Store,
    image: &str,
    runtime: Option<&PodRuntime>,
) -> Cow<'a, ImageBehavior> {
    let mut b = world.behavior(image);
    if store.registry_down.contains(image) {
        let b = b.to_mut();
        b.pull_ok = false;
        b.pull_error = Some(images::registry_unreachable_text(image));
    }
    if runtime.is_some_and(|r| r.readiness_broken) {
        b.to_mut().ready = ReadyBehavior::Never;
    }
    b
}

/// The source a kubelet writes on its events: `kubelet, <node>`.
fn kubelet_source(node: &str) -> Cow<'static, str> {
    [COMPONENT, ", ", node].concat().into()
}

/// Whether the kubelet of `node` has stopped.
pub fn node_down(store: &Store, node: &str) -> bool {
    store
        .kubelet_nodes
        .get(node)
        .is_some_and(|r| r.kubelet_down)
}

/// The run of `node`'s kubelet now ([`NodeRuntime::restarts`]).
fn kubelet_run(store: &Store, node: &str) -> u32 {
    store.kubelet_nodes.get(node).map_or(0, |r| r.restarts)
}

/// The pod's name as upstream's `format.Pod` writes it: `name_namespace(uid)`.
pub fn format_pod(pod: &Pod) -> String {
    format!(
        "{}_{}({})",
        pod.metadata.name,
        crate::sim::api::DEFAULT_NAMESPACE,
        pod.metadata.uid
    )
}

/// The context of one kubelet action.
pub struct KubeletContext<'a> {
    pub store: &'a Store,
    pub world: &'a World,
    pub now: Time,
    pub rng: &'a mut Rng,
    pub out: Outcome,
    /// The pod as stored. The kubelet writes only its status, which it works on in `status`,
    /// so the metadata and spec are read here rather than copied with it.
    pub pod: &'a Pod,
    /// The pod's status as this action leaves it: borrowed from the stored pod until an action
    /// first edits it (then copied, once).
    pub status: Cow<'a, PodStatus>,
    pub runtime: PodRuntime,
    /// The pod's key in the store, which work for the pod shares rather than copying the name.
    key: &'a PodName,
    /// The pod's node-local state as stored, which the writes are compared with.
    stored_runtime: Option<&'a PodRuntime>,
    /// The look a container's restart back-off asked for (its number and delay), said at the
    /// end of the action unless a later look in the same sync (a failed sync's back-off)
    /// replaced it: the pod worker looks again only once, whatever asked.
    backoff_look: Option<(u32, u64)>,
}

impl<'a> KubeletContext<'a> {
    fn new(
        store: &'a Store,
        world: &'a World,
        now: Time,
        rng: &'a mut Rng,
        name: &str,
    ) -> Option<Self> {
        Self::for_run(store, world, now, rng, name, false)
    }

    /// The context of a kubelet action on a pod. Work that an earlier run of the node's kubelet
    /// queued finds the pod's state from that run and does nothing (`None`), except the pod
    /// worker's sync (`sync`), which starts the pod over under the new run.
    fn for_run(
        store: &'a Store,
        world: &'a World,
        now: Time,
        rng: &'a mut Rng,
        name: &str,
        sync: bool,
    ) -> Option<Self> {
        let (key, pod) = store.pods.get_key_value(name)?;
        if pod.node_name.is_empty() || node_down(store, &pod.node_name) {
            return None;
        }
        let stored_runtime = store.kubelet.get(name);
        let run = kubelet_run(store, &pod.node_name);
        if !sync && stored_runtime.is_some_and(|r| r.kubelet_run != run) {
            return None;
        }
        let mut runtime = stored_runtime.cloned().unwrap_or_default();
        let count = pod.spec.kubelet_container_count();
        if runtime.containers.len() != count {
            runtime
                .containers
                .resize(count, ContainerRuntime::default());
        }
        Some(KubeletContext {
            store,
            world,
            now,
            rng,
            out: Outcome::default(),
            pod,
            status: Cow::Borrowed(&pod.status),
            runtime,
            key,
            stored_runtime,
            backoff_look: None,
        })
    }

    /// The node-local state of the pod's node, as stored.
    pub fn node_runtime(&self) -> Option<&'a NodeRuntime> {
        self.store.kubelet_nodes.get(&self.pod.node_name)
    }

    /// When the kubelet of the pod's node last started.
    pub fn kubelet_started_at(&self) -> Time {
        self.node_runtime()
            .map_or(Time::ZERO, NodeRuntime::kubelet_started_at)
    }

    /// `killContainer`'s event as it stops container `c`: `Killing`, `Stopping container <c>`.
    fn killing(&mut self, c: usize) {
        let name = self.container_name(c);
        self.container_event(
            c,
            false,
            EventReason::Killing,
            format!("Stopping container {name}"),
        );
    }

    /// Records an event on a container of the pod.
    pub fn container_event(
        &mut self,
        c: usize,
        warning: bool,
        reason: EventReason,
        message: String,
    ) {
        let name = self.spec_of(c).map_or("", |c| c.name.as_str());
        let involved_object = if self.is_init(c) {
            ObjectRef::init_container(&self.pod.metadata.name, name)
        } else {
            ObjectRef::container(&self.pod.metadata.name, name)
        };
        // Built in place rather than through `Event::normal`, which would copy the source text
        // once more: a kubelet event is recorded for every container start.
        self.out.events.push(Event {
            type_: if warning {
                EventType::Warning
            } else {
                EventType::Normal
            },
            reason,
            involved_object,
            message,
            source: kubelet_source(&self.pod.node_name),
            dropped: false,
            run: 0,
        });
    }

    /// The pod's name for work about it, shared with the store's key.
    pub fn work_name(&self) -> ObjectName {
        PodName::clone(self.key)
    }

    /// Schedules follow-up work for this pod.
    pub fn after(&mut self, delay_ms: u64, work: Work) {
        self.out.requeue.push((delay_ms, work));
    }

    /// The pod worker's next look at the pod, `delay_ms` from now (`workQueue.Enqueue` when a
    /// sync completes): it replaces any look queued before, as the kubelet's work queue keeps
    /// one time per pod.
    pub fn look_again(&mut self, delay_ms: u64) {
        self.runtime.look = self.runtime.look.wrapping_add(1);
        let pod = self.work_name();
        self.after(
            delay_ms,
            Work::PodWorkerLook {
                pod,
                look: self.runtime.look,
            },
        );
    }

    /// Asks for a look when a container's restart back-off runs out (or the worker's resync,
    /// if sooner); [`Self::finish`] says when it comes, if nothing later in the sync replaced it.
    pub fn look_again_for_backoff(&mut self, delay_ms: u64) {
        self.look_again(delay_ms);
        self.backoff_look = Some((self.runtime.look, delay_ms));
    }

    /// Finishes the action: recomputes the pod status and records the writes.
    fn finish(mut self) -> Outcome {
        if let Some((look, delay)) = self.backoff_look
            && look == self.runtime.look
        {
            self.out.say(format!(
                "The pod worker's next look is in {}.",
                go_duration(delay)
            ));
        }
        probes::when_the_pod_worker_is_free(&mut self);
        let mut status = self.status;
        status::generate_into(&mut status, &self.pod.spec, &self.runtime, self.now);
        // The sandbox's address, once a status generated after the sandbox came up reports it.
        if status.pod_ip.is_none()
            && self.runtime.sandbox_published()
            && let Some(ip) = self.store.pod_ips.get(self.key)
        {
            status.to_mut().pod_ip = Some(ip.to_string());
        }
        // A status still borrowed is the stored one. A copy is compared with the stored status:
        // the kubelet functions edit the working status in place (`set_state`), and those edits
        // must be written too, but an edit may also have set a field back as it was.
        let write_status = matches!(&status, Cow::Owned(s) if *s != self.pod.status);
        let write_runtime = self.stored_runtime != Some(&self.runtime);
        // Room for both writes at once: growing the vector for the second would move the
        // first.
        self.out
            .changes
            .reserve_exact(usize::from(write_status) + usize::from(write_runtime));
        if write_status {
            self.out.change(Change::UpdatePodStatus {
                name: PodName::clone(self.key),
                status: status.into_owned(),
            });
        }
        if write_runtime {
            self.out.change(Change::SetPodRuntime {
                name: PodName::clone(self.key),
                runtime: self.runtime,
            });
        }
        if !self.out.is_noop() {
            self.out.actor = Some([COMPONENT, "/", &self.pod.node_name].concat());
        }
        self.out
    }

    /// Whether container `c` exists in the pod's spec, runtime state and status. Work names a
    /// container by its index; each action checks it once on entry, so that a stale index (which
    /// a pod's fixed spec should never produce) ends the action instead of the run.
    pub fn has_container(&self, c: usize) -> bool {
        c < self.pod.spec.kubelet_container_count()
            && c < self.runtime.containers.len()
            && self.cs(c).is_some()
    }

    /// The spec of container `c`, numbered as the kubelet numbers them (init containers first:
    /// [`crate::sim::api::PodSpec::kubelet_container`]), borrowed from the stored pod.
    pub fn spec_of(&self, c: usize) -> Option<&'a Container> {
        let pod: &'a Pod = self.pod;
        pod.spec.kubelet_container(c)
    }

    /// How many init containers the pod has: they take the first numbers.
    pub fn inits(&self) -> usize {
        self.pod.spec.init_containers.len()
    }

    /// Whether container `c` is an init container.
    pub fn is_init(&self, c: usize) -> bool {
        c < self.inits()
    }

    /// Whether container `c` is an init container that runs to completion, as opposed to a
    /// sidecar (`restartPolicy: Always`) or an app container.
    pub fn runs_to_completion(&self, c: usize) -> bool {
        self.is_init(c) && self.spec_of(c).is_some_and(|s| !s.is_restartable())
    }

    /// The working status of container `c`.
    pub fn cs(&self, c: usize) -> Option<&ContainerStatus> {
        self.status.kubelet_container(self.inits(), c)
    }

    /// The working status of container `c`, to change (the pod status is copied on the first
    /// change).
    pub fn cs_mut(&mut self, c: usize) -> Option<&mut ContainerStatus> {
        let inits = self.inits();
        self.status.to_mut().kubelet_container_mut(inits, c)
    }

    /// What a learner calls container `c`: `container web`, `init container migrate` or
    /// `sidecar proxy`.
    pub fn container_title(&self, c: usize) -> String {
        let spec = self.spec_of(c);
        let kind = match spec {
            Some(s) if self.is_init(c) && s.is_restartable() => "sidecar",
            Some(_) if self.is_init(c) => "init container",
            _ => "container",
        };
        [kind, " ", spec.map_or("", |s| s.name.as_str())].concat()
    }

    /// The STATUS word kubectl shows for a waiting or failed container `c` with this reason:
    /// `Init:<reason>` for an init container while the pod initializes (`printPod`).
    pub fn status_word(&self, c: usize, reason: &str) -> String {
        if self.is_init(c) && !self.initialized() {
            ["Init:", reason].concat()
        } else {
            reason.to_string()
        }
    }

    /// The grace period of the pod's deletion (30 s unless the delete set another), as
    /// `killContainer` gives it: never under its 2 s minimum (`minimumGracePeriodInSeconds`).
    fn deletion_grace_ms(&self) -> u64 {
        u64::try_from(
            self.pod
                .metadata
                .deletion_grace_period_seconds
                .unwrap_or(30),
        )
        .unwrap_or(0)
        .saturating_mul(1000)
        .max(probes::MINIMUM_GRACE_MS)
    }

    /// The containers, numbered as the kubelet numbers them, that both the spec and the
    /// runtime state know.
    fn known_containers(&self) -> std::ops::Range<usize> {
        0..self
            .pod
            .spec
            .kubelet_container_count()
            .min(self.runtime.containers.len())
    }

    fn container_name(&self, c: usize) -> String {
        self.spec_of(c).map(|c| c.name.clone()).unwrap_or_default()
    }

    /// Sets a container's state. A container that waits after it has run keeps how its last
    /// instance ended as its last state (`convertToAPIContainerStatuses`), which is also what
    /// keeps the pod's phase Running while it waits (spec §15.2).
    fn set_state(&mut self, c: usize, state: ContainerState) {
        // A reason a sync leaves a container waiting with (a failed pull, its back-off, a
        // missing ConfigMap) replaces what the reason cache held, as `reasonCache.Update` does
        // with the sync's result; the default ContainerCreating is no failure.
        if let ContainerState::Waiting { reason, message } = &state
            && !matches!(reason.as_str(), "ContainerCreating" | "PodInitializing")
            && let Some(rt) = self.runtime.containers.get_mut(c)
        {
            rt.reason_cache = Some((reason.clone(), message.clone()));
        }
        if let Some(cs) = self.cs_mut(c) {
            if matches!(state, ContainerState::Waiting { .. })
                && matches!(cs.state, ContainerState::Terminated { .. })
            {
                cs.last_state = Some(std::mem::replace(&mut cs.state, state));
            } else {
                cs.state = state;
            }
        }
    }

    /// The reason a container that has not run yet waits with: `ContainerCreating`, or
    /// `PodInitializing` in a pod with init containers (`convertToAPIContainerStatuses`'s
    /// default waiting state), which is why such a pod's STATUS reads `PodInitializing` while
    /// its app images are pulled.
    pub fn default_waiting_reason(&self) -> &'static str {
        if self.inits() > 0 {
            "PodInitializing"
        } else {
            "ContainerCreating"
        }
    }

    /// Whether the pod has been initialized: an app container has started (upstream's
    /// `HasAnyRegularContainerStarted`), after which init containers never run again, or every
    /// init container has completed and every sidecar has started.
    pub fn initialized(&self) -> bool {
        self.app_started() || (0..self.inits()).all(|c| self.init_done(c))
    }

    /// Whether an app container has ever started in this pod.
    pub fn app_started(&self) -> bool {
        self.runtime
            .containers
            .iter()
            .skip(self.inits())
            .any(|r| r.instance > 0)
    }

    /// Whether init container `c` lets the next container start: a sidecar once it is running
    /// and started, any other init container once it exited with code 0.
    fn init_done(&self, c: usize) -> bool {
        if self.runs_to_completion(c) {
            self.cs(c).is_some_and(ContainerStatus::succeeded)
        } else {
            self.runtime
                .containers
                .get(c)
                .is_some_and(|r| r.running_since.is_some() && r.started)
        }
    }
}

/// `syncPod`: the kubelet looks at a pod bound to its node and takes the next step for each
/// container — pull, start, restart after back-off — or begins termination.
pub fn sync_pod(store: &Store, world: &World, name: &str, now: Time, rng: &mut Rng) -> Outcome {
    let Some(mut k) = KubeletContext::for_run(store, world, now, rng, name, true) else {
        return Outcome::default();
    };
    let run = kubelet_run(store, &k.pod.node_name);
    if k.stored_runtime.is_some_and(|r| r.kubelet_run != run) {
        probes::restart_pod(&mut k);
    }
    k.runtime.kubelet_run = run;
    if k.pod.is_terminal() {
        return k.finish();
    }
    if k.status.container_statuses.len() != k.pod.spec.containers.len()
        || k.status.init_container_statuses.len() != k.inits()
    {
        let waiting = k.default_waiting_reason();
        let statuses = |containers: &[Container]| -> Vec<ContainerStatus> {
            containers
                .iter()
                .map(|c| ContainerStatus {
                    name: c.name.clone(),
                    image: c.image.clone(),
                    state: ContainerState::Waiting {
                        reason: waiting.to_string(),
                        message: String::new(),
                    },
                    ..Default::default()
                })
                .collect()
        };
        let pod = k.pod;
        let status = k.status.to_mut();
        status.init_container_statuses = statuses(&pod.spec.init_containers);
        status.container_statuses = statuses(&pod.spec.containers);
        k.status.to_mut().start_time = Some(now.truncate_to_secs());
        // A pod deleted before its first sync is only terminated: no sandbox is made for it.
        k.runtime.sandbox_ready = k.pod.metadata.deletion_timestamp.is_none();
        k.runtime.sandbox_event_pending = k.runtime.sandbox_ready;
        probes::add_pod(&mut k);
    }
    if k.pod.metadata.deletion_timestamp.is_some() {
        begin_termination(&mut k);
        return k.finish();
    }
    // The sync that is killing a container after a failed probe holds the pod worker until the
    // container has exited, and the sync pulling a container's image until the pull ends; this
    // one runs after it.
    if probes::defer_sync_while_held(&mut k) {
        return k.finish();
    }
    // Every sync that completes sets the pod worker's next look anew, so a look queued before
    // this sync is dropped (the model skips the one-minute resync a healthy pod gets).
    k.runtime.look = k.runtime.look.wrapping_add(1);
    // The sync computes the pod's status first (`generateAPIPodStatus`), which probes the
    // containers that are started but not ready.
    probes::update_pod_status(&mut k);
    if probes::show_back_off_before_restart(&mut k) {
        return k.finish();
    }
    sync_containers_from(&mut k, 0);
    if std::mem::take(&mut k.runtime.sync_again) {
        let pod = k.work_name();
        k.after(0, Work::KubeletSyncPod(pod));
    }
    k.finish()
}

/// Syncs the containers from `from` on, in the pod's order, as `SyncPod` starts them one after
/// another: a container whose image is being pulled blocks the pod worker, so the containers
/// after it wait for that pull to end (pulled or failed) before their turn.
///
/// Init containers come first (`computeInitContainerActions`): each runs to completion before
/// the next starts, and a sidecar must be running and started before the next one; once the pod
/// is initialized only sidecars are looked after again, and the app containers start.
fn sync_containers_from(k: &mut KubeletContext<'_>, from: usize) {
    let initialized = k.initialized();
    for c in from..k.pod.spec.kubelet_container_count() {
        if k.runs_to_completion(c) && (initialized || k.init_done(c)) {
            continue;
        }
        let was_running = k
            .runtime
            .containers
            .get(c)
            .is_some_and(|r| r.running_since.is_some());
        sync_container(k, c);
        if !may_go_on(k, c, was_running, initialized) {
            return;
        }
    }
    // No pull holds the worker any more, so the sync the sandbox's lifecycle event asked for has
    // run (after a failed pull, as the quick retry `finish_pull` scheduled).
    k.runtime.sandbox_event_pending = false;
}

/// Whether the sync goes on to the container after `c`, which has just had its turn: not while
/// its image is being pulled, which blocks the pod worker; and, before the pod has initialized,
/// not past an init container that has yet to complete (a sidecar: to start). A sidecar that
/// started in this sync without a startup probe counts as started at once, but one sync starts
/// one init container: the next starts in the sync its start prompts.
fn may_go_on(k: &mut KubeletContext<'_>, c: usize, was_running: bool, initialized: bool) -> bool {
    if k.runtime
        .containers
        .get(c)
        .is_some_and(|r| r.pull_started.is_some())
    {
        return false;
    }
    if k.is_init(c) && !initialized && (!k.init_done(c) || !was_running) {
        if k.init_done(c) {
            let pod = k.work_name();
            k.after(0, Work::KubeletSyncPod(pod));
        }
        k.runtime.sandbox_event_pending = false;
        return false;
    }
    true
}

fn sync_container(k: &mut KubeletContext<'_>, c: usize) {
    if !k.has_container(c) {
        return;
    }
    let (Some(rt), Some(cs)) = (k.runtime.containers.get(c), k.cs(c)) else {
        return;
    };
    if rt.running_since.is_some() || rt.pull_started.is_some() {
        return;
    }
    // `doBackOff` looks at the container's last exited instance, whatever the status shows
    // now: a restart whose image pull failed (imagePullPolicy Always) is still held by, and
    // still moves on, the crash-loop back-off.
    let restarting = matches!(cs.state, ContainerState::Terminated { .. })
        || rt.finished_at.is_some() && cs.last_state.is_some();
    if restarting && !probes::crash_backoff_allows_restart(k, c, false) {
        return;
    }
    images::ensure_image_and_start(k, c);
}

/// Starts a container whose image is present: `Created` and `Started`, probes scheduled.
pub fn start_container(k: &mut KubeletContext<'_>, c: usize) {
    if !k.has_container(c) {
        return;
    }
    let now = k.now;
    // The pod is borrowed from the store, not from the context, so its spec and names are read
    // in place while the context changes, rather than copied out first.
    let pod = k.pod;
    let Some(spec) = k.spec_of(c) else {
        return;
    };
    // `generateContainerConfig` builds the environment before the container is created; a
    // ConfigMap or Secret it needs that is missing stops this container here. Then it checks
    // the user the container would run as against `runAsNonRoot` (`verifyRunAsNonRoot`).
    let refusal = missing_config(k.store, spec)
        .map(|p| {
            (
                p.to_string(),
                "its environment needs what the namespace lacks",
                "; creating the object would let it start",
            )
        })
        .or_else(|| {
            run_as_non_root_error(pod, spec, k.world.behavior(&spec.image).user).map(|err| {
                (
                    err,
                    "its securityContext asks for runAsNonRoot, and it would run as root",
                    ", with the same answer until the template sets a runAsUser other than 0 or uses an image that runs as another user",
                )
            })
        });
    if let Some((err, cause, until)) = refusal {
        k.container_event(c, true, EventReason::Failed, format!("Error: {err}"));
        k.set_state(
            c,
            ContainerState::Waiting {
                reason: "CreateContainerConfigError".to_string(),
                message: err.clone(),
            },
        );
        k.out.stage = Some(Stage::Retry);
        let (look, why) = images::look_again_after_failure(k);
        k.out.say(format!(
            "The kubelet cannot create container {} of {}: {cause} ({err}). STATUS shows {}, and the kubelet tries again each time the pod worker looks, next in {} ({why}){until}.",
            spec.name,
            pod.metadata.name,
            k.status_word(c, "CreateContainerConfigError"),
            go_duration(look)
        ));
        return;
    }
    let exit = k
        .world
        .behavior(&spec.image)
        .exit_plan(k.runs_to_completion(c));
    let restart = k.runtime.containers[c].instance > 0;
    {
        let rt = &mut k.runtime.containers[c];
        rt.instance += 1;
        rt.reason_cache = None;
        rt.running_since = Some(now);
        rt.pull_started = None;
        rt.killing = None;
        rt.killed_at = None;
        rt.startup.new_container();
        rt.readiness.new_container();
        rt.liveness.new_container();
    }
    k.runtime.prompted_by = None;
    let Some(cs) = k.cs_mut(c) else {
        return;
    };
    if restart {
        if let ContainerState::Terminated { .. } = cs.state {
            cs.last_state = Some(cs.state.clone());
        }
        cs.restart_count += 1;
    }
    cs.state = ContainerState::Running {
        started_at: now.truncate_to_secs(),
    };
    // Almost always the image the status already names: copied into its string in place.
    cs.image.clone_from(&spec.image);
    k.container_event(
        c,
        false,
        EventReason::Created,
        "Container created".to_string(),
    );
    k.container_event(
        c,
        false,
        EventReason::Started,
        "Container started".to_string(),
    );
    let instance = k.runtime.containers[c].instance;
    k.runtime.containers[c].started = spec.startup_probe.is_none();
    if let Some((after, _)) = exit {
        k.after(
            after,
            Work::ContainerExit {
                pod: k.work_name(),
                container: c,
                instance,
            },
        );
    }
    probes::schedule_initial_probes(k, c, instance);
    k.out.stage = Some(if restart {
        Stage::Retry
    } else {
        Stage::Schedule
    });
    // The narration is written into one string, its optional parts included.
    let mut said = String::with_capacity(192);
    let _ = write!(
        said,
        "The kubelet on {} created and started {} of {}",
        pod.node_name,
        k.container_title(c),
        pod.metadata.name
    );
    if restart {
        let _ = write!(
            said,
            " (restart {} of this container)",
            k.cs(c).map_or(0, |cs| cs.restart_count)
        );
    }
    said.push('.');
    if k.is_init(c) {
        say_init_container_started(k, c, &mut said, exit);
        k.out.say(said);
        return;
    }
    match (&spec.startup_probe, &spec.readiness_probe) {
        (Some(_), _) => said.push_str(" Only the startup probe runs until it passes."),
        (None, Some(p)) => {
            let _ = write!(
                said,
                " It is not Ready until its readiness probe passes (initialDelaySeconds {}, periodSeconds {}).",
                p.initial_delay_seconds(),
                p.period_seconds()
            );
        }
        (None, None) => {
            said.push_str(" Without a readiness probe it counts as Ready as soon as it runs.")
        }
    }
    k.out.say(said);
    // Said once however many containers start in this step (the narration drops a repeat).
    let gates = readiness_gates_hold(k.pod);
    if !gates.is_empty() {
        k.out.say(gates.trim_start());
    }
}

/// What the pod's readiness gates add to a narration of readiness: that they keep the pod not
/// Ready, since nothing in the simulated cluster sets their conditions; nothing without gates.
pub fn readiness_gates_hold(pod: &Pod) -> String {
    let gates = pod.spec.readiness_gates();
    if gates.is_empty() {
        return String::new();
    }
    format!(
        " The pod itself stays not Ready, though (Ready False, ReadinessGatesNotReady): its readiness gate{} {} need{} a condition of that type to be True, and no controller here sets one.",
        if gates.len() == 1 { "" } else { "s" },
        gates.join(", "),
        if gates.len() == 1 { "s" } else { "" }
    )
}

/// The rest of the narration of an init container's start: what the pod waits for.
fn say_init_container_started(
    k: &KubeletContext<'_>,
    c: usize,
    said: &mut String,
    exit: Option<(u64, i32)>,
) {
    let n = k.inits();
    let _ = write!(said, " It is init container {} of {n}", c + 1);
    if !k.runs_to_completion(c) {
        said.push_str(
            " and a sidecar (restartPolicy: Always): it keeps running beside the app containers and restarts if it stops, and the next container starts once it counts as started",
        );
        if k.spec_of(c).is_some_and(|s| s.startup_probe.is_some()) {
            said.push_str(" (when its startup probe passes)");
        }
        said.push('.');
        return;
    }
    said.push_str("; the next container starts only after it exits with code 0");
    match exit {
        Some((after, 0)) => {
            let _ = write!(said, ", which it does after {}.", go_duration(after));
        }
        Some((after, code)) => {
            let _ = write!(
                said,
                ", but it will exit with code {code} after {}.",
                go_duration(after)
            );
        }
        None => said.push('.'),
    }
    said.push_str(" Meanwhile STATUS shows Init:");
    let _ = write!(said, "{c}/{n}.");
}

/// A terminating pod: `Killing` each running container, then wait for the process to exit or
/// the grace period to end.
fn begin_termination(k: &mut KubeletContext<'_>) {
    if k.runtime.terminating {
        shorten_termination(k);
        return;
    }
    k.runtime.terminating = true;
    // The terminating sync's status reads the runtime (`SyncTerminatingPod`), so a sandbox made
    // while a pull held the worker is reported now: the pod shows its IP while it terminates.
    k.runtime.sandbox_event_pending = false;
    let grace_ms = k.deletion_grace_ms();
    let mut wait = 0;
    // The sidecars' shutdown times, in their order.
    let mut sidecars = Vec::new();
    for c in k.known_containers() {
        let rt = &mut k.runtime.containers[c];
        rt.pull_started = None;
        if rt.running_since.is_none() {
            continue;
        }
        k.killing(c);
        let behavior = k.world.image(k.spec_of(c).map_or("", |s| s.image.as_str()));
        // A container already stopping after a failed probe had its SIGTERM then: the second
        // one changes nothing, and it exits when its shutdown from the first one ends.
        let rt = &k.runtime.containers[c];
        let shutdown = match (behavior.shutdown_ms, rt.killing.and(rt.killed_at)) {
            (Some(s), Some(at)) => Some(at.plus_millis(s).millis_since(k.now)),
            (s, _) => s,
        };
        let code = behavior.shutdown_exit_code;
        if k.is_init(c) && !k.runs_to_completion(c) {
            sidecars.push((c, shutdown, code));
        } else {
            let (after, exit) = probes::end_within(shutdown, grace_ms, code);
            wait = wait.max(after);
            k.runtime.containers[c].termination_exit = Some(exit);
            k.runtime.containers[c].stops_at = Some(k.now.plus_millis(after));
        }
    }
    // `killContainer` records every Killing event at once, but with sidecars the termination
    // ordering holds each sidecar's SIGTERM until the app containers, and the sidecars after it,
    // have exited. A sidecar then has what is left of the grace period in whole seconds
    // (truncated), and never less than the 2 s minimum.
    let app_wait = wait;
    for &(c, shutdown, code) in sidecars.iter().rev() {
        let left = (grace_ms / 1000).saturating_sub(wait / 1000).max(2) * 1000;
        let (after, exit) = probes::end_within(shutdown, left, code);
        wait += after;
        k.runtime.containers[c].termination_exit = Some(exit);
        k.runtime.containers[c].stops_at = Some(k.now.plus_millis(wait));
    }
    k.after(wait, Work::TerminationComplete(k.work_name()));
    k.runtime.kill_grace_ms = Some(grace_ms);
    k.out.stage = Some(Stage::Reconcile);
    let asked = k.pod.metadata.deletion_grace_period_seconds.unwrap_or(30);
    let grace = if u64::try_from(asked).is_ok_and(|a| a.saturating_mul(1000) < grace_ms) {
        format!(
            "grace period {asked}s, which the kubelet raises to its {}s minimum",
            grace_ms / 1000
        )
    } else {
        format!("grace period {}s", grace_ms / 1000)
    };
    let mut said = format!(
        "{} was deleted, so the kubelet on {} sends SIGTERM to its containers; it shows Terminating until they exit ({}, {grace}).",
        k.pod.metadata.name,
        k.pod.node_name,
        go_duration(wait),
    );
    if !sidecars.is_empty() {
        let _ = write!(
            said,
            " Its sidecars get SIGTERM only once the app containers have exited ({}), last one first.",
            go_duration(app_wait)
        );
    }
    k.out.say(said);
}

/// A second delete that shortened the pod's grace period reaches the pod worker while it stops
/// the containers (`calculateEffectiveGracePeriod`): it kills them again with the shorter period
/// (`Killing` again), so a container that would have outlasted it is killed when it runs out
/// (SIGKILL, exit 137), and the pod's end comes sooner. A longer period changes nothing.
fn shorten_termination(k: &mut KubeletContext<'_>) {
    let grace_ms = k.deletion_grace_ms();
    if k.runtime.terminated || k.runtime.kill_grace_ms.is_none_or(|old| grace_ms >= old) {
        return;
    }
    k.runtime.kill_grace_ms = Some(grace_ms);
    let deadline = k.now.plus_millis(grace_ms);
    let was = k.runtime.stopped_by();
    let mut end = k.now;
    for c in k.known_containers() {
        let rt = &k.runtime.containers[c];
        let Some(stops_at) = rt.stops_at.filter(|_| rt.running_since.is_some()) else {
            continue;
        };
        k.killing(c);
        let rt = &mut k.runtime.containers[c];
        if stops_at > deadline {
            rt.stops_at = Some(deadline);
            rt.termination_exit = Some(probes::SIGKILL_EXIT_CODE);
        }
        end = end.max(rt.stops_at.unwrap_or(deadline));
    }
    if was.is_some_and(|was| end < was) {
        k.after(
            end.millis_since(k.now),
            Work::TerminationComplete(k.work_name()),
        );
    }
    k.out.stage = Some(Stage::Reconcile);
    k.out.say(format!(
        "{}'s grace period was shortened to {}, so the kubelet on {} kills its containers again with the shorter period: they have stopped by {end}.",
        k.pod.metadata.name,
        go_duration(grace_ms),
        k.pod.node_name
    ));
}

/// The end of a pod's termination, in two steps. First (`syncTerminatingPod`, then the status
/// manager's `TerminatePod`) the kubelet writes the pod's last status: each container it
/// stopped is terminated with the code its process ended with, a container that never ran is
/// `ContainerStatusUnknown` (exit code 137), and the phase is terminal, Succeeded only if every
/// app container exited with code 0, else Failed. kubectl (v1.31+) then shows the pod's
/// phase-derived STATUS (`Error`, `Completed`) instead of `Terminating`. Then the status
/// manager removes the pod object (`canBeDeleted`: a delete with grace period 0).
pub fn termination_complete(
    store: &Store,
    world: &World,
    name: &str,
    now: Time,
    rng: &mut Rng,
) -> Outcome {
    let Some(pod) = store.pods.get(name) else {
        return Outcome::default();
    };
    if pod.metadata.deletion_timestamp.is_none() || node_down(store, &pod.node_name) {
        return Outcome::default();
    }
    let status_written = store.kubelet.get(name).is_none_or(|rt| rt.terminated);
    let Some(mut k) = KubeletContext::new(store, world, now, rng, name).filter(|_| !status_written)
    else {
        let mut out = Outcome::default();
        let cancelled = crate::sim::controller::node_lifecycle::cancel_eviction_of_removed_pod(
            store, pod, &mut out,
        );
        out.change(Change::RemovePod(name.to_string()));
        out.stage = Some(Stage::Reconcile);
        out.say(format!(
            "{name}'s final status is written, so the kubelet's status manager deletes the pod object with grace period 0: the pod is gone.{}",
            if cancelled {
                " The taint eviction controller had timed it for eviction once its toleration of the node's NoExecute taint ran out: with the pod gone, that work is cancelled."
            } else {
                ""
            }
        ));
        return out;
    };
    let grace_ms = k.deletion_grace_ms();
    let initialized = k.initialized();
    let mut ended = Vec::new();
    for c in k.known_containers() {
        let Some(cs) = k.cs(c) else {
            continue;
        };
        let name = k.container_name(c);
        if k.runtime.containers[c].running_since.is_some() {
            // The process ended as `begin_termination` planned: on its own after SIGTERM if it
            // shuts down within the grace period, else by SIGKILL when the period ended.
            let code = match k.runtime.containers[c].termination_exit {
                Some(code) => code,
                None => {
                    let image = k.spec_of(c).map(|s| k.world.behavior(&s.image));
                    probes::end_after_sigterm(image.as_deref(), grace_ms).1
                }
            };
            probes::container_stopped(&mut k, c, code, probes::exit_reason(code));
            if !k.is_init(c) {
                ended.push(format!("{name} exit code {code}"));
            }
            continue;
        }
        match (&cs.state, &cs.last_state) {
            (ContainerState::Terminated { .. }, _) => {}
            // A container waiting to be restarted shows the exit of its last instance, now
            // that it will not be restarted.
            (ContainerState::Waiting { .. }, Some(last @ ContainerState::Terminated { .. })) => {
                let last = last.clone();
                if let ContainerState::Terminated { exit_code, .. } = &last
                    && !k.is_init(c)
                {
                    ended.push(format!("{name} exit code {exit_code}, from before"));
                }
                k.set_state(c, last);
            }
            // `TerminatePod`: a container with no exit to report failed as far as the API
            // knows; an app container of a pod that never initialized is left waiting.
            _ if k.is_init(c) || initialized => {
                k.set_state(
                    c,
                    ContainerState::Terminated {
                        exit_code: probes::SIGKILL_EXIT_CODE,
                        reason: "ContainerStatusUnknown".to_string(),
                        message: "The container could not be located when the pod was terminated"
                            .to_string(),
                        started_at: k.now.truncate_to_secs(),
                        finished_at: k.now.truncate_to_secs(),
                    },
                );
                if !k.is_init(c) {
                    ended.push(format!(
                        "{name} never ran: ContainerStatusUnknown, exit code 137"
                    ));
                }
            }
            _ => {}
        }
    }
    k.runtime.terminated = true;
    k.runtime.sandbox_ready = false;
    let phase = status::get_phase(&k.pod.spec, &k.status, initialized, true);
    // STATUS as kubectl will print it from the status about to be written.
    let word = {
        let mut shown = k.pod.clone();
        shown.status = k.status.clone().into_owned();
        shown.status.phase = phase;
        shown.kubectl_status()
    };
    let ended = if ended.is_empty() {
        String::new()
    } else {
        format!(" ({})", ended.join(", "))
    };
    let pod_name = k.pod.metadata.name.to_string();
    let node = k.pod.node_name.clone();
    k.out.stage = Some(Stage::Reconcile);
    k.out.say(format!(
        "{pod_name}'s containers have stopped{ended}, so the kubelet writes the pod's final status: phase {}, and kubectl get pods shows STATUS {word} instead of Terminating. Its requests on {node} are free again. The kubelet removes the pod object next, at this same moment.",
        phase.as_str()
    ));
    let work = k.work_name();
    k.after(0, Work::TerminationComplete(work));
    k.finish()
}

/// A pull that was started completes.
pub fn pull_complete(
    store: &Store,
    world: &World,
    name: &str,
    c: usize,
    now: Time,
    rng: &mut Rng,
) -> Outcome {
    let Some(mut k) = KubeletContext::new(store, world, now, rng, name) else {
        return Outcome::default();
    };
    if k.runtime
        .containers
        .get(c)
        .is_none_or(|r| r.pull_started.is_none())
        || k.runtime.terminating
    {
        return Outcome::default();
    }
    // The queue holds one completion per container: one left from a pull an earlier run of the
    // kubelet began stands for this pull's, which ends later.
    if let Some(done) = k.runtime.containers[c].pull_done.filter(|&done| done > now) {
        let mut out = Outcome::default();
        out.requeue.push((
            done.millis_since(now),
            Work::PullComplete {
                pod: k.work_name(),
                container: c,
            },
        ));
        return out;
    }
    let initialized = k.initialized();
    images::finish_pull(&mut k, c);
    // The worker was blocked on this pull; the same sync goes on to the containers after it.
    if may_go_on(&mut k, c, false, initialized) {
        sync_containers_from(&mut k, c + 1);
    }
    k.finish()
}

/// Which probe worker ticks: the pod, the container index, the probe type, the container
/// instance the worker was started for, and the worker's ticker the tick was scheduled under.
#[derive(Clone, Copy, Debug)]
pub struct ProbeTarget<'a> {
    pub pod: &'a str,
    pub container: usize,
    pub kind: ProbeKind,
    pub instance: u32,
    pub ticker: u16,
}

/// What a probe tick amounts to when its probe passes again and the worker has already
/// published success (`pkg/kubelet/prober/worker.go`, `doProbe` with an unchanged result): the
/// worker ticks again one period later, and the pod's status cannot change.
pub struct QuietTick {
    /// When the worker ticks again, in milliseconds from now.
    pub period: u64,
    /// The worker's run count with this success counted, while it still counts up to its
    /// larger threshold; `None` once the count has stopped there and nothing changes at all.
    pub run_count: Option<i32>,
}

/// The tick of `target` when it is quiet (see [`QuietTick`]): the container runs, its worker
/// has settled on success and the probe would pass again. `None` when the tick needs the full
/// probe run. The answer is the one [`probe_tick`] would reach, without copying the pod or
/// generating its status: a status the kubelet wrote is regenerated unchanged while the
/// published result stays the same.
pub fn quiet_probe_tick(
    store: &Store,
    world: &World,
    target: ProbeTarget<'_>,
    now: Time,
) -> Option<QuietTick> {
    let pod = store.pods.get(target.pod)?;
    let rt = store.kubelet.get(target.pod)?;
    // A tick of an earlier run of the kubelet is dropped by the full path.
    if node_down(store, &pod.node_name) || rt.kubelet_run != kubelet_run(store, &pod.node_name) {
        return None;
    }
    let crt = rt.containers.get(target.container)?;
    if !crt.is_current_tick(&target) || rt.terminating {
        return None;
    }
    let since = crt.running_since?;
    let spec = pod.spec.kubelet_container(target.container)?;
    let p = probes::probe_spec(spec, target.kind)?;
    let w = crt.probe_worker(target.kind);
    let settled = !w.on_hold
        && w.in_flight.is_none()
        && w.grid_next.is_none()
        && w.result == Some(true)
        && w.last_run == Some(true)
        && w.last_observed == Some(true);
    if !settled || probes::port_error(spec, p).is_some() {
        return None;
    }
    let behavior = effective_behavior(world, store, &spec.image, Some(rt));
    let period = probes::period_ms(p);
    // A run that outlasts the period delays the next tick; the full run works that out.
    if !probes::passes(&behavior, since, target.kind, p, now)
        || probes::run_duration_ms(&behavior, since, p, now) >= period
    {
        return None;
    }
    if w.run_count >= probes::run_count_cap(p) {
        return Some(QuietTick {
            period,
            run_count: None,
        });
    }
    // Still counting: the full run would count this success and write only that. It is taken
    // here only where the full run reaches the count (a bound pod whose container index is
    // valid everywhere) and would not resize the node-local state first; a passing startup
    // probe starts the other probes, so it always takes the full run.
    if target.kind == ProbeKind::Startup
        || pod.node_name.is_empty()
        || rt.containers.len() != pod.spec.kubelet_container_count()
        || pod
            .status
            .kubelet_container(pod.spec.init_containers.len(), target.container)
            .is_none()
    {
        return None;
    }
    Some(QuietTick {
        period,
        run_count: Some(w.run_count.saturating_add(1).min(probes::run_count_cap(p))),
    })
}

/// Writes the run count a quiet tick of `target` counted ([`QuietTick::run_count`]) into the
/// worker's state in place: the full run would write the pod's whole kubelet state back with
/// only that count changed, which copies it and files it again under the pod's name.
pub fn count_quiet_tick(store: &mut Store, target: ProbeTarget<'_>, run_count: i32) {
    if let Some(c) = store
        .kubelet
        .get_mut(target.pod)
        .and_then(|rt| rt.containers.get_mut(target.container))
    {
        c.worker(target.kind).run_count = run_count;
    }
}

/// A probe worker's tick (`run` [`probes::ProbeRun::Tick`]), run in full, or the end of a probe
/// run that took time ([`probes::ProbeRun::End`], see [`ProbeWorker::in_flight`]). The simulator
/// answers quiet ticks with [`quiet_probe_tick`] instead, which reaches the same outcome without
/// copying the pod. A tick counts only on its worker's current ticker; a run's end, for the
/// container instance it probed.
pub fn probe_work(
    store: &Store,
    world: &World,
    target: ProbeTarget<'_>,
    run: probes::ProbeRun,
    now: Time,
    rng: &mut Rng,
) -> Outcome {
    let ProbeTarget {
        pod: name,
        container: c,
        kind,
        ..
    } = target;
    if store
        .pods
        .get(name)
        .is_some_and(|p| node_down(store, &p.node_name))
    {
        return Outcome::default();
    }
    let Some(mut k) = KubeletContext::new(store, world, now, rng, name) else {
        return Outcome::default();
    };
    let current = |r: &ContainerRuntime| match run {
        probes::ProbeRun::Tick => r.is_current_tick(&target),
        probes::ProbeRun::End => r.instance == target.instance,
    };
    // A pod being deleted stops its liveness and startup workers (`doProbe` reports Success and
    // ends them), but its readiness worker goes on probing while the containers shut down, so a
    // terminating pod can still turn not ready (spec §15.4 step 5).
    if k.runtime.containers.get(c).is_none_or(|r| !current(r))
        || (k.runtime.terminating && kind != ProbeKind::Readiness)
    {
        return Outcome::default();
    }
    probes::run_probe(&mut k, c, kind, run);
    k.finish()
}

/// A look of the pod worker that [`KubeletContext::look_again`] queued: a sync of the pod,
/// unless a later sync has queued another look since.
pub fn pod_worker_look(
    store: &Store,
    world: &World,
    name: &str,
    look: u32,
    now: Time,
    rng: &mut Rng,
) -> Outcome {
    if store.kubelet.get(name).is_none_or(|rt| rt.look != look) {
        return Outcome::default();
    }
    sync_pod(store, world, name, now, rng)
}

/// A container's process exits on its own.
pub fn container_exit(
    store: &Store,
    world: &World,
    name: &str,
    c: usize,
    instance: u32,
    now: Time,
    rng: &mut Rng,
) -> Outcome {
    let Some(mut k) = KubeletContext::new(store, world, now, rng, name) else {
        return Outcome::default();
    };
    if k.runtime
        .containers
        .get(c)
        .is_none_or(|r| r.instance != instance || r.running_since.is_none())
        || k.runtime.terminating
    {
        return Outcome::default();
    }
    let Some(spec) = k.spec_of(c) else {
        return Outcome::default();
    };
    let completes = k.runs_to_completion(c);
    // The exit the image plans comes exactly that long after the start; any other (the
    // `crash_pod` fault) exits with the image's `exit_code`.
    let behavior = k.world.behavior(&spec.image);
    let ran = k.runtime.containers[c]
        .running_since
        .map(|since| k.now.millis_since(since));
    let planned = behavior
        .exit_plan(completes)
        // At or, for an exit that fell while the kubelet was stopped, after its time.
        .filter(|&(after, _)| ran.is_some_and(|ran| ran >= after));
    let kill = k.runtime.containers[c]
        .killing
        .zip(k.runtime.containers[c].killed_at);
    if let Some((kind, at)) = kill {
        // The kill's own end (SIGTERM obeyed, or SIGKILL), unless an exit of the image's came
        // first.
        let end = probes::probe_kill(&k, c, kind);
        let by_the_kill = planned.is_none() && k.now == at.plus_millis(end.after_ms);
        let code = match planned {
            Some((_, code)) => code,
            None if by_the_kill => end.exit_code,
            None => behavior.exit_code,
        };
        probes::killed_container_exited(&mut k, c, kind, code, by_the_kill);
        return k.finish();
    }
    let code = planned.map_or(behavior.exit_code, |(_, code)| code);
    probes::container_stopped(&mut k, c, code, probes::exit_reason(code));
    let pod = &k.pod.metadata.name;
    let said = match (completes, code) {
        (true, 0) => {
            k.out.stage = Some(Stage::Schedule);
            let next = match k.spec_of(c + 1) {
                Some(n) if k.is_init(c + 1) => format!(
                    "the kubelet starts the next one, init container {} ({} of {})",
                    n.name,
                    c + 2,
                    k.inits()
                ),
                _ => "every init container has done its work: the pod is Initialized and the kubelet starts its app containers".to_string(),
            };
            format!(
                "Init container {} of {pod} completed (exit code 0), so {next}.",
                spec.name
            )
        }
        (true, _) => {
            k.out.stage = Some(Stage::Retry);
            format!(
                "Init container {} of {pod} exited with code {code}. An init container must succeed before the next one or the app containers start; restartPolicy is Always, so the kubelet runs it again, waiting longer after each failure (STATUS Init:Error; Init:CrashLoopBackOff once a sync finds the back-off running).",
                spec.name
            )
        }
        (false, _) => {
            k.out.stage = Some(Stage::Retry);
            format!(
                "{} of {pod} exited with code {code}. restartPolicy is Always, so the kubelet will restart it, waiting longer after each crash (CrashLoopBackOff).",
                capitalized(&k.container_title(c))
            )
        }
    };
    // The sync the exit asks for waits while another container's pull holds the pod worker.
    let held = probes::pull_in_flight(&k)
        .filter(|&other| other != c)
        .and_then(|other| k.spec_of(other))
        .map(|s| s.image.clone());
    let said = match held {
        Some(image) if !(completes && code == 0) => format!(
            "{said} But the pod worker is still in the sync that pulls {image} (a pull blocks it), so it looks at this exit only when that pull ends."
        ),
        _ => said,
    };
    k.out.say(said);
    let pod_name = k.work_name();
    k.after(0, Work::KubeletSyncPod(pod_name));
    k.finish()
}

/// `text` with its first letter in upper case, to open a sentence.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        let mut out = String::with_capacity(text.len());
        out.push(first.to_ascii_uppercase());
        out.push_str(chars.as_str());
        out
    })
}

/// The pull policy after defaulting (`Always` for `:latest` or untagged images).
pub fn pull_policy(c: &crate::sim::api::Container) -> PullPolicy {
    c.image_pull_policy
        .clone()
        .unwrap_or_else(|| default_pull_policy(&c.image))
}

/// The pull policy the API server gives an image that names none (`SetDefaults_Container`, and
/// `SetDefaults_ImageVolumeSource` for an image volume): `Always` for a `latest` tag or an image
/// with neither tag nor digest, else `IfNotPresent`.
pub fn default_pull_policy(image: &str) -> PullPolicy {
    let tag = image.rsplit('/').next().unwrap_or("");
    if !tag.contains(':') || tag.ends_with(":latest") {
        PullPolicy::Always
    } else {
        PullPolicy::IfNotPresent
    }
}

/// Whether a pod is running (for narration).
pub fn is_running(p: &Pod) -> bool {
    p.status.phase == PodPhase::Running
}
