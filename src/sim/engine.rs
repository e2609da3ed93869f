//! The simulator: a logical clock, one seeded random generator, an ordered queue of pending work,
//! and the cluster state. [`Sim::step`] takes the next piece of work that changes something,
//! runs exactly one actor on it, applies the changes, and returns the [`Step`] it took.

use super::api::{Deployment, Node, NodeSpec, NodeStatus, ObjectMeta, Pod, StringMap, Time};
use super::chunked::ChunkedMap;
use super::commands::{self, Command, CommandError};
use super::controller::replica_set::{self, PodQuota};
use super::controller::scheduler::{self, Plugins};
use super::controller::topology_spread;
use super::controller::workqueue::RateLimitedRequeues;
use super::controller::{
    Change, ObjectName, Outcome, Work, deployment, disruption, node_lifecycle,
};
use super::fingerprint;
use super::kubelet::{self, World, probes::ProbeRun};
use super::recorder::EventAggregator;
use super::rng::Rng;
use super::store::{PodName, Store, Touched};
use super::trace::{Stage, Step};
use crate::sim::order;
use imbl::OrdMap;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Fixed facts about a run: the world outside the control plane and the limits.
#[derive(Clone, Debug, Default)]
pub struct SimConfig {
    pub world: World,
    pub quota: PodQuota,
    /// The PodDisruptionBudgets the namespace starts with.
    pub disruption_budgets: Vec<crate::sim::api::PodDisruptionBudget>,
}

/// A user command scheduled at a simulated time.
#[derive(Clone, Debug)]
pub struct TimedCommand {
    pub at: Time,
    pub command: Command,
}

/// The queue of pending work, ordered by due time and then by the order it was added, with a
/// workqueue's de-duplication: adding an item that is already pending no later is a no-op.
///
/// Chunked maps, whose chunks a snapshot shares, keep a snapshot of the queue cheap to take
/// and each write to it a matter of one chunk.
#[derive(Clone, Debug, Default)]
struct WorkQueue {
    /// Keyed by (due, sequence number): the sequence is unique, so items never compare by their
    /// work, whose names would cost a string comparison at every step of a search. Each item
    /// keeps its work's fingerprint, so that taking it out needs no second hash.
    items: ChunkedMap<(Time, u64), (u64, Work)>,
    /// The pending index: for each distinct pending work, the key of the item that holds its due
    /// time, filed under the work's fingerprint. The work itself lives only in `items`; a lookup
    /// compares integers on the way down and the work once, against the item it finds (or a
    /// few, on a rare fingerprint collision).
    pending: ChunkedMap<u64, PendingSlots>,
    seq: u64,
}

/// The items of the pending index that share one fingerprint: almost always one, so the first
/// is kept inline and only collisions take the vector, which then allocates.
#[derive(Clone, Debug)]
struct PendingSlots {
    first: (Time, u64),
    more: Vec<(Time, u64)>,
}

impl PendingSlots {
    fn iter(&self) -> impl Iterator<Item = (Time, u64)> + '_ {
        std::iter::once(self.first).chain(self.more.iter().copied())
    }

    /// Drops `key`, which must not be the only one (the caller drops the whole entry then).
    fn remove(&mut self, key: (Time, u64)) {
        if self.first == key {
            if !self.more.is_empty() {
                self.first = self.more.remove(0);
            }
        } else {
            self.more.retain(|k| *k != key);
        }
    }
}

/// The key among `slots` of the item that holds the pending due time of `work`, if `work` is
/// pending. `taken` is the key of an item just taken out of `items`, whose work is `work`.
fn holder(
    items: &ChunkedMap<(Time, u64), (u64, Work)>,
    slots: &PendingSlots,
    work: &Work,
    taken: Option<(Time, u64)>,
) -> Option<(Time, u64)> {
    slots
        .iter()
        .find(|key| Some(*key) == taken || items.get(key).is_some_and(|(_, w)| w == work))
}

impl WorkQueue {
    fn push(&mut self, due: Time, work: Work) {
        self.push_hashed(due, fingerprint::of(&work), work);
    }

    /// Adds `work` at `due` even when it is already pending earlier, as client-go's delaying
    /// queue keeps an `AddAfter` apart from the key already queued: the earlier run does not
    /// stand in for this later one. It is not indexed as pending, so nothing merges into it.
    fn push_after(&mut self, due: Time, work: Work) {
        self.seq += 1;
        let fp = fingerprint::of(&work);
        self.items.insert((due, self.seq), (fp, work));
    }

    /// [`WorkQueue::push`] with the work's fingerprint already known.
    fn push_hashed(&mut self, due: Time, fp: u64, work: Work) {
        // Looked up once: the holder of this work, if pending, and whether it is alone under
        // the fingerprint (as all but a colliding few are).
        let found = self.pending.get(&fp).map(|slots| {
            (
                holder(&self.items, slots, &work, None),
                slots.more.is_empty(),
            )
        });
        if let Some((Some(existing), _)) = found
            && existing.0 <= due
        {
            return;
        }
        self.seq += 1;
        let key = (due, self.seq);
        self.items.insert(key, (fp, work));
        match found {
            None => {
                self.pending.insert(
                    fp,
                    PendingSlots {
                        first: key,
                        more: Vec::new(),
                    },
                );
            }
            Some((existing, alone)) => {
                if let Some(slots) = self.pending.get_mut(&fp) {
                    match existing {
                        Some(_) if alone => slots.first = key,
                        _ => {
                            if let Some(existing) = existing {
                                slots.remove(existing);
                            }
                            slots.more.push(key);
                        }
                    }
                }
            }
        }
    }

    fn peek_due(&self) -> Option<Time> {
        self.items.first().map(|((t, _), _)| *t)
    }

    /// Takes out the earliest item and adds its work again at `due`: the same as
    /// [`WorkQueue::pop`] and then [`WorkQueue::push`], done in place when the item alone holds
    /// its work's pending time (a quiet probe tick always does), so that the pending index is
    /// looked up once rather than four times.
    fn requeue_first(&mut self, due: Time) {
        let Some((key, fp)) = self.items.first().map(|(key, (fp, _))| (*key, *fp)) else {
            return;
        };
        let next = (due, self.seq + 1);
        let moved = match self.pending.get_mut(&fp) {
            Some(slots) if slots.first == key && slots.more.is_empty() => {
                slots.first = next;
                true
            }
            _ => false,
        };
        if !moved {
            if let Some((_, fp, work)) = self.pop() {
                self.push_hashed(due, fp, work);
            }
            return;
        }
        if let Some((_, item)) = self.items.pop_first() {
            self.seq = next.1;
            self.items.insert(next, item);
        }
    }

    /// Takes out the earliest item: its due time, its work's fingerprint and the work.
    fn pop(&mut self) -> Option<(Time, u64, Work)> {
        let (key, (fp, work)) = self.items.pop_first()?;
        // The work stops being pending if its pending due time is this item's, whichever item
        // holds it (an equal work added again at the same time after this one was superseded).
        if let Some(slots) = self.pending.get(&fp)
            && let Some(pending) = holder(&self.items, slots, &work, Some(key))
            && pending.0 == key.0
        {
            if slots.more.is_empty() {
                self.pending.remove(&fp);
            } else if let Some(slots) = self.pending.get_mut(&fp) {
                slots.remove(pending);
            }
        }
        Some((key.0, fp, work))
    }
}

/// The simulator. Cloning it is a snapshot: same seed, same state, same future.
#[derive(Clone, Debug)]
pub struct Sim {
    store: Store,
    config: Arc<SimConfig>,
    clock: Time,
    rng: Rng,
    queue: WorkQueue,
    actions: Arc<Vec<TimedCommand>>,
    steps: usize,
    /// How many scheduled commands have run.
    actions_run: usize,
    /// Pods the scheduler could not place, with the plugins that turned them down: retried
    /// when the cluster changes in a way one of those plugins cares about.
    unschedulable: OrdMap<PodName, Plugins>,
    /// The controllers' per-key failure counts and waiting retries, which space out the syncs
    /// of a key whose sync keeps failing.
    requeues: RateLimitedRequeues,
    /// The event recorders' aggregation of similar events.
    recorder: EventAggregator,
    /// While a watch on Deployments is open ([`Sim::watch_deployments`]), the Deployment after
    /// each write of the current step that changed it; `None` (and no cost) otherwise.
    deployment_watch: Option<Vec<Deployment>>,
}

/// The most silent (no-op) work items one call to `step` will process at one instant before
/// giving up, so that work that keeps coming at the same moment without changing anything
/// cannot hold a call forever. Silent work that moves time on (probes ticking through a long
/// grace period) is bounded by the call's time limit instead: stopping it early would end a run
/// before its `run_until` while claiming to have reached it.
const MAX_SILENT_WORK: usize = 2_000_000;

impl Sim {
    /// A simulator with the given nodes, configuration, seed and scheduled commands. The commands
    /// run in time order (ties in the order given).
    pub fn new(
        nodes: Vec<Node>,
        config: SimConfig,
        seed: u64,
        mut actions: Vec<TimedCommand>,
    ) -> Sim {
        let mut store = Store::default();
        for n in nodes {
            store.add_node(n);
        }
        // The scenario's ConfigMaps and Secrets exist from the start.
        for (name, keys) in &config.world.config_maps {
            store.config_maps.insert(name.clone(), keys.clone());
        }
        for (name, keys) in &config.world.secrets {
            store.secrets.insert(name.clone(), keys.clone());
        }
        order::sort_by_key(&mut actions, |a| a.at);
        let mut queue = WorkQueue::default();
        // The budgets exist from the start, and the disruption controller counts each at once.
        let mut rng = Rng::new(seed);
        for b in &config.disruption_budgets {
            let mut b = b.clone();
            b.metadata.generation = 1;
            b.metadata.uid = rng.uid();
            let name = b.metadata.name.clone();
            queue.push(Time::ZERO, Work::SyncDisruptionBudget(name.as_str().into()));
            store.pdbs.insert(name, b);
        }
        for (i, a) in actions.iter().enumerate() {
            queue.push(a.at, Work::Action(i));
        }
        Sim {
            store,
            config: Arc::new(config),
            clock: Time::ZERO,
            rng,
            queue,
            actions: Arc::new(actions),
            steps: 0,
            actions_run: 0,
            unschedulable: OrdMap::new(),
            requeues: RateLimitedRequeues::default(),
            recorder: EventAggregator::default(),
            deployment_watch: None,
        }
    }

    /// A ready node with the given allocatable CPU (milli) and memory (bytes).
    pub fn node(name: &str, index: u32, milli_cpu: i64, memory: i64, max_pods: i64) -> Node {
        // The labels the kubelet gives the node it registers (`initialNode`, the deprecated beta
        // ones included), and the annotations its attach/detach setting and the TTL controller
        // add to every node of a small cluster.
        let owned = |pairs: &[(&str, &str)]| -> StringMap {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect::<BTreeMap<_, _>>()
                .into()
        };
        Node {
            metadata: ObjectMeta {
                name: name.to_string(),
                labels: owned(&[
                    ("beta.kubernetes.io/arch", "amd64"),
                    ("beta.kubernetes.io/os", "linux"),
                    ("kubernetes.io/arch", "amd64"),
                    ("kubernetes.io/hostname", name),
                    ("kubernetes.io/os", "linux"),
                ]),
                annotations: owned(&[
                    ("node.alpha.kubernetes.io/ttl", "0"),
                    (
                        "volumes.kubernetes.io/controller-managed-attach-detach",
                        "true",
                    ),
                ]),
                ..Default::default()
            },
            spec: NodeSpec {
                unschedulable: false,
                pod_cidr_index: index,
                taints: Vec::new(),
            },
            status: NodeStatus {
                allocatable_milli_cpu: milli_cpu,
                allocatable_memory: memory,
                allocatable_pods: max_pods,
                ready: true,
                images: Vec::new(),
            },
        }
    }

    /// The cluster state now.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The simulated time now.
    pub fn now(&self) -> Time {
        self.clock
    }

    /// How many steps have been taken.
    pub fn steps_taken(&self) -> usize {
        self.steps
    }

    /// The world (image behaviours) this run uses.
    pub fn world(&self) -> &World {
        &self.config.world
    }

    /// The due time of the next pending work, if any.
    pub fn next_due(&self) -> Option<Time> {
        self.queue.peek_due()
    }

    /// Whether every scheduled command has run.
    pub fn actions_done(&self) -> bool {
        self.actions_run >= self.actions.len()
    }

    /// Opens a watch on Deployments: from now on [`Sim::deployment_writes`] lists, after each
    /// step, every write of that step that changed a Deployment, as the Modified events a
    /// watch receives (a write that changes nothing sends no event, as the API server does not
    /// bump the resourceVersion of an unchanged object).
    pub fn watch_deployments(&mut self) {
        self.deployment_watch.get_or_insert_with(Vec::new);
    }

    /// The Deployments as each write of the last step left them, in the order written (empty
    /// unless [`Sim::watch_deployments`] was called).
    pub fn deployment_writes(&self) -> &[Deployment] {
        self.deployment_watch.as_deref().unwrap_or(&[])
    }

    /// Takes the next step, or `None` when nothing is left to do.
    pub fn step(&mut self) -> Option<Step> {
        self.step_until(Time(u64::MAX))
    }

    /// Takes the next step if it happens at or before `limit`.
    pub fn step_until(&mut self, limit: Time) -> Option<Step> {
        self.step_until_or(limit, &mut |_| false)
    }

    /// Takes the next step if it happens at or before `limit`, unless `stop` says the run is
    /// over. `stop` is asked whenever no more work is due at the current instant, before time
    /// moves on.
    pub fn step_until_or(
        &mut self,
        limit: Time,
        stop: &mut dyn FnMut(&Sim) -> bool,
    ) -> Option<Step> {
        // Silent work changes nothing observable, so whether the run is over can only change
        // with a recorded step: asking once per call, at the first moment time would move on,
        // is enough.
        let mut asked = false;
        if let Some(writes) = &mut self.deployment_watch {
            writes.clear();
        }
        let mut instant = self.clock;
        let mut silent_here = 0;
        loop {
            if self.clock == instant {
                silent_here += 1;
                if silent_here > MAX_SILENT_WORK {
                    return None;
                }
            } else {
                instant = self.clock;
                silent_here = 0;
            }
            let due = self.queue.peek_due()?;
            if due > self.clock && !asked {
                asked = true;
                if stop(self) {
                    return None;
                }
            }
            if due > limit {
                return None;
            }
            self.clock = self.clock.max(due);
            if self.quiet_probe_tick() {
                continue;
            }
            let (_, _, work) = self.queue.pop()?;
            if let Some(step) = self.run(work) {
                return Some(step);
            }
        }
    }

    /// Runs a user command now (the UI's "apply"), as `kubectl` would at the current time.
    ///
    /// # Errors
    /// The API server's or kubectl's refusal; the state is then unchanged.
    pub fn apply_command(&mut self, command: &Command) -> Result<Step, CommandError> {
        let outcome = commands::execute(&self.store, command, self.clock)?;
        let object = command.object(&self.store);
        Ok(self
            .finish(Subject::Kubectl(object), outcome, Stage::Declare)
            .unwrap_or_else(|| Step {
                index: self.steps,
                time: self.clock,
                actor: "kubectl".to_string(),
                object: command.object(&self.store),
                stage: command.stage(),
                narration: "Nothing changed.".to_string(),
                events: Vec::new(),
            }))
    }

    /// Answers the earliest work, due now, if it is a quiet probe tick (most of the work in a
    /// healthy run): the tick goes back into the queue one period later, as the kubelet's lone
    /// requeue would put it, without being taken out and built anew, and a success still being
    /// counted is written as the kubelet's own state. Returns whether it did.
    fn quiet_probe_tick(&mut self) -> bool {
        let now = self.clock;
        let Some((_, (_, work))) = self.queue.items.first() else {
            return false;
        };
        let Work::ProbeTick {
            pod,
            container,
            probe,
            instance,
            ticker,
        } = work
        else {
            return false;
        };
        let target = kubelet::ProbeTarget {
            pod,
            container: *container,
            kind: *probe,
            instance: *instance,
            ticker: *ticker,
        };
        let Some(tick) = kubelet::quiet_probe_tick(&self.store, &self.config.world, target, now)
        else {
            return false;
        };
        // The count goes straight into the stored state: a kubelet state write wakes no one,
        // and the pod and its state exist, as the tick just read them.
        if let Some(run_count) = tick.run_count {
            kubelet::count_quiet_tick(&mut self.store, target, run_count);
        }
        self.queue.requeue_first(now.plus_millis(tick.period));
        true
    }

    /// Runs one piece of work.
    fn run(&mut self, work: Work) -> Option<Step> {
        let now = self.clock;
        let cfg = Arc::clone(&self.config);
        let (subject, mut outcome, default_stage) = match &work {
            Work::Action(i) => {
                self.actions_run += 1;
                let cmd = self.actions.get(*i)?.command.clone();
                let object = cmd.object(&self.store);
                let outcome = match commands::execute(&self.store, &cmd, now) {
                    Ok(o) => o,
                    Err(e) => {
                        let mut o = Outcome::default();
                        // A message of several lines (a warning before the error) starts on
                        // its own line, as kubectl prints it.
                        let text = e.to_string();
                        let sep = if text.contains('\n') { "\n" } else { " " };
                        o.say(match cmd.fault() {
                            Some(fault) => format!("The fault ({fault}) has no target:{sep}{text}"),
                            None => format!("{} was refused:{sep}{text}", cmd.describe()),
                        });
                        o.stage = Some(cmd.stage());
                        o.events.clear();
                        self.steps += 1;
                        return Some(Step {
                            index: self.steps,
                            time: now,
                            actor: "kubectl".to_string(),
                            object,
                            stage: cmd.stage(),
                            narration: o.narration.into_text().unwrap_or_default(),
                            events: Vec::new(),
                        });
                    }
                };
                (Subject::Kubectl(object), outcome, cmd.stage())
            }
            Work::SyncDeployment(name) => (
                Subject::component(deployment::COMPONENT, "deployment", name),
                deployment::sync_deployment(&self.store, name, now),
                Stage::Readiness,
            ),
            Work::SyncReplicaSet(name) => (
                Subject::component(replica_set::COMPONENT, "replicaset", name),
                replica_set::sync_replica_set(&self.store, name, now, &mut self.rng, &cfg.quota),
                Stage::Readiness,
            ),
            Work::SchedulePod(name) => {
                let (o, rejectors) = scheduler::schedule_pod(&self.store, name, now, &mut self.rng);
                if o.changes
                    .iter()
                    .any(|c| matches!(c, Change::BindPod { .. }))
                {
                    self.unschedulable.remove(&**name);
                    // A pod now bound may be one another pending pod's affinity asks for, or
                    // one its topology spread constraints count.
                    self.wake_unschedulable(Plugins::ON_ASSIGNED_POD_ADD);
                    if let Some(bound) = self.store.pods.get(&**name).cloned() {
                        self.wake_spread(|cs, pending| {
                            pending != bound.metadata.name.as_str()
                                && cs.iter().any(|c| c.selects(&bound.metadata.labels))
                        });
                    }
                } else if !o.events.is_empty() {
                    // With no node, no plugin turned the pod down, and any event may help.
                    let rejectors = if rejectors == Plugins::NONE {
                        Plugins::ALL
                    } else {
                        rejectors
                    };
                    self.unschedulable.insert(name.clone(), rejectors);
                }
                (
                    Subject::component(scheduler::COMPONENT, "pod", name),
                    o,
                    Stage::Schedule,
                )
            }
            Work::KubeletSyncPod(name) => {
                self.kubelet_work(name, |s, w, r| kubelet::sync_pod(s, w, name, now, r))
            }
            Work::PodWorkerLook { pod, look } => self.kubelet_work(pod, |s, w, r| {
                kubelet::pod_worker_look(s, w, pod, *look, now, r)
            }),
            Work::PullComplete { pod, container } => self.kubelet_work(pod, |s, w, r| {
                kubelet::pull_complete(s, w, pod, *container, now, r)
            }),
            Work::ProbeTick {
                pod,
                container,
                probe,
                instance,
                ticker,
            } => {
                let target = kubelet::ProbeTarget {
                    pod,
                    container: *container,
                    kind: *probe,
                    instance: *instance,
                    ticker: *ticker,
                };
                self.probe_work(target, ProbeRun::Tick)
            }
            // A run's end belongs to the container instance, whatever the ticker.
            Work::ProbeRunEnd {
                pod,
                container,
                probe,
                instance,
            } => self.probe_work(
                kubelet::ProbeTarget {
                    pod,
                    container: *container,
                    kind: *probe,
                    instance: *instance,
                    ticker: 0,
                },
                ProbeRun::End,
            ),
            Work::ContainerExit {
                pod,
                container,
                instance,
            } => self.kubelet_work(pod, |s, w, r| {
                kubelet::container_exit(s, w, pod, *container, *instance, now, r)
            }),
            Work::NodeMonitor(node) => (
                Subject::component(node_lifecycle::COMPONENT, "node", node),
                node_lifecycle::monitor_node_health(&self.store, node, now),
                Stage::Retry,
            ),
            Work::TaintEviction { node, tainted_at } => (
                Subject::component("taint-eviction-controller", "node", node),
                node_lifecycle::taint_eviction(&self.store, node, *tainted_at, now),
                Stage::Retry,
            ),
            Work::KubeletNodeStatus(node) => (
                Subject::KubeletNode { node },
                kubelet::sync_node_status(&self.store, node),
                Stage::Schedule,
            ),
            Work::TerminationComplete(name) => self.kubelet_work(name, |s, w, r| {
                kubelet::termination_complete(s, w, name, now, r)
            }),
            Work::OverlappingBudgets { pod, chosen, count } => (
                Subject::component("disruption-controller", "pod", pod),
                disruption::overlapping_budgets(pod, chosen, *count),
                Stage::Retry,
            ),
            Work::SyncDisruptionBudget(name) => (
                Subject::component("disruption-controller", "poddisruptionbudget", name),
                disruption::sync_disruption_budget(&self.store, name, now),
                Stage::Retry,
            ),
            // A retry is kubectl's own output, so it is a step like a command; a drain that is
            // over has nothing to retry, and that is no step at all.
            Work::DrainRetry(id) | Work::DrainPoll(id) => {
                let outcome = match work {
                    Work::DrainRetry(_) => super::drain::retry(&self.store, *id, now),
                    _ => super::drain::poll(&self.store, *id, now),
                };
                match self.store.drains.iter().find(|d| d.id == *id) {
                    // A look that finds nothing to say is no step.
                    Some(d) if !outcome.is_noop() => (
                        Subject::Kubectl(["node/", &d.node].concat()),
                        outcome,
                        Stage::Declare,
                    ),
                    _ => (
                        Subject::component("kubectl", "node", ""),
                        Outcome::default(),
                        Stage::Declare,
                    ),
                }
            }
        };
        // The controllers' workers forget a key whose sync succeeded and requeue a failed one
        // with rate limiting.
        if matches!(work, Work::SyncDeployment(_) | Work::SyncReplicaSet(_))
            && let Some(due) =
                self.requeues
                    .after_sync(&work, outcome.error.is_some(), outcome.rate_limited, now)
        {
            outcome.requeue.push((due.millis_since(now), work.clone()));
        }
        self.finish(subject, outcome, default_stage)
    }

    fn probe_work<'w>(
        &mut self,
        target: kubelet::ProbeTarget<'w>,
        run: ProbeRun,
    ) -> (Subject<'w>, Outcome, Stage) {
        let now = self.clock;
        self.kubelet_work(target.pod, |s, w, r| {
            kubelet::probe_work(s, w, target, run, now, r)
        })
    }

    fn kubelet_work<'w>(
        &mut self,
        pod: &'w str,
        f: impl FnOnce(&Store, &World, &mut Rng) -> Outcome,
    ) -> (Subject<'w>, Outcome, Stage) {
        let cfg = Arc::clone(&self.config);
        let outcome = f(&self.store, &cfg.world, &mut self.rng);
        (Subject::Kubelet { pod }, outcome, Stage::Schedule)
    }

    /// Applies an outcome and, unless it was a no-op, records it as a step.
    fn finish(
        &mut self,
        subject: Subject<'_>,
        outcome: Outcome,
        default_stage: Stage,
    ) -> Option<Step> {
        let now = self.clock;
        // A user command is always a step, even one that only changes node-local state (a fault).
        let noop = outcome.is_noop() && !matches!(subject, Subject::Kubectl(_));
        // Named before the changes apply: a kubelet is named after the node of the pod it acted
        // on, and the step may remove that pod.
        let names = (!noop).then(|| match (outcome.actor, subject) {
            (Some(actor), Subject::Kubelet { pod }) => (actor, ["pod/", pod].concat()),
            (_, subject) => subject.names(&self.store),
        });
        for (delay, w) in outcome.requeue {
            self.queue.push(now.plus_millis(delay), w);
        }
        for change in outcome.changes {
            self.apply_change(change);
        }
        let (actor, object) = names?;
        self.steps += 1;
        let mut events = outcome.events;
        for e in &mut events {
            // A kubelet's events carry the run of its process, which restarts after a stop.
            if let Some(node) = e.source.strip_prefix("kubelet, ") {
                e.run = self.store.kubelet_nodes.get(node).map_or(0, |r| r.restarts);
            }
            self.recorder.record(e, now);
        }
        let mut narration = outcome
            .narration
            .into_text()
            .unwrap_or_else(|| default_narration(&actor, &events));
        // A drain at work prints a line for each of its pods this step removed; kubectl's
        // client state is written as any change is.
        if !self.store.drains.is_empty()
            && let Some((said, changed)) = super::drain::progress(&self.store, now)
        {
            for wait in changed {
                self.apply_change(Change::WatchDrain(Box::new(wait)));
            }
            narration.push(' ');
            narration.push_str(&said);
        }
        Some(Step {
            index: self.steps,
            time: now,
            actor,
            object,
            stage: outcome.stage.unwrap_or(default_stage),
            narration,
            events,
        })
    }

    fn apply_change(&mut self, mut change: Change) {
        let now = self.clock;
        // The API server gives new objects their UIDs.
        match &mut change {
            Change::CreateReplicaSet(rs) if rs.metadata.uid.is_empty() => {
                rs.metadata.uid = self.rng.uid()
            }
            Change::CreatePod(p) if p.metadata.uid.is_empty() => p.metadata.uid = self.rng.uid(),
            Change::UpdateDeployment(d)
                if d.metadata.uid.is_empty()
                    && !self.store.deployments.contains_key(&d.metadata.name) =>
            {
                d.metadata.uid = self.rng.uid();
            }
            _ => {}
        }
        let deleted_pod = match &change {
            Change::DeletePod { name, .. } => Some(name.clone()),
            _ => None,
        };
        let drain = match &change {
            Change::WatchDrain(wait) => Some(wait.id),
            _ => None,
        };
        let watched = match (&self.deployment_watch, &change) {
            (Some(_), Change::UpdateDeployment(d) | Change::UpdateDeploymentStatus(d)) => Some((
                d.metadata.name.clone(),
                self.store.deployments.get(&d.metadata.name).cloned(),
            )),
            _ => None,
        };
        let touched = self.store.apply(change, now);
        if let Some((name, before)) = watched
            && let Some(after) = self.store.deployments.get(&name)
            && before.as_ref() != Some(after)
            && let Some(writes) = &mut self.deployment_watch
        {
            writes.push(after.clone());
        }
        if let Some(name) = deleted_pod
            && let Some((key, _)) = self.store.pods.get_key_value(name.as_str())
        {
            self.queue.push(now, Work::KubeletSyncPod(Arc::clone(key)));
        }
        // A drain that waits with a timeout, or skips pods stuck terminating, looks at its
        // pods again when one of those can next happen.
        if let Some(id) = drain
            && let Some(wait) = self.store.drains.iter().find(|d| d.id == id)
            && let Some(at) = super::drain::next_poll(&self.store, wait, now)
        {
            self.queue.push(at, Work::DrainPoll(id));
        }
        if let Some(t) = touched {
            self.informers(t);
        }
    }

    /// The disruption controller's pod handlers (`addPod`, `updatePod`, `deletePod`): the budgets
    /// that count the pod are recounted, and a pod several count gets `getPdbForPod`'s warning
    /// at each of its events. Upstream recounts only the one it picks (arbitrarily); every
    /// budget here exists before its pods, so one that is never picked would never be counted
    /// again, and its drains would wait for ever.
    fn disruption_pod_handler(&mut self, pod: &ObjectName, labels: &BTreeMap<String, String>) {
        let now = self.clock;
        let counting: Vec<ObjectName> = self
            .store
            .pdbs
            .values()
            .filter(|b| b.counts(labels))
            .map(|b| b.metadata.name.as_str().into())
            .collect();
        let Some(chosen) = counting.first().cloned() else {
            return;
        };
        // `getPdbForPod` warns on every pod event the handlers see, not only a creation.
        if counting.len() > 1 {
            self.queue.push(
                now,
                Work::OverlappingBudgets {
                    pod: Arc::clone(pod),
                    chosen: Arc::clone(&chosen),
                    count: counting.len(),
                },
            );
        }
        for b in counting {
            self.queue.push(now, Work::SyncDisruptionBudget(b));
        }
    }

    /// The informers' event handlers: who wakes up when an object changes.
    fn informers(&mut self, touched: Touched) {
        let now = self.clock;
        match touched {
            Touched::Deployment(name) => self.queue.push(now, Work::SyncDeployment(name.into())),
            Touched::ReplicaSet { name, owner } => {
                if self.store.replica_sets.contains_key(&name) {
                    self.queue.push(now, Work::SyncReplicaSet(name.into()));
                }
                if let Some(owner) = owner {
                    self.queue.push(now, Work::SyncDeployment(owner.into()));
                }
            }
            Touched::Pod {
                name,
                owner,
                bound,
                removed,
                created,
                relevant,
                became_ready,
                freed_host_ports,
                removed_labels,
            } => {
                if created {
                    self.queue.push(now, Work::SchedulePod(name.clone()));
                }
                if removed {
                    self.unschedulable.remove(&*name);
                }
                // The disruption controller's pod handlers; a pod that went away is found by
                // the labels it had.
                if !self.store.pdbs.is_empty()
                    && let Some(labels) = removed_labels.clone().or_else(|| {
                        self.store
                            .pods
                            .get(&*name)
                            .map(|p| p.metadata.labels.clone())
                    })
                {
                    self.disruption_pod_handler(&name, &labels);
                }
                if let Some((uid, owner_name)) = owner
                    && relevant
                {
                    // The owner's Deployment is only wanted when the pod went away. ReplicaSets
                    // are filed under their names, so the owner's name is the ReplicaSet's.
                    let rs = self
                        .store
                        .replica_sets
                        .get(&owner_name)
                        .filter(|rs| rs.metadata.uid == uid)
                        .map(|rs| {
                            (
                                removed
                                    .then(|| rs.metadata.controller_ref().map(|r| r.name.clone()))
                                    .flatten(),
                                rs.spec.min_ready_seconds,
                            )
                        });
                    if let Some((owner, min_ready)) = rs {
                        // A pod that just turned Ready counts as available only after the
                        // ReplicaSet's minReadySeconds: upstream `updatePod` also enqueues the
                        // ReplicaSet for then, whether or not its syncs are failing meanwhile
                        // (spec §14.1 step 6). IsPodAvailable compares strictly, so the look
                        // comes one millisecond after the boundary.
                        if became_ready && min_ready > 0 {
                            self.queue.push_after(
                                now.plus_millis(
                                    super::controller::replica_set::min_ready_ms(min_ready) + 1,
                                ),
                                Work::SyncReplicaSet(owner_name.as_str().into()),
                            );
                        }
                        self.queue
                            .push(now, Work::SyncReplicaSet(owner_name.into()));
                        // The Recreate strategy waits for the last old pod to go: upstream's
                        // `deletePod` enqueues the Deployment only once none of its
                        // ReplicaSets has a pod left, terminating or not (spec §2).
                        if removed
                            && let Some(d) = owner.and_then(|o| self.store.deployments.get(&o))
                            && d.strategy_type() == super::api::DeploymentStrategyType::Recreate
                            && !self.store.replica_sets_owned_by(&d.metadata.uid).any(|rs| {
                                self.store.pods_owned_by(&rs.metadata.uid).next().is_some()
                            })
                        {
                            let d = d.metadata.name.as_str().into();
                            self.queue.push(now, Work::SyncDeployment(d));
                        }
                    }
                }
                if removed && bound {
                    let wakes = if freed_host_ports {
                        Plugins::ON_ASSIGNED_POD_DELETE
                    } else {
                        Plugins::ON_ASSIGNED_POD_DELETE.without(Plugins::NODE_PORTS)
                    };
                    self.wake_unschedulable(wakes);
                }
                if bound && let Some(labels) = removed_labels {
                    self.wake_spread(|cs, _| cs.iter().any(|c| c.selects(&labels)));
                }
            }
            Touched::Node {
                name,
                wakes,
                taints_before,
            } => {
                self.wake_unschedulable(wakes);
                let taints_changed = taints_before.is_some();
                // TaintToleration's node hint (`isSchedulableAfterNodeChange`): a pod it turned
                // down is retried when it did not tolerate the node's old taints and tolerates
                // the new ones.
                if let (Some(before), Some(node)) = (&taints_before, self.store.nodes.get(&name)) {
                    let after = node.taints();
                    let tolerates = |pod: &Pod, taints: &[super::api::Taint]| {
                        super::api::toleration::untolerated_taint(
                            &super::api::toleration::of_pod(&pod.spec),
                            taints,
                        )
                        .is_none()
                    };
                    self.wake_where(|pod, rejectors| {
                        rejectors.intersects(Plugins::TAINT_TOLERATION)
                            && !tolerates(pod, before)
                            && tolerates(pod, &after)
                    });
                }
                // PodTopologySpread's node hint (`isSchedulableAfterNodeChange`): a change of
                // taints on a node carrying every topology key the pod names retries it,
                // whatever its nodeTaintsPolicy.
                if taints_changed && let Some(node) = self.store.nodes.get(&name).cloned() {
                    self.wake_spread(|cs, _| {
                        cs.iter()
                            .all(|c| node.metadata.labels.contains_key(&c.topology_key))
                    });
                }
            }
        }
    }

    /// A cluster change may let unschedulable pods fit: retry now those turned down by one of
    /// the plugins `wakes` (whose queueing hints ask for a retry on this change); the others
    /// stay where they are, as upstream's `isPodWorthRequeuing` leaves them. Upstream moves
    /// the retried ones to the backoff queue while their back-off (1 s doubling to 10 s) lasts,
    /// but since v1.33 the scheduler pops from that queue whenever its active queue is empty
    /// (`SchedulerPopFromBackoffQ`, on by default), which it is in a quiet cluster.
    fn wake_unschedulable(&mut self, wakes: Plugins) {
        self.wake_where(|_, rejectors| rejectors.intersects(wakes));
    }

    /// Retries now the unschedulable pods `worth` picks, by the pod and the plugins that turned
    /// it down.
    fn wake_where(&mut self, worth: impl Fn(&Pod, Plugins) -> bool) {
        let now = self.clock;
        let pods: Vec<PodName> = self
            .unschedulable
            .iter()
            .filter(|(p, rejectors)| {
                self.store
                    .pods
                    .get(&***p)
                    .is_some_and(|pod| worth(pod, **rejectors))
            })
            .map(|(p, _)| p.clone())
            .collect();
        for p in pods {
            self.queue.push(now, Work::SchedulePod(p));
        }
    }

    /// PodTopologySpread's queueing hints: retry now the pods it turned down whose
    /// `DoNotSchedule` constraints (and name) `worth` says the change may help; the rest wait
    /// (`isSchedulableAfterPodChange`, `isSchedulableAfterNodeChange`).
    fn wake_spread(&mut self, worth: impl Fn(&[topology_spread::Constraint], &str) -> bool) {
        self.wake_where(|pod, rejectors| {
            rejectors.intersects(Plugins::POD_TOPOLOGY_SPREAD)
                && worth(&topology_spread::hard_constraints(pod), &pod.metadata.name)
        });
    }

    /// The Deployment named `name`, if it exists.
    pub fn deployment(&self, name: &str) -> Option<&Deployment> {
        self.store.deployments.get(name)
    }
}

/// Who acted on which object. Most work changes nothing and never becomes a step, so the
/// actor's and the object's names (`kubelet/node-1`, `pod/web-…`) are only written out for a
/// step.
enum Subject<'w> {
    /// A user command, on the object it names.
    Kubectl(String),
    /// A control-plane component, on `<kind>/<name>`.
    Component {
        actor: &'static str,
        kind: &'static str,
        name: &'w str,
    },
    /// The kubelet of the node the pod is bound to.
    Kubelet { pod: &'w str },
    /// A node's kubelet, about the node itself.
    KubeletNode { node: &'w str },
}

impl<'w> Subject<'w> {
    fn component(actor: &'static str, kind: &'static str, name: &'w str) -> Subject<'w> {
        Subject::Component { actor, kind, name }
    }

    /// The actor's and the object's names, as the trace prints them.
    fn names(self, store: &Store) -> (String, String) {
        match self {
            Subject::Kubectl(object) => ("kubectl".to_string(), object),
            Subject::Component { actor, kind, name } => {
                (actor.to_string(), [kind, "/", name].concat())
            }
            Subject::Kubelet { pod } => {
                let node = store.pods.get(pod).map_or("", |p| p.node_name.as_str());
                (["kubelet/", node].concat(), ["pod/", pod].concat())
            }
            Subject::KubeletNode { node } => {
                (["kubelet/", node].concat(), ["node/", node].concat())
            }
        }
    }
}

/// The narration of a step that gave none: its first event's message, or a status update. Like
/// the actor's and object's names, it is joined with `concat`, which sizes the string once,
/// rather than `format!`, which parses a template and grows the string as it writes: every step
/// pays for these.
fn default_narration(actor: &str, events: &[super::api::Event]) -> String {
    match events.first() {
        Some(e) => [actor, ": ", &e.message].concat(),
        None => [actor, " updated status."].concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::Scenario;

    /// A delayed add is not swallowed by the same work already queued sooner: both run, the
    /// sooner one first, while a plain push still merges into the sooner one.
    #[test]
    fn push_after_keeps_a_later_run_of_work_queued_sooner() {
        let mut q = WorkQueue::default();
        let work = Work::SyncReplicaSet("web-1".into());
        q.push(Time(0), work.clone());
        q.push(Time(500), work.clone());
        q.push_after(Time(7_001), work.clone());
        let mut popped = Vec::new();
        while let Some((t, _, w)) = q.pop() {
            assert_eq!(w, work);
            popped.push(t.as_millis());
        }
        assert_eq!(popped, [0, 7_001]);
    }

    /// Whether `work` is queued for the current time (later requeues do not count).
    fn due_now(sim: &Sim, work: &Work) -> bool {
        sim.queue
            .items
            .iter()
            .any(|((due, _), (_, w))| *due <= sim.clock && w == work)
    }

    /// Upstream's `deletePod` enqueues a Recreate Deployment only when its last pod is gone; the
    /// removal of any earlier pod wakes only the pod's ReplicaSet.
    #[test]
    fn recreate_deployment_is_enqueued_when_its_last_pod_is_removed() {
        let yaml = "cluster:\n  nodes:\n    - {name: a, cpu: \"4\", memory: 8Gi}\n\
                    deployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:\n\
                    \x20   replicas: 2\n    strategy: {type: Recreate}\n\
                    \x20   selector: {matchLabels: {app: web}}\n\
                    \x20   template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers:\n\
                    \x20         - name: web\n            image: web:1.0\n\
                    run_until: 30s\n";
        let sc = Scenario::parse(yaml).unwrap_or_else(|e| panic!("{e:?}"));
        let mut sim = sc.sim();
        while sim.step_until(Time::from_secs(30)).is_some() {}
        let pods: Vec<String> = sim.store.pods.keys().map(|k| k.to_string()).collect();
        assert_eq!(pods.len(), 2, "{pods:?}");
        let sync_web = Work::SyncDeployment("web".into());
        assert!(!due_now(&sim, &sync_web));

        sim.apply_change(Change::RemovePod(pods[0].clone()));
        assert!(!due_now(&sim, &sync_web), "one pod is left");
        sim.apply_change(Change::RemovePod(pods[1].clone()));
        assert!(due_now(&sim, &sync_web), "no pod is left");
    }
}
