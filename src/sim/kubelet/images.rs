//! Image pulls (`pkg/kubelet/images/image_manager.go`): pull policies, the serialized puller,
//! `Pulling` / `Pulled` / `Failed` events, and the ErrImagePull → ImagePullBackOff back-off.

use super::{
    BACKOFF_INITIAL_MS, BACKOFF_MAX_MS, KubeletContext, POD_WORKER_BACKOFF_MS, capitalized,
    pull_policy, start_container,
};
use crate::sim::api::{ContainerState, EventReason, Pod, PullPolicy, Time};
use crate::sim::controller::{Change, Work};
use crate::sim::order;
use crate::sim::trace::Stage;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// `flowcontrol.Backoff` for one key: the current delay and when it was last bumped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backoff {
    pub delay_ms: u64,
    pub last_update: Time,
}

impl Backoff {
    /// `hasExpired`: more than twice the maximum (600 s) since the last bump.
    pub fn has_expired(&self, event_time: Time) -> bool {
        event_time.millis_since(self.last_update) > 2 * BACKOFF_MAX_MS
    }

    /// `Next`: a fresh 10 s entry, or double the delay (capped at 300 s). Whether the entry has
    /// expired is judged at `event_time`, but the entry is stamped `now` (upstream's
    /// `Clock.Now()`): for a crash loop the event is the container's exit and `now` its restart,
    /// so the next expiry counts only how long the restarted container ran.
    pub fn next(entry: Option<Backoff>, event_time: Time, now: Time) -> Backoff {
        let delay_ms = match entry {
            Some(b) if !b.has_expired(event_time) => (b.delay_ms * 2).min(BACKOFF_MAX_MS),
            _ => BACKOFF_INITIAL_MS,
        };
        Backoff {
            delay_ms,
            last_update: now,
        }
    }
}

/// A Go `time.Duration` string truncated to milliseconds: `812ms`, `1.532s`, `1m20s`, `5m0s`.
///
/// Written into one string, as Go's `Duration.String` fills one buffer, rather than formatting
/// the seconds and then formatting again around them: the kubelet names a duration in many of
/// its texts.
pub fn go_duration(ms: u64) -> String {
    if ms == 0 {
        return "0s".to_string();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let h = ms / 3_600_000;
    let m = (ms / 60_000) % 60;
    let s = (ms / 1000) % 60;
    let frac = ms % 1000;
    let mut out = String::with_capacity(16);
    // Writing into a String cannot fail.
    let _ = match (h, m) {
        (0, 0) => write!(out, "{s}"),
        (0, _) => write!(out, "{m}m{s}"),
        _ => write!(out, "{h}h{m}m{s}"),
    };
    if frac > 0 {
        // The milliseconds as three digits without their trailing zeros: 500 is `.5`, 50 is
        // `.05`, 532 is `.532`.
        let (mut digits, mut width) = (frac, 3);
        while digits % 10 == 0 {
            digits /= 10;
            width -= 1;
        }
        let _ = write!(out, ".{digits:0width$}");
    }
    out.push('s');
    out
}

/// A plausible image size for an image the scenario does not describe, stable per name.
pub fn default_size(image: &str) -> u64 {
    let h = image.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    20_000_000 + h % 100_000_000
}

/// The fully qualified reference containerd reports (`docker.io/library/web:2.0`).
fn qualified(image: &str) -> String {
    let first = image.split('/').next().unwrap_or("");
    if image.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost") {
        image.to_string()
    } else if image.contains('/') {
        format!("docker.io/{image}")
    } else {
        format!("docker.io/library/{image}")
    }
}

/// The message a failed pull reports, as containerd phrases a missing tag.
fn pull_error_text(image: &str, custom: Option<&str>) -> String {
    if let Some(c) = custom {
        return c.to_string();
    }
    let q = qualified(image);
    format!(
        "rpc error: code = NotFound desc = failed to pull and unpack image {q:?}: failed to resolve reference {q:?}: {q}: not found"
    )
}

/// The message a pull reports when the registry does not answer, as containerd phrases a
/// timed-out request for the manifest.
pub fn registry_unreachable_text(image: &str) -> String {
    let q = qualified(image);
    let (host, rest) = q.split_once('/').unwrap_or(("docker.io", q.as_str()));
    // Docker Hub's API lives on its own host; other registries answer on theirs.
    let api_host = if host == "docker.io" {
        "registry-1.docker.io"
    } else {
        host
    };
    let (path, tag) = match rest.rsplit_once(':') {
        Some((path, tag)) if !tag.contains('/') => (path, tag),
        _ => (rest, "latest"),
    };
    format!(
        "rpc error: code = Unknown desc = failed to pull and unpack image {q:?}: failed to resolve reference {q:?}: failed to do request: Head \"https://{api_host}/v2/{path}/manifests/{tag}\": dial tcp: i/o timeout"
    )
}

/// `EnsureImageExists`, then start: honours the pull policy and any pull back-off, and either
/// starts the container at once (image present), begins a pull, or reports the back-off.
pub fn ensure_image_and_start(k: &mut KubeletContext<'_>, c: usize) {
    if !k.has_container(c) {
        return;
    }
    let Some(container) = k.spec_of(c) else {
        return;
    };
    let image = container.image.clone();
    let policy = pull_policy(container);
    let name = container.name.clone();
    let present = k.image_present(&image);

    if present && policy != PullPolicy::Always {
        k.container_event(
            c,
            false,
            EventReason::Pulled,
            format!("Container image {image:?} already present on machine and can be accessed by the pod"),
        );
        start_container(k, c);
        return;
    }
    if !present && policy == PullPolicy::Never {
        let msg = format!("Container image {image:?} is not present with pull policy of Never");
        k.container_event(c, true, EventReason::ErrImageNeverPull, msg.clone());
        k.container_event(
            c,
            true,
            EventReason::Failed,
            "Error: ErrImageNeverPull".to_string(),
        );
        k.set_state(
            c,
            ContainerState::Waiting {
                reason: "ErrImageNeverPull".to_string(),
                message: msg,
            },
        );
        k.out.stage = Some(Stage::Retry);
        let (look, why) = look_again_after_failure(k);
        k.out.say(format!(
            "imagePullPolicy is Never and {image} is not on {}, so container {name} cannot start; the pod worker looks again in {} ({why}).",
            k.pod.node_name,
            go_duration(look)
        ));
        return;
    }

    if let Some(b) = k.runtime.pull_backoff.get(&image).copied()
        && !b.has_expired(k.now)
        && k.now.millis_since(b.last_update) < b.delay_ms
    {
        let previous = match k.cs(c).map(|cs| &cs.state) {
            Some(ContainerState::Waiting { reason, message }) if reason == "ErrImagePull" => {
                format!("ErrImagePull: {message}")
            }
            Some(ContainerState::Waiting { reason, message }) if reason == "ImagePullBackOff" => {
                message
                    .split_once(": ")
                    .map_or(String::new(), |(_, rest)| rest.to_string())
            }
            _ => String::new(),
        };
        k.container_event(
            c,
            false,
            EventReason::BackOff,
            format!("Back-off pulling image {image:?}"),
        );
        k.container_event(
            c,
            true,
            EventReason::Failed,
            "Error: ImagePullBackOff".to_string(),
        );
        let message = if previous.is_empty() {
            format!("Back-off pulling image {image:?}")
        } else {
            format!("Back-off pulling image {image:?}: {previous}")
        };
        k.set_state(
            c,
            ContainerState::Waiting {
                reason: "ImagePullBackOff".to_string(),
                message,
            },
        );
        let remaining = b.delay_ms - k.now.millis_since(b.last_update);
        k.out.stage = Some(Stage::Retry);
        k.out.say(format!(
            "The last pull of {image} failed, so the kubelet backs off for {} before pulling again ({} left); STATUS shows {}.",
            go_duration(b.delay_ms),
            go_duration(remaining),
            k.status_word(c, "ImagePullBackOff")
        ));
        retry_later(k);
        return;
    }

    // Pull. Pulls on a node are serialized, so this one may wait for the puller.
    let behavior = super::effective_behavior(k.world, k.store, &image, None);
    let node_rt = k.store_node_runtime();
    let start = node_rt.puller_busy_until.max(k.now);
    let in_flight = node_rt.in_flight.contains_key(&image) || present;
    let duration = if in_flight { 50 } else { behavior.pull_time_ms };
    let done = start.plus_millis(duration);
    let mut node_rt = node_rt;
    node_rt.puller_busy_until = done;
    if behavior.pull_ok {
        node_rt.in_flight.insert(image.clone(), done);
    }
    k.out.change(Change::SetNodeRuntime {
        name: k.pod.node_name.clone(),
        runtime: node_rt,
    });
    k.runtime.containers[c].pull_started = Some(k.now);
    k.runtime.containers[c].pull_ms = duration;
    k.runtime.containers[c].pull_done = Some(done);
    k.container_event(
        c,
        false,
        EventReason::Pulling,
        format!("Pulling image {image:?}"),
    );
    // The kubelet computes the pod's status before it pulls, from the reason the last sync
    // left (its `reasonCache`): a retry after a failed pull keeps showing ErrImagePull or
    // ImagePullBackOff while it pulls; only a first pull shows ContainerCreating.
    let retry = matches!(
        k.cs(c).map(|cs| &cs.state),
        Some(ContainerState::Waiting { reason, .. }) if reason == "ErrImagePull" || reason == "ImagePullBackOff"
    );
    // A container that has run before (a restart under imagePullPolicy Always) keeps showing
    // how its last instance ended while the image is pulled: that status was computed before
    // the pull, and the pod stays Running.
    let restart = k.cs(c).is_some_and(|cs| {
        matches!(cs.state, ContainerState::Terminated { .. }) || cs.last_state.is_some()
    });
    if !retry && !restart {
        let reason = k.default_waiting_reason().to_string();
        k.set_state(
            c,
            ContainerState::Waiting {
                reason,
                message: String::new(),
            },
        );
    }
    k.after(
        done.millis_since(k.now),
        Work::PullComplete {
            pod: k.work_name(),
            container: c,
        },
    );
    k.out.stage = Some(Stage::Schedule);
    let why = if policy == PullPolicy::Always {
        "imagePullPolicy is Always".to_string()
    } else {
        format!("{image} is not on {} yet", k.pod.node_name)
    };
    // STATUS as kubectl shows the pod with this action's edits so far, for the pulls that keep
    // an earlier status: rare paths, so the pod is copied for them.
    let shown = (restart || retry).then(|| {
        Pod {
            status: k.status.clone().into_owned(),
            ..k.pod.clone()
        }
        .kubectl_status()
    });
    if let (true, Some(shown)) = (restart, &shown) {
        k.out.say(format!(
            "{why}, so before it restarts {name} the kubelet on {} pulls {image} again; STATUS stays {shown} while it pulls, as the sync computed the pod's status first.",
            k.pod.node_name,
        ));
    } else if let Some(shown) = &shown {
        k.out.stage = Some(Stage::Retry);
        k.out.say(format!(
            "The pull back-off for {image} has passed, so the kubelet on {} pulls it again; STATUS keeps the last reason, {shown}, while it pulls.",
            k.pod.node_name,
        ));
    } else if k.is_init(c) {
        let (n, title) = (k.inits(), k.container_title(c));
        let until = if k.runs_to_completion(c) {
            "has run to completion"
        } else {
            "has started"
        };
        k.out.say(format!(
            "{} comes {} in {}; {why}, so the kubelet pulls it (STATUS shows Init:{c}/{n} until it {until}).",
            capitalized(&title),
            if c == 0 { "first" } else { "next" },
            k.pod.metadata.name
        ));
    } else if c == k.inits() && c > 0 {
        k.out.say(format!(
            "The init containers of {} are done, so container {name} comes next; {why}, so the kubelet pulls it (STATUS shows PodInitializing until the app containers run).",
            k.pod.metadata.name
        ));
    } else if c > 0 {
        // The pod worker reaches a later container only once the ones before it have started
        // or failed to.
        k.out.say(format!(
            "Container {name} comes next in {}; {why}, so the kubelet pulls it now (the pod stays Pending until every container runs).",
            k.pod.metadata.name
        ));
    } else {
        k.out.say(format!(
            "{} is bound to {}; {why}, so the kubelet pulls it (the pod stays Pending with ContainerCreating meanwhile).",
            k.pod.metadata.name, k.pod.node_name
        ));
    }
}

/// A pull finished: success starts the container; failure records ErrImagePull and the back-off.
pub fn finish_pull(k: &mut KubeletContext<'_>, c: usize) {
    if !k.has_container(c) {
        return;
    }
    let Some(image) = k.spec_of(c).map(|s| s.image.clone()) else {
        return;
    };
    let behavior = super::effective_behavior(k.world, k.store, &image, None);
    let started = k.runtime.containers[c].pull_started.unwrap_or(k.now);
    k.runtime.containers[c].pull_started = None;
    let mut node_rt = k.store_node_runtime();
    if behavior.pull_ok {
        let total = k.now.millis_since(started);
        let pull = k.runtime.containers[c].pull_ms.min(total);
        node_rt.in_flight.remove(&image);
        k.out.change(Change::SetNodeRuntime {
            name: k.pod.node_name.clone(),
            runtime: node_rt,
        });
        if !k.image_present(&image)
            && let Some(node) = k.store.nodes.get(&k.pod.node_name)
        {
            let mut node = node.clone();
            node.status.images.push(image.clone());
            order::sort(&mut node.status.images);
            k.out.change(Change::UpdateNode(Box::new(node)));
        }
        k.container_event(
            c,
            false,
            EventReason::Pulled,
            format!(
                "Successfully pulled image {image:?} in {} ({} including waiting). Image size: {} bytes.",
                go_duration(pull),
                go_duration(total),
                behavior.size_bytes
            ),
        );
        // Upstream keeps the image's back-off entry after a success and only collects the
        // expired ones (`backOff.GC()`): a failure soon after doubles from where it was.
        let now = k.now;
        k.runtime.pull_backoff.retain(|_, b| !b.has_expired(now));
        start_container(k, c);
        return;
    }
    node_rt.in_flight.remove(&image);
    k.out.change(Change::SetNodeRuntime {
        name: k.pod.node_name.clone(),
        runtime: node_rt,
    });
    let err = pull_error_text(&image, behavior.pull_error.as_deref());
    k.container_event(
        c,
        true,
        EventReason::Failed,
        format!("Failed to pull image {image:?}: {err}"),
    );
    k.container_event(
        c,
        true,
        EventReason::Failed,
        "Error: ErrImagePull".to_string(),
    );
    let prev = k.runtime.pull_backoff.get(&image).copied();
    let next = Backoff::next(prev, k.now, k.now);
    k.runtime.pull_backoff.insert(image.clone(), next);
    k.set_state(
        c,
        ContainerState::Waiting {
            reason: "ErrImagePull".to_string(),
            message: err.clone(),
        },
    );
    // The sync failed, so the pod worker tries again after its back-off (`10 s × U[1, 1.5)`),
    // unless the new sandbox's lifecycle event is waiting (the pull blocked the worker while it
    // came): then it looks again shortly, which is why a first failure shows ImagePullBackOff
    // within a second or two and later ones only after the worker's back-off.
    let (look, why) = look_again_after_failure(k);
    k.out.stage = Some(Stage::Retry);
    k.out.say(format!(
        "Pulling {image} failed ({err}). STATUS shows {} and the kubelet will not pull it again for {} (the back-off doubles after each failure, up to 5m0s); the pod worker looks again in {} ({why}).",
        k.status_word(c, "ErrImagePull"),
        go_duration(next.delay_ms),
        go_duration(look)
    ));
}

/// When the pod worker looks again after a failed sync, and why: at once (in the model, after
/// `1 s × U[1, 1.5)`, the relist period) while the new sandbox's lifecycle event is waiting for
/// the worker, otherwise after its back-off.
pub(super) fn look_again_after_failure(k: &mut KubeletContext<'_>) -> (u64, &'static str) {
    if k.runtime.sandbox_event_pending {
        let pod = k.work_name();
        let jitter = k.rng.jitter_ms(1000, 0.5);
        k.after(jitter, Work::KubeletSyncPod(pod));
        (
            jitter,
            "the new sandbox's lifecycle event is waiting for it",
        )
    } else {
        (retry_later(k), "its back-off after a failed sync")
    }
}

/// A failed sync is retried by the pod worker after `10 s × U[1, 1.5)`. Returns the delay.
fn retry_later(k: &mut KubeletContext<'_>) -> u64 {
    let delay = k.rng.jitter_ms(POD_WORKER_BACKOFF_MS, 0.5);
    k.look_again(delay);
    delay
}

impl KubeletContext<'_> {
    /// The node-local state of the pod's node as this action has left it so far: a pull that
    /// ended earlier in the action has already freed the puller.
    fn store_node_runtime(&self) -> super::NodeRuntime {
        self.out
            .changes
            .iter()
            .rev()
            .find_map(|c| match c {
                Change::SetNodeRuntime { name, runtime } if *name == self.pod.node_name => {
                    Some(runtime.clone())
                }
                _ => None,
            })
            .or_else(|| self.store.kubelet_nodes.get(&self.pod.node_name).cloned())
            .unwrap_or_default()
    }

    /// Whether the image is on the pod's node, counting a pull that ended earlier in this
    /// action: the containers after it, started in the same sync, find it there.
    fn image_present(&self, image: &str) -> bool {
        let written = self.out.changes.iter().rev().find_map(|c| match c {
            Change::UpdateNode(n) if n.metadata.name == self.pod.node_name => Some(&**n),
            _ => None,
        });
        written
            .or_else(|| self.store.nodes.get(&self.pod.node_name))
            .is_some_and(|n| n.status.images.iter().any(|i| i == image))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_go_prints_them() {
        for (ms, text) in [
            (0, "0s"),
            (812, "812ms"),
            (1_000, "1s"),
            (1_500, "1.5s"),
            (1_050, "1.05s"),
            (1_532, "1.532s"),
            (80_000, "1m20s"),
            (300_000, "5m0s"),
            (90_500, "1m30.5s"),
            (3_600_000, "1h0m0s"),
            (3_661_001, "1h1m1.001s"),
        ] {
            assert_eq!(go_duration(ms), text, "{ms} ms");
        }
    }
}
