//! Probes and restarts (`pkg/kubelet/prober`, `kuberuntime_manager.go` `doBackOff`): startup,
//! readiness and liveness workers with their thresholds, `Unhealthy` events, liveness and startup
//! kills, and the CrashLoopBackOff restart delay.

use super::{
    Backoff, ImageBehavior, KubeletContext, POD_WORKER_RESYNC_MS, ReadyBehavior, RunInFlight,
    format_pod, go_duration, images,
};
use crate::sim::api::{Container, ContainerState, EventReason, IntOrString, Probe, Time};
use crate::sim::controller::{ProbeKind, Work};
use crate::sim::trace::Stage;

/// `crashLoopBackOff` expiry: a container that ran longer than this restarts at once.
pub const CRASH_BACKOFF_EXPIRY_MS: u64 = 600_000;

/// A container's probe of one type, borrowed from the stored pod rather than from the context,
/// so that it is read in place while the context changes.
fn probe_of<'a>(k: &KubeletContext<'a>, c: usize, kind: ProbeKind) -> Option<&'a Probe> {
    probe_spec(k.spec_of(c)?, kind)
}

/// A container's probe of one type, if it has one.
pub(super) fn probe_spec(spec: &Container, kind: ProbeKind) -> Option<&Probe> {
    match kind {
        ProbeKind::Startup => spec.startup_probe.as_ref(),
        ProbeKind::Readiness => spec.readiness_probe.as_ref(),
        ProbeKind::Liveness => spec.liveness_probe.as_ref(),
    }
}

fn first_run_delay(p: &Probe) -> u64 {
    u64::try_from(p.initial_delay_seconds()).unwrap_or(0) * 1000
}

pub(super) fn period_ms(p: &Probe) -> u64 {
    u64::try_from(p.period_seconds()).unwrap_or(1).max(1) * 1000
}

fn timeout_ms(p: &Probe) -> u64 {
    u64::try_from(p.timeout_seconds()).unwrap_or(1).max(1) * 1000
}

/// Where a worker's count of equal results stops: counting past the larger threshold changes
/// nothing, so a steady probe leaves the kubelet's state untouched.
pub(super) fn run_count_cap(p: &Probe) -> i32 {
    p.success_threshold()
        .max(1)
        .max(p.failure_threshold().max(1))
}

/// `probeManager.AddPod`: the kubelet's first sync of a pod creates one worker per container and
/// probe type, and each worker ticks every `periodSeconds` from then on, whatever its container
/// does (§15.4). A worker created while the kubelet started less than one period ago first waits
/// a random `U[0, period)`, drawn here from the seeded generator; one created later ticks from
/// its creation. A restarted container keeps its workers, and so their tick times.
///
/// Only the liveness and startup workers' ticks are kept: readiness runs at once whenever its
/// container becomes started (the status update triggers it) and modern kubelets restart its
/// ticker from that run, so its own first tick never shows. Upstream's readiness worker also
/// waits its random time first, which holds back that triggered run when the container starts
/// during the wait; that is not modelled.
pub fn add_pod(k: &mut KubeletContext<'_>) {
    for c in 0..k
        .pod
        .spec
        .kubelet_container_count()
        .min(k.runtime.containers.len())
    {
        for kind in [ProbeKind::Startup, ProbeKind::Liveness] {
            let Some(p) = probe_of(k, c, kind) else {
                continue;
            };
            let period = period_ms(p);
            let wait = if k.now.millis_since(k.kubelet_started_at()) < period {
                k.rng.below(period)
            } else {
                0
            };
            k.runtime.containers[c].worker(kind).ticks_from = Some(k.now.plus_millis(wait));
        }
    }
}

/// How long the containers of a pod must have run before its kubelet started for their
/// readiness to survive the restart (`kubeletRestartGracePeriod`, 10 s).
const KUBELET_RESTART_GRACE_MS: u64 = 10_000;

/// A kubelet that starts again meets a pod its earlier run looked after, at the pod's first
/// sync: the containers kept running (only the kubelet stopped), but everything the kubelet
/// held in memory is gone. Its probe manager makes new workers (`AddPod`), which, the kubelet
/// having just started, first wait a random part of their period; the crash-loop and image
/// pull back-offs start over, so a container waiting out a back-off restarts at this sync; a
/// pull under way is started again. A pod the earlier run was stopping gets its final status
/// when its containers have stopped, as that run planned; one deleted while the kubelet was away
/// is stopped by this sync, with its whole grace period.
///
/// Since v1.35 (`ChangeContainerStatusOnKubeletRestart` off) a restart does not change a
/// container's readiness by itself: a container that has run past the restart grace period
/// stays ready while the API still shows its pod Ready, and its worker's first run only
/// confirms it. When the pod is not Ready there (the node controller marked it so when the node
/// went NotReady), the container is not ready until its first readiness run passes. Started
/// containers stay started. The work the earlier run queued carries that run's number and is
/// dropped ([`PodRuntime::kubelet_run`]); the worker tickers move on too.
pub(super) fn restart_pod(k: &mut KubeletContext<'_>) {
    let now = k.now;
    let pod_ready = k.pod.is_ready();
    // A pod deleted meanwhile is only terminated: its containers get no probe workers.
    let deleted = k.pod.metadata.deletion_timestamp.is_some();
    let rt = &mut k.runtime;
    rt.pull_backoff.clear();
    rt.sandbox_event_pending = false;
    rt.sync_deferred = false;
    rt.sync_again = false;
    rt.prompted_by = None;
    rt.look = rt.look.wrapping_add(1);
    // The containers the earlier run was stopping went on stopping without it: the new run
    // writes the pod's final status once they have.
    if rt.terminating && !rt.terminated {
        let stopped_by = rt.stopped_by().unwrap_or(now).max(now);
        let pod = k.work_name();
        k.after(stopped_by.millis_since(now), Work::TerminationComplete(pod));
        return;
    }
    let mut said: Vec<String> = Vec::new();
    for c in 0..k.runtime.containers.len() {
        let rt = &mut k.runtime.containers[c];
        let had_backoff = rt.crash_backoff.take().is_some();
        rt.pull_started = None;
        rt.unpublished = false;
        rt.killing = None;
        rt.killed_at = None;
        let settled = rt
            .running_since
            .is_some_and(|since| since.plus_millis(KUBELET_RESTART_GRACE_MS) <= now);
        let keep_ready = pod_ready && settled && rt.readiness.result == Some(true);
        for kind in [
            ProbeKind::Startup,
            ProbeKind::Readiness,
            ProbeKind::Liveness,
        ] {
            let w = rt.worker(kind);
            *w = super::ProbeWorker {
                ticker: w.ticker.wrapping_add(1),
                last_observed: w.last_observed,
                ..super::ProbeWorker::default()
            };
        }
        if keep_ready {
            rt.readiness.result = Some(true);
            rt.readiness.has_id = true;
        }
        if deleted {
            continue;
        }
        let (running_since, started, instance) = (rt.running_since, rt.started, rt.instance);
        // Each new worker draws its wait in the order the probe manager adds them: it ticks from
        // its wait's end, and a readiness worker runs first then (a trigger meanwhile waits in
        // its channel).
        let mut readiness_wait = None;
        for kind in [
            ProbeKind::Startup,
            ProbeKind::Readiness,
            ProbeKind::Liveness,
        ] {
            let Some(p) = probe_of(k, c, kind) else {
                continue;
            };
            let wait = k.rng.below(period_ms(p));
            let w = k.runtime.containers[c].worker(kind);
            if kind == ProbeKind::Readiness {
                w.held_until = Some(now.plus_millis(wait));
                readiness_wait = Some(wait);
            } else {
                w.ticks_from = Some(now.plus_millis(wait));
            }
        }
        let Some(since) = running_since else {
            if had_backoff {
                said.push(format!(
                    "{} waits out no crash-loop back-off any more, so this sync restarts it",
                    k.container_name(c)
                ));
            }
            continue;
        };
        // A process that was to exit while the kubelet was away did, unseen: the new run finds
        // it exited at its first look.
        let exit = k.spec_of(c).and_then(|spec| {
            k.world
                .behavior(&spec.image)
                .exit_plan(k.runs_to_completion(c))
        });
        if exit.is_some_and(|(after, _)| since.plus_millis(after) <= now) {
            let pod = k.work_name();
            k.after(
                0,
                Work::ContainerExit {
                    pod,
                    container: c,
                    instance,
                },
            );
        }
        if let Some(wait) = readiness_wait.filter(|_| started) {
            // The first run comes when the wait ends; the trigger the sync's status computation
            // sends meanwhile waits in the worker's channel for it.
            k.runtime.containers[c].readiness.trigger_pending = true;
            tick_at(k, c, ProbeKind::Readiness, now.plus_millis(wait), instance);
            let name = k.container_name(c);
            said.push(if keep_ready {
                format!(
                    "{name} stays ready: the pod was still Ready in the API and {name} had run longer than the 10 s restart grace period, so since v1.35 the restart leaves its readiness alone (its new worker first probes in {})",
                    super::go_duration(wait)
                )
            } else {
                format!(
                    "{name} is not ready until its readiness probe passes again, as the pod is not Ready in the API; its new worker first waits a random part of its period and probes in {}",
                    super::go_duration(wait)
                )
            });
        }
        if started && probe_of(k, c, ProbeKind::Readiness).is_none() {
            said.push(format!(
                "{} has no readiness probe, so it is ready at once",
                k.container_name(c)
            ));
        }
        if exit.is_some_and(|(after, _)| since.plus_millis(after) <= now) {
            said.push(format!(
                "{}'s process was to exit while the kubelet was away, so the new run finds it exited",
                k.container_name(c)
            ));
        }
        let kind = if started {
            ProbeKind::Liveness
        } else {
            ProbeKind::Startup
        };
        schedule_on_grid(k, c, kind, now, instance);
    }
    if !deleted {
        let node = k.pod.node_name.clone();
        let running = k
            .runtime
            .containers
            .iter()
            .any(|c| c.running_since.is_some());
        k.out.say(format!(
            "The new run of the kubelet on {node} syncs {} for the first time: {}{}.",
            k.pod.metadata.name,
            if running {
                "its running containers kept running while the kubelet was away"
            } else {
                "none of its containers was running yet, so this sync takes up where the old run left off"
            },
            if said.is_empty() {
                String::new()
            } else {
                format!("; {}", said.join("; "))
            }
        ));
    }
}

/// The first tick at or after `earliest` of a worker that ticks every `period` ms from
/// `ticks_from` (from `earliest` for a worker without one).
fn next_tick(ticks_from: Option<Time>, period: u64, earliest: Time) -> Time {
    let Some(from) = ticks_from else {
        return earliest;
    };
    if earliest <= from {
        return from;
    }
    from.plus_millis(earliest.millis_since(from).div_ceil(period) * period)
}

/// Schedules the first tick of the liveness or startup worker of container `c` that would run:
/// after `after` (a tick at that instant has already found the container not yet ready for it)
/// and once the container has been running `initialDelaySeconds`.
fn schedule_on_grid(
    k: &mut KubeletContext<'_>,
    c: usize,
    kind: ProbeKind,
    after: Time,
    instance: u32,
) {
    let Some(p) = probe_of(k, c, kind) else {
        return;
    };
    let since = k.runtime.containers[c].running_since.unwrap_or(k.now);
    let earliest = after
        .plus_millis(1)
        .max(since.plus_millis(first_run_delay(p)));
    let ticks_from = k.runtime.containers[c].worker(kind).ticks_from;
    let due = next_tick(ticks_from, period_ms(p), earliest);
    tick_at(k, c, kind, due, instance);
}

/// When the readiness run a trigger now leads to probes: at once, or, within
/// `initialDelaySeconds` of the container's start, at the first tick of the restarted ticker at
/// or after the delay (`worker.doProbe` skips while the container has run for fewer whole seconds
/// than the delay, and nothing else triggers a run when the delay ends). `None` without a
/// readiness probe.
fn readiness_due(k: &KubeletContext<'_>, c: usize) -> Option<Time> {
    let p = probe_of(k, c, ProbeKind::Readiness)?;
    let since = k.runtime.containers[c].running_since.unwrap_or(k.now);
    // A worker a restarted kubelet made is still in its first wait: it runs when that ends.
    let from = readiness_held_until(k, c).unwrap_or(k.now);
    Some(next_tick(
        Some(from),
        period_ms(p),
        since.plus_millis(first_run_delay(p)),
    ))
}

/// When the readiness worker of container `c` ends the random wait a freshly started kubelet's
/// workers begin with, if it is still in it.
fn readiness_held_until(k: &KubeletContext<'_>, c: usize) -> Option<Time> {
    k.runtime.containers[c]
        .readiness
        .held_until
        .filter(|&h| h > k.now)
}

/// Triggers the readiness worker of container `c` (`manualTriggerCh`): the run restarts the
/// worker's ticker, so ticks still queued from the old ticker are dropped, and later runs follow
/// every `periodSeconds` ([`readiness_due`] says when the first one probes). A run within the
/// delay probes nothing, but the worker sees the container's ID in it. Nothing happens while an
/// earlier trigger's run is still to come, as the channel holds one. Returns when the run probes,
/// if the container has a readiness probe and was not already triggered.
fn trigger_readiness(k: &mut KubeletContext<'_>, c: usize) -> Option<Time> {
    let due = readiness_due(k, c)?;
    let rt = &mut k.runtime.containers[c];
    if rt.readiness.trigger_pending {
        return None;
    }
    let instance = rt.instance;
    let w = &mut rt.readiness;
    w.ticker = w.ticker.wrapping_add(1);
    w.trigger_pending = due == k.now;
    // The run's narration says why it came; a run within the delay probes nothing.
    w.triggered = due == k.now;
    w.has_id |= due > k.now;
    tick_at(k, c, ProbeKind::Readiness, due, instance);
    Some(due)
}

/// `prober.Manager.UpdatePodStatus`, which every sync of the pod calls to compute its status:
/// each container that is running and started but not ready, and has a readiness probe, gets a
/// readiness run at once ([`trigger_readiness`]). Returns the containers it triggered, with when
/// each run probes; their runs' narration says why they came.
pub(super) fn update_pod_status(k: &mut KubeletContext<'_>) -> Vec<(usize, Time)> {
    apply_reason_cache(k);
    let mut triggered = Vec::new();
    for c in 0..k.runtime.containers.len() {
        let rt = &k.runtime.containers[c];
        if rt.running_since.is_none()
            || !rt.started
            || rt.unpublished
            || rt.readiness.result == Some(true)
        {
            continue;
        }
        if let Some(due) = trigger_readiness(k, c) {
            triggered.push((c, due));
        }
    }
    triggered
}

/// The status computation's use of the `reasonCache` (`convertToAPIContainerStatuses`): a
/// stopped container the last sync did not restart shows why it waits, with how its last
/// instance ended as its last state.
fn apply_reason_cache(k: &mut KubeletContext<'_>) {
    for c in 0..k.runtime.containers.len() {
        let rt = &k.runtime.containers[c];
        if rt.running_since.is_some() {
            continue;
        }
        let Some((reason, message)) = rt.reason_cache.clone() else {
            continue;
        };
        let Some(cs) = k.cs_mut(c) else {
            continue;
        };
        if matches!(cs.state, ContainerState::Waiting { reason: ref r, message: ref m } if *r == reason && *m == message)
        {
            continue;
        }
        if matches!(cs.state, ContainerState::Terminated { .. }) {
            cs.last_state = Some(cs.state.clone());
        }
        cs.state = ContainerState::Waiting { reason, message };
    }
}

/// What holds the pod worker, so that the pod's next sync waits: the sync killing a container
/// after a failed probe waits in `killContainer` for it to exit, and the sync pulling a
/// container's image waits for the pull.
#[derive(Clone, Copy)]
enum Hold {
    Kill(usize),
    Pull(usize),
}

/// What holds the pod worker now, if anything.
fn pod_worker_hold(k: &KubeletContext<'_>) -> Option<Hold> {
    kill_in_flight(k)
        .map(Hold::Kill)
        .or_else(|| pull_in_flight(k).map(Hold::Pull))
}

/// What the pod worker is still doing, as the narration says it: "stopping web", "pulling
/// web:2.0".
fn holding(k: &KubeletContext<'_>, hold: Hold) -> String {
    match hold {
        Hold::Kill(c) => format!("stopping {}", k.container_name(c)),
        Hold::Pull(c) => format!("pulling {}", k.spec_of(c).map_or("", |s| s.image.as_str())),
    }
}

/// A sync of the pod asked for while the pod worker is held (by a kill waiting for its
/// container to exit, or by a pull): it is put off until the hold ends, and the first such
/// request says why. Returns whether the sync was put off.
pub(super) fn defer_sync_while_held(k: &mut KubeletContext<'_>) -> bool {
    let Some(hold) = pod_worker_hold(k) else {
        return false;
    };
    if !k.runtime.sync_deferred {
        k.runtime.sync_deferred = true;
        let why = match hold {
            Hold::Kill(_) => "it waits for the container to exit",
            Hold::Pull(_) => "a pull blocks the sync that started it",
        };
        k.out.stage = Some(Stage::Retry);
        k.out.say(format!(
            "The kubelet has more to do for {}, but the pod worker is still {} ({why}), so this sync of the pod comes after that.",
            k.pod.metadata.name,
            holding(k, hold)
        ));
    }
    true
}

/// A sync of the pod that a probe result prompts (`handleProbeSync`), as far as readiness goes:
/// its status computation ([`update_pod_status`]), or, while the pod worker is busy, a note that
/// the sync waits for it. Returns what to say of it (nothing when it triggers no run); `sync` is
/// the sentence's subject, e.g. "The sync this result prompts".
fn prompted_sync(k: &mut KubeletContext<'_>, sync: &str) -> String {
    if let Some(hold) = pod_worker_hold(k) {
        k.runtime.sync_deferred = true;
        return format!(
            " {sync} waits: the pod worker is still {}.",
            holding(k, hold)
        );
    }
    let triggered = update_pod_status(k);
    describe_triggers(k, sync, &triggered)
}

/// Says which readiness runs a status computation triggered, and when each probes.
fn describe_triggers(k: &KubeletContext<'_>, sync: &str, triggered: &[(usize, Time)]) -> String {
    if triggered.is_empty() {
        return String::new();
    }
    let names: Vec<String> = triggered
        .iter()
        .map(|&(c, _)| k.container_name(c))
        .collect();
    let mut said = if triggered.len() == 1 {
        format!(
            " {sync} first computes the pod's status, which finds {} started but not ready, so it triggers a readiness run at once, which restarts that worker's ticker.",
            names[0]
        )
    } else {
        format!(
            " {sync} first computes the pod's status, which finds {} started but not ready, so it triggers a readiness run of each at once, each restarting its worker's ticker.",
            names.join(" and ")
        )
    };
    for (&(c, due), name) in triggered.iter().zip(&names) {
        if due > k.now && readiness_held_until(k, c).is_some() {
            said.push_str(&format!(
                " {name}'s readiness worker is new with the restarted kubelet and still waits out its random start, so that run probes at {due}."
            ));
        } else if due > k.now {
            said.push_str(&format!(
                " {name} is still within its initialDelaySeconds, so that run probes nothing; the restarted ticker first probes at {due}."
            ));
        }
    }
    said
}

/// Schedules a run of a probe worker of container instance `instance` at `due` (at once if that
/// has passed).
fn tick_at(k: &mut KubeletContext<'_>, c: usize, kind: ProbeKind, due: Time, instance: u32) {
    let pod = k.work_name();
    let ticker = k.runtime.containers[c].worker_ticker(kind);
    k.after(
        due.millis_since(k.now),
        Work::ProbeTick {
            pod,
            container: c,
            probe: kind,
            instance,
            ticker,
        },
    );
}

/// Schedules the probe runs of a container that has just started (a new container ID): until a
/// startup probe passes only it runs, on its worker's next tick; without one, liveness runs on
/// its next tick and readiness at once. A tick never runs a probe within `initialDelaySeconds`
/// of the container's start.
pub fn schedule_initial_probes(k: &mut KubeletContext<'_>, c: usize, instance: u32) {
    if !k.has_container(c) {
        return;
    }
    let started_at = k.now;
    if k.spec_of(c).is_some_and(|s| s.startup_probe.is_some()) {
        schedule_on_grid(k, c, ProbeKind::Startup, started_at, instance);
    } else {
        schedule_on_grid(k, c, ProbeKind::Liveness, started_at, instance);
    }
    k.runtime.containers[c].unpublished = true;
}

/// What the pod worker does once it is free: no image pull holds the sync that is running, and
/// no kill after a failed probe holds it either. The status update that comes then publishes the
/// containers that sync started, which gives their probe workers something to probe, and
/// triggers their readiness runs (`UpdatePodStatus`); then the kill another container's failed
/// probe asked for meanwhile, if any, and the syncs that waited.
pub(super) fn when_the_pod_worker_is_free(k: &mut KubeletContext<'_>) {
    if pod_worker_hold(k).is_some() {
        return;
    }
    // The status update that publishes the containers the sync started is a status
    // computation: it triggers their first readiness runs, and those of any other container
    // started but not ready. A started container's own first run needs no explaining.
    let mut published = Vec::new();
    for c in 0..k.runtime.containers.len() {
        if std::mem::take(&mut k.runtime.containers[c].unpublished)
            && k.runtime.containers[c].running_since.is_some()
        {
            published.push(c);
        }
    }
    // A sync that waited for the pod worker comes next and computes the status itself.
    if !published.is_empty() && !k.runtime.sync_deferred {
        update_pod_status(k);
        for c in published {
            k.runtime.containers[c].readiness.triggered = false;
        }
    }
    let waiting = k
        .runtime
        .containers
        .iter()
        .position(super::ContainerRuntime::kill_waiting);
    if let Some(c) = waiting
        && let Some(kind) = k.runtime.containers[c].killing
    {
        let triggered = update_pod_status(k);
        let synced = describe_triggers(k, "The sync that kills it", &triggered);
        let how = start_probe_kill(k, c, kind);
        let name = k.container_name(c);
        k.out.say(format!(
            "Now the pod worker is free, so it kills {name}, whose {} probe failed meanwhile. {how}{synced}",
            kind.word()
        ));
        return;
    }
    if std::mem::take(&mut k.runtime.sync_deferred) {
        let pod = k.work_name();
        k.after(0, Work::KubeletSyncPod(pod));
    }
}

/// Whether a probe run would pass now: the application listens `listen_after` after its start,
/// and its readiness endpoint answers according to `ready`. A TCP probe only needs the port.
pub fn passes(
    b: &ImageBehavior,
    running_since: Time,
    kind: ProbeKind,
    p: &Probe,
    now: Time,
) -> bool {
    let elapsed = now.millis_since(running_since);
    let listening = elapsed >= b.listen_after_ms;
    let ready_ok = match b.ready {
        ReadyBehavior::Always => true,
        ReadyBehavior::Never => false,
        ReadyBehavior::AfterMs(t) => elapsed >= t,
    };
    // A TCP probe only connects; every other handler waits for an answer within the timeout.
    let in_time = p.tcp_socket.is_some() || b.response_ms < timeout_ms(p);
    listening && in_time && (kind != ProbeKind::Readiness || p.tcp_socket.is_some() || ready_ok)
}

/// How long one run of probe `p` takes at `now` (spec §15.4 step 8: it runs with
/// `timeoutSeconds`): an HTTP, gRPC or exec probe waits for the app's answer, up to the timeout,
/// once the app listens; a gRPC dial to a port that refuses waits out the timeout too (it dials
/// with `WithBlock`); a refused HTTP connection, a failed command and a TCP connect come back at
/// once.
pub fn run_duration_ms(b: &ImageBehavior, running_since: Time, p: &Probe, now: Time) -> u64 {
    let listening = now.millis_since(running_since) >= b.listen_after_ms;
    let answer = b.response_ms.min(timeout_ms(p));
    if p.tcp_socket.is_some() {
        0
    } else if p.grpc.is_some() && !listening {
        timeout_ms(p)
    } else if listening {
        answer
    } else {
        0
    }
}

/// Which part of a probe run a call of [`run_probe`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeRun {
    /// The worker's tick (or a trigger): the run starts, and ends at once unless it takes time.
    Tick,
    /// The end of a run that took time ([`Work::ProbeRunEnd`]).
    End,
}

/// Why a probe cannot be run at all, if it cannot: an HTTP or TCP probe whose port names no port
/// of the container (`ResolveContainerPort` then tries the name as a number, and fails).
pub fn port_error(spec: &Container, p: &Probe) -> Option<String> {
    let port = p
        .http_get
        .as_ref()
        .map(|h| &h.port)
        .or_else(|| p.tcp_socket.as_ref().map(|t| &t.port))?;
    let IntOrString::String(name) = port else {
        return None;
    };
    if spec
        .ports
        .iter()
        .any(|cp| cp.name.as_deref() == Some(name.as_str()))
    {
        return None;
    }
    // Validation has made the name an IANA service name, which has a letter, so the fallback
    // to a number always fails.
    Some(format!("strconv.Atoi: parsing {name:?}: invalid syntax"))
}

/// What the probe would see right now: whether it passes, the failure output when it does not,
/// and how long the run takes ([`run_duration_ms`]); or why it could not be run
/// ([`port_error`]).
fn observe(
    k: &KubeletContext<'_>,
    c: usize,
    kind: ProbeKind,
    p: &Probe,
) -> Result<(bool, String, u64), String> {
    let since = k.runtime.containers[c].running_since.unwrap_or(k.now);
    let Some(spec) = k.spec_of(c) else {
        return Ok((false, String::new(), 0));
    };
    if let Some(err) = port_error(spec, p) {
        return Err(err);
    }
    let b = super::effective_behavior(k.world, k.store, &spec.image, Some(&k.runtime));
    let (ok, output) = observe_run(k, &b, spec, since, kind, p);
    Ok((ok, output, run_duration_ms(&b, since, p, k.now)))
}

/// [`observe`] for a probe that can be run, of an app that behaves as `b`.
fn observe_run(
    k: &KubeletContext<'_>,
    b: &ImageBehavior,
    spec: &Container,
    since: Time,
    kind: ProbeKind,
    p: &Probe,
) -> (bool, String) {
    if passes(b, since, kind, p, k.now) {
        return (true, String::new());
    }
    let elapsed = k.now.millis_since(since);
    let listening = elapsed >= b.listen_after_ms;
    // The sandbox's address, which the status shows once it is published; a probe runs only
    // in a running container, whose sandbox is there either way.
    let ip = k
        .store
        .pod_ips
        .get(k.pod.metadata.name.as_str())
        .map_or("10.244.0.2", |ip| &**ip);
    let port_of = |port| port_text(spec, port);
    let ready_ok = match b.ready {
        ReadyBehavior::Always => true,
        ReadyBehavior::Never => false,
        ReadyBehavior::AfterMs(t) => elapsed >= t,
    };
    let endpoint_ok = kind != ProbeKind::Readiness || ready_ok;
    // Every handler but TCP waits for the app's answer within timeoutSeconds.
    let timed_out = b.response_ms >= timeout_ms(p);
    if let Some(h) = &p.http_get {
        let port = port_of(&h.port);
        let scheme = h.scheme.as_deref().unwrap_or("HTTP").to_lowercase();
        let path = h.path.clone().unwrap_or_else(|| "/".to_string());
        if !listening {
            return (
                false,
                format!(
                    "Get \"{scheme}://{ip}:{port}{path}\": dial tcp {ip}:{port}: connect: connection refused"
                ),
            );
        }
        if timed_out {
            return (
                false,
                format!(
                    "Get \"{scheme}://{ip}:{port}{path}\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
                ),
            );
        }
        if !endpoint_ok {
            return (false, "HTTP probe failed with statuscode: 503".to_string());
        }
        return (true, String::new());
    }
    if let Some(t) = &p.tcp_socket {
        // A TCP probe only checks that the port accepts connections.
        let port = port_of(&t.port);
        if !listening {
            return (
                false,
                format!("dial tcp {ip}:{port}: connect: connection refused"),
            );
        }
        return (true, String::new());
    }
    // A gRPC probe dials with `WithBlock`, so a port that refuses connections runs into the
    // timeout; so does a health check that takes longer than it.
    if let Some(g) = &p.grpc {
        if !listening {
            return (
                false,
                format!(
                    "timeout: failed to connect service \"{ip}:{}\" within {}s: context deadline exceeded",
                    g.port,
                    p.timeout_seconds()
                ),
            );
        }
        if timed_out {
            return (
                false,
                format!(
                    "timeout: health rpc did not complete within {}s",
                    p.timeout_seconds()
                ),
            );
        }
        if !endpoint_ok {
            return (
                false,
                "service unhealthy (responded with \"NOT_SERVING\")".to_string(),
            );
        }
        return (true, String::new());
    }
    // exec: the command succeeds when the application answers, within the timeout; the CRI's
    // DeadlineExceeded becomes the kubelet's own timeout error, which is the probe's output.
    if listening && timed_out {
        let command = p
            .exec
            .as_ref()
            .map_or(String::new(), |e| e.command.join(" "));
        return (false, format!("command {command:?} timed out"));
    }
    // The command's combined output is the failure's message (`exec.CombinedOutput`); kubectl
    // prints it trimmed, so the scenario's text stands for it as shown.
    if !listening || !endpoint_ok {
        return (false, b.exec_output.clone());
    }
    (true, String::new())
}

/// A probe's port as its failure output prints it: the number, a named port's number, or the
/// name when no port of the container has it.
enum PortText<'a> {
    Number(i32),
    Name(&'a str),
}

impl std::fmt::Display for PortText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PortText::Number(n) => write!(f, "{n}"),
            PortText::Name(name) => f.write_str(name),
        }
    }
}

fn port_text<'a>(spec: &'a Container, port: &'a IntOrString) -> PortText<'a> {
    match port {
        IntOrString::Int(n) => PortText::Number(*n),
        IntOrString::String(name) => spec
            .ports
            .iter()
            .find(|cp| cp.name.as_deref() == Some(name.as_str()))
            .map_or(PortText::Name(name), |cp| {
                PortText::Number(cp.container_port)
            }),
    }
}

/// The subject of a probe run's narration: "The readiness probe of web in web-abc", saying why
/// the run came when the pod's status computation triggered it. Written straight into the
/// sentence, as nearly every run narrates one.
struct TheProbe<'a> {
    triggered: bool,
    kind: &'a str,
    container: &'a str,
    pod: &'a str,
}

impl std::fmt::Display for TheProbe<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let TheProbe {
            kind,
            container,
            pod,
            ..
        } = self;
        write!(f, "The {kind} probe of {container} in {pod}")?;
        if self.triggered {
            f.write_str(
                ", run at once because the pod's sync found the container started but not ready,",
            )?;
        }
        Ok(())
    }
}

/// One run of a probe worker: observe, count, publish at the threshold, act on the result. A
/// run that takes time ([`run_duration_ms`]) starts at the tick and is observed and counted at
/// its end, as upstream's worker runs the probe synchronously: its `Unhealthy` event, a kill
/// at the threshold and the next tick come then.
pub fn run_probe(k: &mut KubeletContext<'_>, c: usize, kind: ProbeKind, run: ProbeRun) {
    if !k.has_container(c) {
        return;
    }
    let Some(p) = probe_of(k, c, kind) else {
        return;
    };
    let instance = k.runtime.containers[c].instance;
    let ticker = k.runtime.containers[c].worker_ticker(kind);
    let period = period_ms(p);
    let w = k.runtime.containers[c].worker(kind);
    let flight = match run {
        ProbeRun::Tick if w.in_flight.is_some() => {
            // The worker is still waiting for a run: the tick waits in the ticker's channel.
            w.run_queued = true;
            return;
        }
        ProbeRun::Tick => None,
        ProbeRun::End => match w.in_flight.take() {
            Some(flight) => Some(flight),
            None => return,
        },
    };
    // When the ticker ticks next, from this run's start: a period on, or the tick of its
    // schedule that a long run before this one left.
    let on_schedule = match &flight {
        Some(f) => f.on_schedule,
        None => w.grid_next.take().unwrap_or(k.now.plus_millis(period)),
    };
    let run_started = flight.as_ref().map_or(k.now, |f| f.started);
    if k.runtime.containers[c].running_since.is_none() {
        // A container that stopped during a run: what that run saw does not count; the
        // worker's next tick finds it stopped.
        if run == ProbeRun::End {
            finish_run(k, c, kind, false, ticker, instance, on_schedule, period);
            return;
        }
        stopped_container_probed(k, c, kind);
        return;
    }
    if k.runtime.containers[c].worker(kind).on_hold {
        return;
    }
    // The worker has no container ID until the pod status names the container, which the
    // sync that started it writes only once it has ended: it waits for its next tick.
    if k.runtime.containers[c].unpublished {
        let due = k.now.plus_millis(period);
        tick_at(k, c, kind, due, instance);
        return;
    }
    let seen = match flight {
        Some(f) => Ok((f.triggered, f.ok, f.output)),
        None => {
            let seen = observe(k, c, kind, p);
            let w = k.runtime.containers[c].worker(kind);
            let triggered = std::mem::take(&mut w.triggered);
            w.trigger_pending = false;
            match seen {
                // The run takes time: what the app answers is decided now, and counted at
                // the run's end.
                Ok((ok, output, duration)) if duration > 0 => {
                    k.runtime.containers[c].worker(kind).in_flight = Some(RunInFlight {
                        started: k.now,
                        on_schedule,
                        triggered,
                        ok,
                        output,
                    });
                    let pod = k.work_name();
                    k.after(
                        duration,
                        Work::ProbeRunEnd {
                            pod,
                            container: c,
                            probe: kind,
                            instance,
                        },
                    );
                    return;
                }
                Ok((ok, output, _)) => Ok((triggered, ok, output)),
                Err(err) => Err((triggered, err)),
            }
        }
    };
    let w = k.runtime.containers[c].worker(kind);
    // When the worker runs next: its ticker's next tick, or at once when a tick or a trigger
    // came while this run went on.
    let next_in = next_run_due(on_schedule, k.now, w.run_queued).millis_since(k.now);
    // The worker's first run on this container sets its result to the initial value
    // (`doProbe`), which the results manager reports as a change: for readiness (Failure) and
    // startup (Unknown) that prompts a sync of the pod, as any other change of theirs does.
    let first_contact = !std::mem::replace(&mut w.has_id, true) && kind != ProbeKind::Liveness;
    let (triggered, ok, output) = match seen {
        Ok(seen) => seen,
        Err((triggered, err)) => {
            probe_errored(k, c, kind, &err, triggered);
            finish_run(
                k,
                c,
                kind,
                first_contact,
                ticker,
                instance,
                on_schedule,
                period,
            );
            return;
        }
    };
    let Some(spec) = k.spec_of(c) else {
        return;
    };
    let name = &spec.name;
    if !ok {
        let message = [kind.as_str(), " probe failed: ", &output].concat();
        k.container_event(c, true, EventReason::Unhealthy, message);
    }
    let success_threshold = p.success_threshold().max(1);
    let failure_threshold = p.failure_threshold().max(1);
    let w = k.runtime.containers[c].worker(kind);
    w.last_observed = Some(ok);
    if w.last_run == Some(ok) {
        w.run_count = w.run_count.saturating_add(1).min(run_count_cap(p));
    } else {
        w.last_run = Some(ok);
        w.run_count = 1;
    }
    let run_count = w.run_count;
    let publish = if ok {
        run_count >= success_threshold
    } else {
        run_count >= failure_threshold
    };
    let previous = w.result;
    if publish {
        w.result = Some(ok);
    }
    let pod = k.work_name();
    let kind_lower = kind.word();
    // The worker's count runs on across a container restart; the narration counts only the
    // runs the threshold asked for, which this container may not all have had.
    let passes = run_count.min(success_threshold);
    // A run the pod's status computation triggered says so: it comes between the worker's ticks.
    let the_probe = TheProbe {
        triggered,
        kind: kind_lower,
        container: name,
        pod: &pod,
    };

    // A readiness result that changes prompts a sync itself (below); so does the first result
    // of a worker, and for a container still not ready that sync probes it again at once.
    let flipped = kind == ProbeKind::Readiness
        && publish
        && if ok {
            previous != Some(true)
        } else {
            previous == Some(true)
        };
    let again_at_once = kind == ProbeKind::Readiness
        && first_contact
        && !flipped
        && !ok
        && pod_worker_hold(k).is_none();

    match (kind, publish, ok) {
        (ProbeKind::Readiness, true, true) if previous != Some(true) => {
            k.out.stage = Some(Stage::Readiness);
            // The pod turns Ready only if every other app container and sidecar is ready too.
            let waiting_for: Vec<&str> = (0..k.pod.spec.kubelet_container_count())
                .filter(|&o| o != c && !k.runs_to_completion(o))
                .filter(|&o| k.cs(o).is_some_and(|cs| !cs.ready))
                .filter_map(|o| k.spec_of(o).map(|s| s.name.as_str()))
                .collect();
            let gates = super::readiness_gates_hold(k.pod);
            let pod_turns = if waiting_for.is_empty() && gates.is_empty() {
                if k.runtime.terminating {
                    // Being deleted, it left its ReplicaSet's counts when its deletion began.
                    "and the pod turns Ready, though being deleted it no longer counts toward its ReplicaSet".to_string()
                } else {
                    "and the pod turns Ready".to_string()
                }
            } else if waiting_for.is_empty() {
                "and every container of the pod is ready.".to_string() + gates.trim_end_matches('.')
            } else {
                format!(
                    "but the pod stays not Ready until {} {} ready too",
                    waiting_for.join(" and "),
                    if waiting_for.len() == 1 { "is" } else { "are" }
                )
            };
            let mut said = format!(
                "{} passed {passes} time{} in a row (successThreshold {success_threshold}), so the container is ready {pod_turns}.",
                the_probe,
                if passes == 1 { "" } else { "s" }
            );
            said.push_str(&prompted_sync(k, "The sync this result prompts"));
            k.out.say(said);
        }
        (ProbeKind::Readiness, true, false) if previous == Some(true) => {
            k.out.stage = Some(Stage::Readiness);
            // A pod being deleted left its ReplicaSet's counts when its deletion began; its
            // readiness still shows in kubectl's READY column.
            let consequence = if k.runtime.terminating {
                "The pod, shutting down, is no longer Ready, as kubectl's READY column shows beside Terminating; it stopped counting toward its ReplicaSet when its deletion began."
            } else {
                "The pod is no longer Ready and stops counting as available; readiness never restarts a container."
            };
            let mut said = format!(
                "{} failed {run_count} {} in a row (failureThreshold {failure_threshold}): {output}. {consequence}",
                the_probe,
                times(run_count)
            );
            said.push_str(&prompted_sync(k, "The sync this result prompts"));
            k.out.say(said);
        }
        // A Ready container stays Ready until failures reach the threshold.
        (ProbeKind::Readiness, false, false) if previous == Some(true) => {
            k.out.stage = Some(Stage::Readiness);
            k.out.say(format!(
                "{} failed ({output}): {run_count} of failureThreshold {failure_threshold} in a row, so the pod stays Ready for now and the kubelet probes again {}.",
                the_probe,
                again_in(next_in)
            ));
        }
        (ProbeKind::Readiness, _, false) if again_at_once => {
            k.out.stage = Some(Stage::Readiness);
            k.out.say(format!(
                "{} failed ({output}); the pod stays not Ready.",
                the_probe
            ));
        }
        (ProbeKind::Readiness, _, false) => {
            k.out.stage = Some(Stage::Readiness);
            k.out.say(format!(
                "{} failed ({output}); the pod stays not Ready and the kubelet probes again {}.",
                the_probe,
                again_in(next_in)
            ));
        }
        (ProbeKind::Startup, true, true) => {
            k.runtime.containers[c].started = true;
            put_on_hold(k, c, kind);
            k.out.stage = Some(Stage::Readiness);
            // The sync the result prompts computes the pod's status, which triggers readiness
            // for the started container, at once unless it is still within its
            // initialDelaySeconds (and for any other container started but not ready); the
            // liveness worker has been ticking all along and runs at its next tick. A sidecar's
            // start also lets the next init container start, which that sync does in full.
            let sidecar_sync = k.is_init(c) && !k.app_started();
            let busy = pod_worker_hold(k).map(|hold| holding(k, hold));
            let mut others = String::new();
            // When readiness first probes: the sync that prompts it is put off while the pod
            // worker is held, and a sidecar's sync triggers it in full below.
            let due = if busy.is_some() || sidecar_sync {
                k.runtime.sync_deferred |= busy.is_some();
                readiness_due(k, c)
            } else {
                let mut triggered = update_pod_status(k);
                let own = triggered.iter().position(|&(o, _)| o == c);
                let due = own.map(|i| triggered.remove(i).1);
                k.runtime.containers[c].readiness.triggered = false;
                others = describe_triggers(k, "The sync this result prompts", &triggered);
                due
            };
            let readiness = due.map(|due| match &busy {
                Some(busy) => format!(
                    "readiness waits for the sync this result prompts, as the pod worker is still {busy}"
                ),
                None if due == k.now => "readiness runs at once".to_string(),
                None => "readiness runs from its first tick after initialDelaySeconds".to_string(),
            });
            let next = match (readiness, spec.liveness_probe.is_some()) {
                (Some(r), true) => format!(": {r} and liveness from its next tick"),
                (Some(r), false) => format!(", and {r}"),
                (None, true) => ", and liveness runs from its next tick".to_string(),
                (None, false) => String::new(),
            };
            k.out.say(format!(
                "The startup probe of {name} in {pod} passed, so the container counts as started{next}.{others}"
            ));
            let now = k.now;
            schedule_on_grid(k, c, ProbeKind::Liveness, now, instance);
            // A sidecar that has started lets the next init container start: the probe result
            // prompts a sync of the pod (`handleProbeSync`).
            if k.is_init(c) && !k.app_started() {
                k.after(0, Work::KubeletSyncPod(pod));
            }
            return;
        }
        (ProbeKind::Liveness | ProbeKind::Startup, true, false) => {
            put_on_hold(k, c, kind);
            k.runtime.containers[c].killing = Some(kind);
            let failed = format!(
                "The {kind_lower} probe of {name} in {pod} failed {run_count} {} in a row (failureThreshold {failure_threshold}, every {}), so the kubelet kills the container to restart it: {output}.",
                times(run_count),
                go_duration(period.max(k.now.millis_since(run_started)))
            );
            k.out.stage = Some(Stage::Retry);
            // One sync at a time per pod: while another container's kill waits out its grace
            // period inside `killContainer`, or an image pull holds the sync, this kill waits
            // for the next sync.
            if let Some(hold) = pod_worker_hold(k) {
                k.out.say(format!(
                    "{failed} But the pod worker is still {}, so this kill waits until that has ended.",
                    holding(k, hold)
                ));
                return;
            }
            // The sync the result prompts computes the pod's status before it kills.
            let triggered = update_pod_status(k);
            let synced = describe_triggers(k, "The sync that kills it", &triggered);
            let how = start_probe_kill(k, c, kind);
            k.out.say(format!("{failed} {how}{synced}"));
            return;
        }
        (_, _, false) => {
            k.out.stage = Some(Stage::Readiness);
            k.out.say(format!(
                "The {kind_lower} probe of {name} in {pod} failed ({output}): {run_count} of failureThreshold {failure_threshold} before the container is restarted."
            ));
        }
        _ => {}
    }
    // The flips above have prompted their sync already; otherwise the first result does.
    finish_run(
        k,
        c,
        kind,
        first_contact && !flipped,
        ticker,
        instance,
        on_schedule,
        period,
    );
}

/// When the worker probes again, in words: `in 10s`, or `at once` after a run that held a tick.
fn again_in(ms: u64) -> String {
    if ms == 0 {
        "at once".to_string()
    } else {
        format!("in {}", go_duration(ms))
    }
}

/// When a worker runs next after a run, given its ticker's next tick from the run's start: then,
/// or as soon as the run ends when a tick fell within it (the tick is due) or a trigger came
/// (`queued`): Go's ticker channel holds one tick and drops the rest.
fn next_run_due(on_schedule: Time, now: Time, queued: bool) -> Time {
    if queued || on_schedule <= now {
        now
    } else {
        on_schedule
    }
}

/// A worker's tick that finds its container stopped (`doProbe`): a non-running container is a
/// Failure, set at once. Where that changes the result ([`ProbeWorker::fails_on_stop`]), the
/// update prompts a sync of the pod, whose status computation shows why the last sync left the
/// container waiting (CrashLoopBackOff). Later ticks change nothing, so the worker is idle until
/// the container runs again.
fn stopped_container_probed(k: &mut KubeletContext<'_>, c: usize, kind: ProbeKind) {
    let w = k.runtime.containers[c].worker(kind);
    if w.on_hold || !std::mem::take(&mut w.fails_on_stop) {
        return;
    }
    let name = k.container_name(c);
    let pod = k.work_name();
    k.out.stage = Some(Stage::Retry);
    // The sync the exit asked for has not run yet when the tick comes at the moment of the
    // exit (it would have left a reason): the prompted sync then comes after it.
    let after_exit_sync = k.runtime.containers[c].reason_cache.is_none();
    let when = if after_exit_sync {
        "; the pod worker takes it right after the sync the exit asked for"
    } else {
        ""
    };
    k.out.say(format!(
        "The {} probe worker of {name} in {pod} ticks and finds the container not running: its result turns from {} to Failure without a probe, and that change prompts a sync of the pod{when}.",
        kind.word(),
        if kind == ProbeKind::Startup { "Unknown" } else { "Success" }
    ));
    k.runtime.prompted_by = Some(kind);
    if after_exit_sync {
        k.runtime.sync_again = true;
    } else {
        k.after(0, Work::KubeletSyncPod(pod));
    }
}

/// The end of a probe run: the worker's first result for a container prompts a sync of the pod
/// (`first_sync`), and the next run is due at the ticker's next tick ([`next_run_due`]), unless
/// a run the status computation triggered just now has restarted the ticker. A trigger that
/// came during the run is run at once, from a restarted ticker; a tick that fell within it is
/// run at once too, and the ticker keeps its schedule for the run after.
#[allow(clippy::too_many_arguments)]
fn finish_run(
    k: &mut KubeletContext<'_>,
    c: usize,
    kind: ProbeKind,
    first_sync: bool,
    ticker: u16,
    instance: u32,
    on_schedule: Time,
    period: u64,
) {
    if first_sync {
        let synced = prompted_sync(
            k,
            "The worker's first result for this container prompts a sync of the pod; the sync",
        );
        if !synced.is_empty() {
            k.out.say(synced.trim_start().to_string());
        }
    }
    let queued = std::mem::take(&mut k.runtime.containers[c].worker(kind).run_queued);
    let current = k.runtime.containers[c].worker_ticker(kind);
    if current != ticker && !queued {
        return;
    }
    let due = next_run_due(on_schedule, k.now, queued);
    if current == ticker && on_schedule <= k.now {
        let missed = k.now.millis_since(on_schedule) / period.max(1) + 1;
        k.runtime.containers[c].worker(kind).grid_next =
            Some(on_schedule.plus_millis(missed * period));
    }
    let pod = k.work_name();
    k.after(
        due.millis_since(k.now),
        Work::ProbeTick {
            pod,
            container: c,
            probe: kind,
            instance,
            ticker: current,
        },
    );
}

/// A probe run that could not be run (`prober.probe` returned an error): the `Unhealthy` event
/// says so, and the worker throws the result away, so it counts toward neither threshold and the
/// published result stays as it was (spec §15.4).
fn probe_errored(
    k: &mut KubeletContext<'_>,
    c: usize,
    kind: ProbeKind,
    err: &str,
    triggered: bool,
) {
    let message = [
        kind.as_str(),
        " probe errored and resulted in unknown state: ",
        err,
    ]
    .concat();
    k.container_event(c, true, EventReason::Unhealthy, message);
    let name = k.container_name(c);
    let pod = k.work_name();
    let result = k.runtime.containers[c].worker(kind).result;
    let stays = match kind {
        ProbeKind::Readiness if result == Some(true) => "the container stays ready",
        ProbeKind::Readiness => "the container never turns ready and the pod stays not Ready",
        ProbeKind::Liveness => "it never fails either, and the container is not restarted for it",
        ProbeKind::Startup => {
            "the container never counts as started, so its liveness and readiness probes never run"
        }
    };
    k.out.stage = Some(Stage::Readiness);
    k.out.say(format!(
        "{} could not be run: {err} (no port of {name} has that name, and it is not a number). The kubelet throws an errored run away: it counts toward neither threshold, so {stays}.",
        TheProbe {
            triggered,
            kind: kind.word(),
            container: &name,
            pod: &pod,
        }
    ));
}

/// A liveness or startup worker stops probing this container instance until a new container ID
/// appears, and starts its count of equal results over (`onHold`, `resultRun = 0`).
fn put_on_hold(k: &mut KubeletContext<'_>, c: usize, kind: ProbeKind) {
    let w = k.runtime.containers[c].worker(kind);
    w.on_hold = true;
    w.run_count = 0;
}

/// The exit code of a process that ends on SIGTERM (128 + 15), as most runtimes' default
/// handlers and the JVM report it; an image's `shutdown_exit_code` may say otherwise.
pub const SIGTERM_EXIT_CODE: i32 = 143;

/// [`SIGTERM_EXIT_CODE`], as serde's default for an image's `shutdown_exit_code`.
pub fn sigterm_exit_code() -> i32 {
    SIGTERM_EXIT_CODE
}

/// The reason the runtime gives a container that exited with `code`: `Completed` for 0, else
/// `Error`.
pub fn exit_reason(code: i32) -> &'static str {
    if code == 0 { "Completed" } else { "Error" }
}

/// The exit code of a process stopped by SIGKILL (128 + 9).
pub const SIGKILL_EXIT_CODE: i32 = 137;
/// `minimumGracePeriodInSeconds`: the kubelet never gives a container less to stop.
pub(crate) const MINIMUM_GRACE_MS: u64 = 2000;

/// The container of the pod whose kill after a failed probe is under way (SIGTERM sent, not yet
/// exited): the sync that kills it stays in `killContainer` until then, so the pod worker does
/// nothing else for this pod meanwhile.
pub fn kill_in_flight(k: &KubeletContext<'_>) -> Option<usize> {
    k.runtime
        .containers
        .iter()
        .position(super::ContainerRuntime::kill_in_flight)
}

/// The container of the pod whose image is being pulled: the pull holds the sync that started
/// it, and so the pod worker.
pub(super) fn pull_in_flight(k: &KubeletContext<'_>) -> Option<usize> {
    k.runtime
        .containers
        .iter()
        .position(|r| r.pull_started.is_some())
}

/// Sends the SIGTERM of a kill after a failed `kind` probe (the `Killing` event) and schedules
/// the container's exit; returns the sentence that says how it will end.
fn start_probe_kill(k: &mut KubeletContext<'_>, c: usize, kind: ProbeKind) -> String {
    let name = k.container_name(c);
    let kind_lower = kind.word();
    k.runtime.containers[c].killing = Some(kind);
    k.runtime.containers[c].killed_at = Some(k.now);
    k.container_event(
        c,
        false,
        EventReason::Killing,
        // `computeInitContainerActions` words a sidecar's kill its own way.
        if k.is_init(c) {
            format!("Init container {name} failed {kind_lower} probe")
        } else {
            format!("Container {name} failed {kind_lower} probe, will be restarted")
        },
    );
    let end = probe_kill(k, c, kind);
    let instance = k.runtime.containers[c].instance;
    let pod = k.work_name();
    k.after(
        end.after_ms,
        Work::ContainerExit {
            pod,
            container: c,
            instance,
        },
    );
    let how = match end.shutdown_ms {
        Some(needs) if needs < end.grace_ms => format!(
            "{name} exits {} after it (exit code {})",
            go_duration(end.after_ms),
            end.exit_code
        ),
        Some(needs) => format!(
            "{name} needs {} to shut down, longer than that, so SIGKILL stops it when the grace period ends (exit code {SIGKILL_EXIT_CODE})",
            go_duration(needs)
        ),
        None => format!(
            "{name} ignores SIGTERM, so it runs on until the grace period ends and SIGKILL stops it (exit code {SIGKILL_EXIT_CODE})"
        ),
    };
    format!(
        "It sends SIGTERM with a grace period of {}s; {how}.",
        end.grace_ms / 1000
    )
}

/// "time" or "times", after a count.
fn times(n: i32) -> &'static str {
    if n == 1 { "time" } else { "times" }
}

/// How a container killed for a failed liveness or startup probe ends (`killContainer`).
#[derive(Clone, Copy, Debug)]
pub struct ProbeKill {
    /// The grace period between SIGTERM and SIGKILL.
    pub grace_ms: u64,
    /// How long the image takes to exit after SIGTERM, if it handles it at all.
    pub shutdown_ms: Option<u64>,
    /// When the process ends after SIGTERM.
    pub after_ms: u64,
    pub exit_code: i32,
}

/// `killContainer` after a failed liveness or startup probe: SIGTERM, then SIGKILL when the
/// grace period ends. The grace period is the probe's own `terminationGracePeriodSeconds` if it
/// sets one, else the pod's (`setTerminationGracePeriod`), and never under 2 s. The image says
/// how the process takes SIGTERM: it exits after its `shutdown` time (with its `shutdown_exit_code`), or it ignores
/// SIGTERM and SIGKILL ends it (code 137).
pub fn probe_kill(k: &KubeletContext<'_>, c: usize, kind: ProbeKind) -> ProbeKill {
    let spec = k.spec_of(c);
    let probe_grace = spec
        .and_then(|s| probe_spec(s, kind))
        .and_then(|p| p.termination_grace_period_seconds);
    let grace_s = k
        .pod
        .metadata
        .deletion_grace_period_seconds
        .or(probe_grace)
        .or(k.pod.spec.termination_grace_period_seconds)
        .unwrap_or(30);
    let grace_ms = u64::try_from(grace_s)
        .unwrap_or(0)
        .saturating_mul(1000)
        .max(MINIMUM_GRACE_MS);
    let image = spec.map(|s| k.world.behavior(&s.image));
    let (after_ms, exit_code) = end_after_sigterm(image.as_deref(), grace_ms);
    ProbeKill {
        grace_ms,
        shutdown_ms: image.and_then(|b| b.shutdown_ms),
        after_ms,
        exit_code,
    }
}

/// How a process of `image` ends after SIGTERM with `grace_ms` to go: when and with which exit
/// code. It exits after its `shutdown` time if that is shorter than the grace period (with its
/// `shutdown_exit_code`, 143 unless it says otherwise); otherwise, or if it ignores SIGTERM,
/// SIGKILL ends it when the period ends (137).
pub fn end_after_sigterm(image: Option<&ImageBehavior>, grace_ms: u64) -> (u64, i32) {
    end_within(
        image.and_then(|b| b.shutdown_ms),
        grace_ms,
        image.map_or(SIGTERM_EXIT_CODE, |b| b.shutdown_exit_code),
    )
}

/// How a process that takes `shutdown` to stop after SIGTERM (never, if `None`) ends when it
/// has `budget` before SIGKILL: after its shutdown with its own `code` if it makes it, else at
/// the end of the budget with 137.
pub fn end_within(shutdown: Option<u64>, budget: u64, code: i32) -> (u64, i32) {
    match shutdown {
        Some(s) if s < budget => (s, code),
        _ => (budget, SIGKILL_EXIT_CODE),
    }
}

/// A container killed for a failed probe has exited. The kubelet kills and restarts it in one
/// sync (`computePodActions` puts it in both lists), so its back-off check (`doBackOff`) looks
/// at the pod's status from before the kill: the newest *exited* instance there is the one
/// before this one. With none, it restarts at once and the back-off is left alone; if that
/// instance stopped longer ago than the back-off, it restarts at once and the back-off doubles;
/// only when the back-off has outgrown how long the container lives does it wait, in
/// CrashLoopBackOff, measured from this exit.
pub fn killed_container_exited(
    k: &mut KubeletContext<'_>,
    c: usize,
    kind: ProbeKind,
    code: i32,
    by_the_kill: bool,
) {
    let before = k.runtime.containers[c].finished_at;
    container_stopped(k, c, code, exit_reason(code));
    let name = k.container_name(c);
    let pod = k.pod.metadata.name.clone();
    let probe = kind.word();
    k.out.stage = Some(Stage::Retry);
    let stopped = if by_the_kill {
        format!(
            "{name} of {pod}, killed for its failed {probe} probe, has stopped (exit code {code})."
        )
    } else {
        format!(
            "{name} of {pod}, being killed for its failed {probe} probe, exited on its own before that ended (exit code {code})."
        )
    };
    let Some(before) = before else {
        k.out.say(format!(
            "{stopped} It had not stopped before, so the kubelet's back-off has nothing to go by and it starts the container again at once."
        ));
        images::ensure_image_and_start(k, c);
        return;
    };
    if let Some(b) = in_crash_backoff(k, c, before) {
        k.out.say(format!(
            "{stopped} Its previous instance stopped {} ago, within the restart back-off of {}, so this time the kubelet waits.",
            go_duration(k.now.millis_since(before)),
            go_duration(b.delay_ms)
        ));
        // Measured from this exit now: the next sync finds it the newest exited instance.
        if crash_backoff_allows_restart(k, c, true) {
            images::ensure_image_and_start(k, c);
        }
        return;
    }
    let was = k.runtime.containers[c].crash_backoff;
    step_crash_backoff(k, c, before);
    let now = k.runtime.containers[c]
        .crash_backoff
        .map_or(0, |b| b.delay_ms);
    k.out.say(format!(
        "{stopped} The kubelet's back-off looks at the instance before it, which stopped {} ago: {}, so it starts the container again at once, and the back-off becomes {}.",
        go_duration(k.now.millis_since(before)),
        match was {
            Some(b) => format!("outside the back-off of {}", go_duration(b.delay_ms)),
            None => "there is no back-off yet".to_string(),
        },
        go_duration(now)
    ));
    images::ensure_image_and_start(k, c);
}

/// `IsInBackOffSince` for the crash-loop entry: the back-off, when it has not run out since
/// `reference`, the exit it is measured from.
fn in_crash_backoff(k: &KubeletContext<'_>, c: usize, reference: Time) -> Option<Backoff> {
    k.runtime.containers[c].crash_backoff.filter(|b| {
        reference.millis_since(b.last_update) <= CRASH_BACKOFF_EXPIRY_MS
            && k.now.millis_since(reference) < b.delay_ms
    })
}

/// `Next` for the crash-loop entry, whose expiry is judged at `reference`: a fresh 10 s, or
/// double. Upstream stamps the entry with the restart time, not the exit, so the expiry
/// measures how long the next container runs, not that plus this wait.
fn step_crash_backoff(k: &mut KubeletContext<'_>, c: usize, reference: Time) {
    let rt = &mut k.runtime.containers[c];
    let entry = rt
        .crash_backoff
        .filter(|b| reference.millis_since(b.last_update) <= CRASH_BACKOFF_EXPIRY_MS);
    rt.crash_backoff = Some(Backoff::next(entry, reference, k.now));
}

/// The container's process has ended: record a terminated state and forget readiness.
pub fn container_stopped(k: &mut KubeletContext<'_>, c: usize, exit_code: i32, reason: &str) {
    if !k.has_container(c) {
        return;
    }
    let started = k.runtime.containers[c]
        .running_since
        .take()
        .unwrap_or(k.now);
    // The workers whose next tick turns a result into a Failure (spec §15.4 step 4): readiness
    // when the container was ready, liveness unless a failure has put it on hold (its result is
    // Success until then), startup unless it is on hold (its result is Unknown until then).
    let (has_liveness, has_startup) = k.spec_of(c).map_or((false, false), |s| {
        (s.liveness_probe.is_some(), s.startup_probe.is_some())
    });
    let rt = &mut k.runtime.containers[c];
    rt.readiness.fails_on_stop = rt.readiness.result == Some(true);
    rt.liveness.fails_on_stop = has_liveness && !rt.liveness.on_hold;
    rt.startup.fails_on_stop = has_startup && !rt.startup.on_hold;
    k.runtime.containers[c].readiness.result = None;
    k.runtime.containers[c].finished_at = Some(k.now);
    k.set_state(
        c,
        ContainerState::Terminated {
            exit_code,
            reason: reason.to_string(),
            message: String::new(),
            started_at: started.truncate_to_secs(),
            finished_at: k.now.truncate_to_secs(),
        },
    );
}

/// Whether container `c` shows CrashLoopBackOff in the stored status, and in the status this
/// action is computing.
fn back_off_shown(k: &KubeletContext<'_>, c: usize) -> (bool, bool) {
    let is_back_off = |state: Option<&ContainerState>| matches!(state, Some(ContainerState::Waiting { reason, .. }) if reason == "CrashLoopBackOff");
    let stored = if k.is_init(c) {
        k.pod.status.init_container_statuses.get(c)
    } else {
        k.pod
            .status
            .container_statuses
            .get(c.saturating_sub(k.inits()))
    };
    (
        is_back_off(stored.map(|cs| &cs.state)),
        is_back_off(k.cs(c).map(|cs| &cs.state)),
    )
}

/// The look of the pod worker that finds a container's back-off run out, when no sync since
/// its exit has shown CrashLoopBackOff: the sync computes the status first, with the reason the
/// last sync left, and writes it, so CrashLoopBackOff shows just before the restart (on a real
/// node for the second or so until the runtime's next relist reports the new container). The
/// restart is the next step, at the same moment. Returns whether that is what this sync does.
pub(super) fn show_back_off_before_restart(k: &mut KubeletContext<'_>) -> bool {
    for c in 0..k.runtime.containers.len() {
        let rt = &k.runtime.containers[c];
        let backing_off = rt
            .reason_cache
            .as_ref()
            .is_some_and(|(reason, _)| reason == "CrashLoopBackOff");
        if rt.running_since.is_some() || !backing_off {
            continue;
        }
        let Some(finished) = rt.finished_at else {
            continue;
        };
        let (was_shown, shown) = back_off_shown(k, c);
        if was_shown || !shown || in_crash_backoff(k, c, finished).is_some() {
            continue;
        }
        let name = k.container_name(c);
        let status = k.status_word(c, "CrashLoopBackOff");
        k.out.stage = Some(Stage::Retry);
        k.out.say(format!(
            "The pod worker looks again and the restart back-off of {name} has run out. The sync computes the pod's status first, with the reason the last sync left, so STATUS shows {status} for a moment; then it goes on to restart the container."
        ));
        let pod = k.work_name();
        k.after(0, Work::KubeletSyncPod(pod));
        return true;
    }
    false
}

/// `doBackOff`: whether a stopped container may restart now. When it may not, reports
/// CrashLoopBackOff and schedules the pod worker to look again.
///
/// `killed` is for a container the kubelet killed for a failed probe: the kill and this restart
/// attempt are one sync upstream, so the reason is cached before any status shows the exit,
/// and the status the runtime's next relist prompts (folded into this action) already shows
/// CrashLoopBackOff; a real cluster never shows `Error` for it.
pub fn crash_backoff_allows_restart(k: &mut KubeletContext<'_>, c: usize, killed: bool) -> bool {
    if !k.has_container(c) {
        return false;
    }
    let Some(cs) = k.cs(c) else {
        return false;
    };
    let finished = match (&cs.state, &cs.last_state) {
        (ContainerState::Terminated { finished_at, .. }, _) => *finished_at,
        (_, Some(ContainerState::Terminated { finished_at, .. })) => *finished_at,
        _ => k.now,
    };
    // The runtime's exit time, not the status's (which is rounded to whole seconds).
    let finished = k.runtime.containers[c].finished_at.unwrap_or(finished);
    if let Some(b) = in_crash_backoff(k, c, finished) {
        let name = k.container_name(c);
        let pod_fmt = format_pod(k.pod);
        k.container_event(
            c,
            true,
            EventReason::BackOff,
            format!("Back-off restarting failed container {name} in pod {pod_fmt}"),
        );
        let message = format!(
            "back-off {} restarting failed container={name} pod={pod_fmt}",
            go_duration(b.delay_ms)
        );
        // The status this sync computed before it got here shows the reason an earlier sync
        // left, if any; otherwise still how the container ended, and the reason is kept for
        // the next computation.
        let (was_shown, shown) = back_off_shown(k, c);
        // Told by the sync that first shows the reason; the sync the exit asked for may come
        // between the tick and that one.
        let prompted = if shown && !was_shown {
            k.runtime.prompted_by.take()
        } else {
            None
        };
        let Some(cs) = k.cs(c) else {
            return false;
        };
        let restarts = cs.restart_count;
        k.runtime.containers[c].reason_cache = Some(("CrashLoopBackOff".to_string(), message));
        let remaining = b.delay_ms - k.now.millis_since(finished);
        let wait = k.rng.jitter_ms(remaining.min(POD_WORKER_RESYNC_MS), 0.5);
        k.look_again_for_backoff(wait);
        k.out.stage = Some(Stage::Retry);
        let status = k.status_word(c, "CrashLoopBackOff");
        let shows = if was_shown {
            format!("STATUS stays {status}.")
        } else if killed {
            apply_reason_cache(k);
            format!(
                "The kill and this restart attempt are one sync, so the reason is cached before any status shows the exit: the status the runtime's next relist prompts shows STATUS {status} straight away."
            )
        } else if shown {
            let why = prompted.map_or(String::new(), |kind| {
                format!(
                    "The {} probe worker's tick found the container not running, and its result turning Failure prompted this sync, which ",
                    kind.word()
                )
            });
            let computes = if why.is_empty() {
                "This sync computes"
            } else {
                "computes"
            };
            format!(
                "{why}{computes} the pod's status first, with the reason the last sync left: STATUS is now {status}."
            )
        } else {
            // What this sync's status computation showed: how the container ended, or the
            // reason an earlier sync left (a failed pull of a restart under imagePullPolicy
            // Always).
            let now_shown = match k.cs(c).map(|cs| &cs.state) {
                Some(
                    ContainerState::Terminated { reason, .. }
                    | ContainerState::Waiting { reason, .. },
                ) => k.status_word(c, reason),
                _ => k.status_word(c, "Running"),
            };
            format!(
                "The kubelet does not start it, but STATUS still shows {now_shown}, as this sync computed the pod's status first; {status} shows from the kubelet's next look at the pod."
            )
        };
        k.out.say(format!(
            "Container {name} has stopped {} time{} (exited or killed); the restart back-off is now {}. {shows} The back-off runs out in {}, and the kubelet restarts the container at the first look of its pod worker after that.",
            restarts + 1,
            if restarts == 0 { "" } else { "s" },
            go_duration(b.delay_ms),
            go_duration(remaining)
        ));
        return false;
    }
    step_crash_backoff(k, c, finished);
    true
}
