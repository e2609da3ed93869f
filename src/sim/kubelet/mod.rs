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
    ContainerState, ContainerStatus, Event, EventReason, EventType, ObjectRef, Pod, PodPhase,
    PodStatus, PullPolicy, Time,
};
use crate::sim::controller::{Change, ObjectName, Outcome, ProbeKind, Work};
use crate::sim::rng::Rng;
use crate::sim::store::{PodName, Store};
use crate::sim::trace::Stage;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
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
    /// How long the process takes to exit after SIGTERM; `None` means it ignores SIGTERM and is
    /// killed when the grace period ends.
    pub shutdown_ms: Option<u64>,
    /// How long the app takes to answer a probe request once it listens; a probe whose
    /// `timeoutSeconds` is shorter fails with a timeout.
    pub response_ms: u64,
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
            shutdown_ms: None,
            response_ms: 0,
        }
    }
}

/// The world outside the control plane: image behaviours by image reference.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct World {
    pub images: BTreeMap<String, ImageBehavior>,
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
}

impl ProbeWorker {
    /// What a new container ID does to the worker: its result goes back to the initial value
    /// and it probes again if it was on hold.
    fn new_container(&mut self) {
        self.result = None;
        self.on_hold = false;
        self.last_observed = None;
    }
}

/// Node-local state for one container.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerRuntime {
    /// Increments on every (re)start: the container ID.
    pub instance: u32,
    pub pull_started: Option<Time>,
    /// How long the pull itself takes once the puller is free.
    pub pull_ms: u64,
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
}

impl ContainerRuntime {
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
    /// The readiness endpoint fails from now on (the `break_readiness` fault).
    #[serde(default)]
    pub readiness_broken: bool,
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

/// Whether the kubelet of `node` has stopped.
pub fn node_down(store: &Store, node: &str) -> bool {
    store
        .kubelet_nodes
        .get(node)
        .is_some_and(|r| r.kubelet_down)
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
}

impl<'a> KubeletContext<'a> {
    fn new(
        store: &'a Store,
        world: &'a World,
        now: Time,
        rng: &'a mut Rng,
        name: &str,
    ) -> Option<Self> {
        let (key, pod) = store.pods.get_key_value(name)?;
        if pod.node_name.is_empty() || node_down(store, &pod.node_name) {
            return None;
        }
        let stored_runtime = store.kubelet.get(name);
        let mut runtime = stored_runtime.cloned().unwrap_or_default();
        if runtime.containers.len() != pod.spec.containers.len() {
            runtime
                .containers
                .resize(pod.spec.containers.len(), ContainerRuntime::default());
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
        })
    }

    /// Records an event on a container of the pod.
    pub fn container_event(
        &mut self,
        c: usize,
        warning: bool,
        reason: EventReason,
        message: String,
    ) {
        let name = self
            .pod
            .spec
            .containers
            .get(c)
            .map_or("", |c| c.name.as_str());
        let involved_object = ObjectRef::container(&self.pod.metadata.name, name);
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
            source: [COMPONENT, ", ", &self.pod.node_name].concat().into(),
            dropped: false,
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

    /// Finishes the action: recomputes the pod status and records the writes.
    fn finish(mut self) -> Outcome {
        let mut status = self.status;
        status::generate_into(&mut status, &self.pod.spec, &self.runtime, self.now);
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
        c < self.pod.spec.containers.len()
            && c < self.runtime.containers.len()
            && c < self.status.container_statuses.len()
    }

    fn container_name(&self, c: usize) -> String {
        self.pod
            .spec
            .containers
            .get(c)
            .map(|c| c.name.clone())
            .unwrap_or_default()
    }

    fn set_state(&mut self, c: usize, state: ContainerState) {
        if let Some(cs) = self.status.to_mut().container_statuses.get_mut(c) {
            cs.state = state;
        }
    }
}

/// `syncPod`: the kubelet looks at a pod bound to its node and takes the next step for each
/// container — pull, start, restart after back-off — or begins termination.
pub fn sync_pod(store: &Store, world: &World, name: &str, now: Time, rng: &mut Rng) -> Outcome {
    let Some(mut k) = KubeletContext::new(store, world, now, rng, name) else {
        return Outcome::default();
    };
    if k.pod.is_terminal() {
        return k.finish();
    }
    if k.status.container_statuses.len() != k.pod.spec.containers.len() {
        k.status.to_mut().container_statuses = k
            .pod
            .spec
            .containers
            .iter()
            .map(|c| ContainerStatus {
                name: c.name.clone(),
                image: c.image.clone(),
                ..Default::default()
            })
            .collect();
        k.status.to_mut().start_time = Some(now.truncate_to_secs());
        k.runtime.sandbox_ready = true;
        k.runtime.sandbox_event_pending = true;
        probes::add_pod(&mut k);
    }
    if k.pod.metadata.deletion_timestamp.is_some() {
        begin_termination(&mut k);
        return k.finish();
    }
    sync_containers_from(&mut k, 0);
    k.finish()
}

/// Syncs the containers from `from` on, in the pod's order, as `SyncPod` starts them one after
/// another: a container whose image is being pulled blocks the pod worker, so the containers
/// after it wait for that pull to end (pulled or failed) before their turn.
fn sync_containers_from(k: &mut KubeletContext<'_>, from: usize) {
    for c in from..k.pod.spec.containers.len() {
        sync_container(k, c);
        if k.runtime
            .containers
            .get(c)
            .is_some_and(|r| r.pull_started.is_some())
        {
            return;
        }
    }
    // No pull holds the worker any more, so the sync the sandbox's lifecycle event asked for has
    // run (after a failed pull, as the quick retry `finish_pull` scheduled).
    k.runtime.sandbox_event_pending = false;
}

fn sync_container(k: &mut KubeletContext<'_>, c: usize) {
    if !k.has_container(c) {
        return;
    }
    let (rt, cs) = (&k.runtime.containers[c], &k.status.container_statuses[c]);
    if rt.running_since.is_some() || rt.pull_started.is_some() {
        return;
    }
    let state = cs.state.clone();
    let restarting = matches!(state, ContainerState::Terminated { .. })
        || cs.last_state.is_some()
            && matches!(state, ContainerState::Waiting { ref reason, .. } if reason == "CrashLoopBackOff");
    if restarting && !probes::crash_backoff_allows_restart(k, c) {
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
    let spec = &pod.spec.containers[c];
    let crash_after_ms = k.world.behavior(&spec.image).crash_after_ms;
    let restart = k.runtime.containers[c].instance > 0;
    {
        let rt = &mut k.runtime.containers[c];
        rt.instance += 1;
        rt.running_since = Some(now);
        rt.pull_started = None;
        rt.killing = None;
        rt.startup.new_container();
        rt.readiness.new_container();
        rt.liveness.new_container();
    }
    let cs = &mut k.status.to_mut().container_statuses[c];
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
    if let Some(crash) = crash_after_ms {
        k.after(
            crash,
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
        "The kubelet on {} created and started container {} of {}",
        pod.node_name, spec.name, pod.metadata.name
    );
    if restart {
        let _ = write!(
            said,
            " (restart {} of this container)",
            k.status.container_statuses[c].restart_count
        );
    }
    said.push('.');
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
}

/// A terminating pod: `Killing` each running container, then wait for the process to exit or
/// the grace period to end.
fn begin_termination(k: &mut KubeletContext<'_>) {
    if k.runtime.terminating {
        return;
    }
    k.runtime.terminating = true;
    let grace_ms = u64::try_from(k.pod.metadata.deletion_grace_period_seconds.unwrap_or(30))
        .unwrap_or(0)
        * 1000;
    let mut wait = 0;
    for c in 0..k.pod.spec.containers.len() {
        let rt = &mut k.runtime.containers[c];
        rt.pull_started = None;
        if rt.running_since.is_none() {
            continue;
        }
        let name = k.container_name(c);
        k.container_event(
            c,
            false,
            EventReason::Killing,
            format!("Stopping container {name}"),
        );
        let behavior = k.world.image(&k.pod.spec.containers[c].image);
        wait = wait.max(behavior.shutdown_ms.unwrap_or(grace_ms).min(grace_ms));
    }
    k.after(wait, Work::TerminationComplete(k.work_name()));
    k.out.stage = Some(Stage::Reconcile);
    k.out.say(format!(
        "{} was deleted, so the kubelet on {} sends SIGTERM to its containers; it shows Terminating until they exit ({}, grace period {}s).",
        k.pod.metadata.name,
        k.pod.node_name,
        go_duration(wait),
        grace_ms / 1000
    ));
}

/// The containers of a terminating pod have exited: the pod object is removed.
pub fn termination_complete(store: &Store, name: &str) -> Outcome {
    let mut out = Outcome::default();
    let Some(pod) = store.pods.get(name) else {
        return out;
    };
    if pod.metadata.deletion_timestamp.is_none() || node_down(store, &pod.node_name) {
        return out;
    }
    out.change(Change::RemovePod(name.to_string()));
    out.stage = Some(Stage::Reconcile);
    out.say(format!(
        "{name}'s containers have stopped, so the kubelet finishes the deletion and the pod is gone; its requests on {} are free again.",
        pod.node_name
    ));
    out
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
    images::finish_pull(&mut k, c);
    // The worker was blocked on this pull; the same sync goes on to the containers after it.
    sync_containers_from(&mut k, c + 1);
    k.finish()
}

/// Which probe worker ticks: the pod, the container index, the probe type and the container
/// instance the worker was started for.
#[derive(Clone, Copy, Debug)]
pub struct ProbeTarget<'a> {
    pub pod: &'a str,
    pub container: usize,
    pub kind: ProbeKind,
    pub instance: u32,
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
    if node_down(store, &pod.node_name) {
        return None;
    }
    let crt = rt.containers.get(target.container)?;
    if crt.instance != target.instance || rt.terminating {
        return None;
    }
    let since = crt.running_since?;
    let spec = pod.spec.containers.get(target.container)?;
    let p = probes::probe_spec(spec, target.kind)?;
    let w = match target.kind {
        ProbeKind::Startup => &crt.startup,
        ProbeKind::Readiness => &crt.readiness,
        ProbeKind::Liveness => &crt.liveness,
    };
    let settled = !w.on_hold
        && w.result == Some(true)
        && w.last_run == Some(true)
        && w.last_observed == Some(true);
    if !settled
        || !probes::passes(
            &effective_behavior(world, store, &spec.image, Some(rt)),
            since,
            target.kind,
            p,
            now,
        )
    {
        return None;
    }
    let period = probes::period_ms(p);
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
        || rt.containers.len() != pod.spec.containers.len()
        || target.container >= pod.status.container_statuses.len()
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

/// A probe worker's tick, run in full. The simulator answers quiet ticks with
/// [`quiet_probe_tick`] instead, which reaches the same outcome without copying the pod.
pub fn probe_tick(
    store: &Store,
    world: &World,
    target: ProbeTarget<'_>,
    now: Time,
    rng: &mut Rng,
) -> Outcome {
    let ProbeTarget {
        pod: name,
        container: c,
        kind,
        instance,
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
    if k.runtime
        .containers
        .get(c)
        .is_none_or(|r| r.instance != instance)
        || k.runtime.terminating
    {
        return Outcome::default();
    }
    probes::run_probe(&mut k, c, kind);
    k.finish()
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
    let behavior = k.world.image(&k.pod.spec.containers[c].image);
    let code = behavior.exit_code;
    probes::container_stopped(
        &mut k,
        c,
        code,
        if code == 0 { "Completed" } else { "Error" },
    );
    let name_c = k.container_name(c);
    k.out.stage = Some(Stage::Retry);
    k.out.say(format!(
        "Container {name_c} of {} exited with code {code}. restartPolicy is Always, so the kubelet will restart it, waiting longer after each crash (CrashLoopBackOff).",
        k.pod.metadata.name
    ));
    let pod_name = k.work_name();
    k.after(0, Work::KubeletSyncPod(pod_name));
    k.finish()
}

/// The pull policy after defaulting (`Always` for `:latest` or untagged images).
pub fn pull_policy(c: &crate::sim::api::Container) -> PullPolicy {
    c.image_pull_policy.clone().unwrap_or_else(|| {
        let tag = c.image.rsplit('/').next().unwrap_or("");
        if !tag.contains(':') || tag.ends_with(":latest") {
            PullPolicy::Always
        } else {
            PullPolicy::IfNotPresent
        }
    })
}

/// Whether a pod is running (for narration).
pub fn is_running(p: &Pod) -> bool {
    p.status.phase == PodPhase::Running
}
