//! A node drain: what `kubectl drain NODE` does to the simulated cluster and what it prints. The
//! command cordons the node and asks the Eviction API to evict each pod on it. An eviction a
//! PodDisruptionBudget allows (or one no budget covers) marks the pod `DisruptionTarget` and
//! deletes it with its own grace period; one a budget refuses (429) is tried again every 5 s.
//! kubectl then waits, printing `pod/NAME evicted` as each pod goes and `node/NAME drained`
//! after the last. Each command is a [`DrainWait`] in the store, which the simulator looks at
//! after every step while one is at work.

use super::api::{Pod, PodPhase, Time};
use super::commands::CommandError;
use super::controller::Outcome;
use super::controller::{Change, Work};
use super::store::Store;
use serde_json::Value;

/// The flags of `kubectl drain` that RolloutScope takes. `--ignore-daemonsets` and `--force`
/// change nothing here, since the namespace has no DaemonSet and every pod has a controller,
/// but a command line copied from a runbook carries them, so they are accepted and echoed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrainFlags {
    pub ignore_daemonsets: bool,
    pub delete_emptydir_data: bool,
    pub force: bool,
    /// `--dry-run=client`: print what would be done, change nothing.
    pub dry_run: bool,
    /// `--grace-period=N`: the seconds each evicted pod gets to shut down; negative (kubectl's
    /// default, -1) leaves each pod its own.
    pub grace_period: Option<i64>,
}

impl DrainFlags {
    /// The flags as kubectl's command line gives them, each with a leading space.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for (on, flag) in [
            (self.ignore_daemonsets, " --ignore-daemonsets"),
            (self.delete_emptydir_data, " --delete-emptydir-data"),
            (self.force, " --force"),
            (self.dry_run, " --dry-run=client"),
        ] {
            if on {
                s.push_str(flag);
            }
        }
        if let Some(g) = self.grace_period {
            s.push_str(&format!(" --grace-period={g}"));
        }
        s
    }
}

/// Reads the argument of a `drain` action or of the app's drain button: a node name, then any
/// of the flags above (`node-1 --ignore-daemonsets --delete-emptydir-data`).
///
/// # Errors
/// The reason in words when there is no node name, or a flag this model does not take.
pub fn parse(text: &str) -> Result<(String, DrainFlags), String> {
    let mut words = text.split_whitespace();
    let node = match words.next() {
        Some(n) if !n.starts_with('-') => n.to_string(),
        _ => {
            return Err(
                "must name a node, like \"node-1\" or \"node-1 --ignore-daemonsets --delete-emptydir-data\""
                    .into(),
            );
        }
    };
    let mut flags = DrainFlags::default();
    while let Some(w) = words.next() {
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (w, None),
        };
        match (flag, inline) {
            ("--ignore-daemonsets", None) => flags.ignore_daemonsets = true,
            // The older spelling, which kubectl still takes with a deprecation warning.
            ("--delete-emptydir-data" | "--delete-local-data", None) => {
                flags.delete_emptydir_data = true;
            }
            ("--force", None) => flags.force = true,
            // `GetDryRunStrategy`: a bare `--dry-run` and `true` are the deprecated spellings of
            // `client`, `false` of `none`.
            ("--dry-run", None | Some("client" | "true")) => flags.dry_run = true,
            ("--dry-run", Some("none" | "false")) => flags.dry_run = false,
            ("--dry-run", Some("server")) => {
                return Err("--dry-run=server has the API server run each eviction without keeping it, which RolloutScope does not model: use --dry-run=client".into());
            }
            ("--dry-run", Some(other)) => {
                return Err(format!(
                    "Invalid dry-run value ({other}). Must be \"none\", \"server\", or \"client\"."
                ));
            }
            // pflag takes `--grace-period=N` and `--grace-period N`, N as `strconv.ParseInt(s, 0,
            // 64)` reads it (so `010` is octal and `0x10` hexadecimal).
            ("--grace-period", value) => {
                let value = match value {
                    Some(v) => v,
                    None => words.next().unwrap_or_default(),
                };
                let seconds = go_parse_int(value).map_err(|why| {
                    format!(
                        "invalid argument {value:?} for \"--grace-period\" flag: strconv.ParseInt: parsing {value:?}: {why}"
                    )
                })?;
                // Zero asks the API server to delete each pod object at once, before its
                // kubelet has stopped anything, which this model does not do.
                if seconds == 0 {
                    return Err("--grace-period=0 deletes each pod object at once, before its kubelet stops it, which RolloutScope does not model: give 1 or more (or leave it out for each pod's own)".into());
                }
                flags.grace_period = Some(seconds);
            }
            (other, _) if other.starts_with('-') => {
                return Err(format!(
                    "unknown flag: {w} (this model takes --ignore-daemonsets, --delete-emptydir-data, --force, --dry-run=client and --grace-period=N)"
                ));
            }
            _ => {
                return Err(format!(
                    "names one node, then flags: {w:?} is neither (drain one node per action)"
                ));
            }
        }
    }
    Ok((node, flags))
}

/// `strconv.ParseInt(s, 0, 64)`: an optional sign, then a decimal number, or one with a base
/// prefix (`0x`, `0o`, `0b`, or a leading `0` for octal), with underscores between digits. The
/// error is Go's reason: `invalid syntax` or `value out of range`.
fn go_parse_int(s: &str) -> Result<i64, &'static str> {
    const INVALID: &str = "invalid syntax";
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    // Underscores only between digits (or just after a base prefix).
    let prefixed = radix != 10;
    let bad_underscore =
        digits.ends_with('_') || digits.contains("__") || (digits.starts_with('_') && !prefixed);
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    if clean.is_empty() || clean.starts_with('+') || bad_underscore {
        return Err(INVALID);
    }
    let magnitude = u128::from_str_radix(&clean, radix).map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => "value out of range",
        _ => INVALID,
    })?;
    let signed = if negative {
        -i128::try_from(magnitude).map_err(|_| "value out of range")?
    } else {
        i128::try_from(magnitude).map_err(|_| "value out of range")?
    };
    i64::try_from(signed).map_err(|_| "value out of range")
}

/// One `kubectl drain` at work: the pods whose eviction a budget refused, which it tries again
/// every 5 s (`EvictErrorRetryDelay`), and the pods it evicted, which it waits to see gone
/// (`waitForDelete`, which looks every second). The evicted pods are kept with their UIDs, as
/// kubectl compares them: a pod of the same name and another UID is a new pod.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DrainWait {
    /// Which `kubectl drain` this is: each command is a process of its own, with its own
    /// retries and its own output, even when two drain the same node.
    pub id: u64,
    pub node: String,
    pub since: Time,
    pub pods: Vec<(String, String)>,
    pub pending: Vec<String>,
    /// The errors of evictions kubectl gave up on; the drain then ends with them, not with
    /// `node/… drained`.
    pub failed: Vec<String>,
    /// The grace period its evictions ask for (`--grace-period`), if not each pod's own.
    pub grace: Option<i64>,
}

impl DrainWait {
    /// Whether kubectl has nothing left to try or wait for.
    pub fn is_done(&self) -> bool {
        self.pods.is_empty() && self.pending.is_empty()
    }

    /// What kubectl prints when the drain is over: `node/NAME drained`, or, when evictions
    /// failed, the failure as `RunDrain` and `CheckErr` print it: the pods still on the node
    /// (when any are), then [`unable_to_drain`].
    fn ending(&self, store: &Store) -> String {
        if self.failed.is_empty() {
            return format!("node/{} drained", self.node);
        }
        let err = aggregate(&self.failed);
        let left: Vec<String> = pods_on(store, &self.node)
            .map(|p| format!("pod/{}", p.metadata.name))
            .collect();
        let pending = if left.is_empty() {
            String::new()
        } else {
            format!(
                "There are pending pods in node {:?} when an error occurred: {err} {}; ",
                self.node,
                left.join(" ")
            )
        };
        format!(
            "{pending}{}",
            unable_to_drain(&self.node, &err, &self.failed)
        )
    }
}

/// How `RunDrain` ends for a node it could not drain: the error on stderr, the node left to
/// drain, and `CheckErr`'s print of the aggregate, each error on a line of its own without
/// kubectl's `error: ` prefix (an aggregate's lines carry none).
fn unable_to_drain(node: &str, err: &str, errors: &[String]) -> String {
    format!(
        "error: unable to drain node {node:?} due to error: {err}, continuing command... There are pending nodes to be drained: {node}. {}",
        errors.join(" ")
    )
}

/// The pods bound to `node`, by name, those being deleted included (`GetPodsForDeletion` lists
/// them by `spec.nodeName`).
fn pods_on<'s>(store: &'s Store, node: &'s str) -> impl Iterator<Item = &'s Pod> {
    store
        .pods
        .values()
        .filter(move |p| p.node_name == node)
        .map(|p| &**p)
}

/// `utilerrors.NewAggregate(errs).Error()`: one error as it is, several in brackets.
fn aggregate(errs: &[String]) -> String {
    match errs {
        [one] => one.clone(),
        _ => format!("[{}]", errs.join(", ")),
    }
}

/// How long kubectl waits before it tries a refused eviction again.
pub const RETRY_MS: u64 = 5_000;

/// What one round of evictions did, for the narration.
#[derive(Default)]
struct Evictions {
    /// kubectl's lines, in order.
    lines: Vec<String>,
    /// Pods let go now, marked and deleted.
    evicted: Vec<String>,
    /// Pods let go that were being deleted already: nothing changes for them.
    terminating: Vec<String>,
    /// How many were refused for now, and the refusals' causes, each once.
    refused: usize,
    causes: std::collections::BTreeSet<String>,
}

/// `evictPods` for `pods`, in name order: each eviction prints `evicting pod default/NAME`, and
/// the Eviction API grants it (the pod is marked and deleted, and joins the pods kubectl waits
/// for), refuses it for now (429: kubectl prints the error and tries again in 5 s), or refuses
/// it for good.
fn evict_pods(
    store: &Store,
    pods: &[&Pod],
    wait: &mut DrainWait,
    now: Time,
    out: &mut Outcome,
) -> Evictions {
    use super::controller::disruption::{self, Eviction};
    let mut report = Evictions::default();
    let mut spent = std::collections::BTreeMap::new();
    for p in pods {
        let name = &p.metadata.name;
        report.lines.push(format!("evicting pod default/{name}"));
        match disruption::evict(store, p, &spent, now) {
            Eviction::Granted { spent: budget } => {
                if let Some((b, status)) = budget {
                    spent.insert(b, status);
                }
                if p.metadata.deletion_timestamp.is_some() {
                    report.terminating.push(name.clone());
                } else {
                    report.evicted.push(name.clone());
                }
                super::controller::node_lifecycle::add_condition_and_delete_pod(
                    out,
                    p,
                    ("EvictionByEvictionAPI", "Eviction API: evicting"),
                    wait.grace,
                    now,
                );
                wait.pods.push((name.clone(), p.metadata.uid.clone()));
            }
            Eviction::TooManyRequests { budget, cause } => {
                // The refusal's numbers are the budget's status as the controller last wrote
                // it, which an eviction earlier in this command spent from without recounting.
                let cause = if spent.contains_key(&budget) {
                    format!(
                        "{cause}; an eviction before it spent the disruption {budget} allowed, and the healthy count is the controller's last, which still counts the pod it let go"
                    )
                } else {
                    cause
                };
                report.lines.push(format!(
                    "error when evicting pods/{name:?} -n \"default\" (will retry after {}s): {}",
                    RETRY_MS / 1000,
                    disruption::TOO_MANY_REQUESTS
                ));
                report.causes.insert(cause);
                report.refused += 1;
                wait.pending.push(name.clone());
            }
            Eviction::MoreThanOneBudget => {
                let err = format!(
                    "error when evicting pods/{name:?} -n \"default\": {}",
                    disruption::MORE_THAN_ONE
                );
                report.lines.push(err.clone());
                wait.failed.push(err);
            }
        }
    }
    for (name, status) in spent {
        out.change(Change::UpdatePdbStatus { name, status });
    }
    if !wait.pending.is_empty() {
        out.requeue.push((RETRY_MS, Work::DrainRetry(wait.id)));
    }
    report
}

/// kubectl's lines as one sentence, ending in one full stop.
fn sentence(lines: &[String]) -> String {
    let text = lines.join(", ");
    if text.ends_with('.') {
        text
    } else {
        text + "."
    }
}

/// The sentences after kubectl's lines: what the evictions did, and what kubectl does next.
fn explain(store: &Store, wait: &DrainWait, done: &Evictions) -> String {
    let mut said = Vec::new();
    let evicted = &done.evicted;
    if !evicted.is_empty() {
        let graces: std::collections::BTreeSet<i64> = evicted
            .iter()
            .filter_map(|n| store.pods.get(n.as_str()))
            .map(|p| {
                wait.grace
                    .unwrap_or_else(|| p.spec.termination_grace_seconds())
            })
            .collect();
        let grace = match (graces.first(), graces.last()) {
            (Some(a), _) if wait.grace.is_some() => {
                format!("the {a}s grace period --grace-period asks for")
            }
            (Some(a), Some(b)) if a == b => format!("its {a}s grace period"),
            (Some(a), Some(b)) => format!("its own grace period ({a}s to {b}s)"),
            _ => "its grace period".to_string(),
        };
        let budget = if store.pdbs.is_empty() {
            "No PodDisruptionBudget stands in the way, so the Eviction API grants "
        } else {
            "The Eviction API grants "
        };
        let one = evicted.len() == 1;
        said.push(format!(
            "{budget}{}: {} marked DisruptionTarget (EvictionByEvictionAPI) and deleted with {grace}; {} no longer counts it and creates a replacement at once, which the scheduler places on another node.",
            if one { "the eviction".to_string() } else { format!("{} evictions", evicted.len()) },
            if one { "the pod is" } else { "each pod is" },
            if one { "its ReplicaSet" } else { "each pod's ReplicaSet" },
        ));
    }
    if !done.terminating.is_empty() {
        let one = done.terminating.len() == 1;
        let it = if one { "it" } else { "them" };
        said.push(format!(
            "{} {} being deleted already, so the Eviction API lets {it} go without asking a budget, and nothing changes for {it}: kubectl waits for {it} too.",
            done.terminating.join(", "),
            if one { "was" } else { "were" },
        ));
        // The API server lets a delete shorten a grace period already running (`BeforeDelete`);
        // this model keeps the one the pod has, and says so.
        let longer: Vec<&str> = done
            .terminating
            .iter()
            .filter(|n| {
                let running = store
                    .pods
                    .get(n.as_str())
                    .and_then(|p| p.metadata.deletion_grace_period_seconds);
                wait.grace
                    .zip(running)
                    .is_some_and(|(asked, has)| asked < has)
            })
            .map(String::as_str)
            .collect();
        if !longer.is_empty() {
            said.push(format!(
                "The API server would shorten the grace period {} already {} to the {}s --grace-period asks for; RolloutScope keeps the longer one.",
                longer.join(", "),
                if longer.len() == 1 { "has" } else { "have" },
                wait.grace.unwrap_or_default()
            ));
        }
    }
    if done.refused > 0 {
        let causes: Vec<&str> = done.causes.iter().map(String::as_str).collect();
        said.push(format!(
            "It refuses {} with 429 TooManyRequests ({}): the pod{} stay{} running, and kubectl tries again in {}s.",
            if done.refused == 1 { "one".to_string() } else { done.refused.to_string() },
            causes.join("; "),
            super::trace::plural(done.refused as i64),
            if done.refused == 1 { "s" } else { "" },
            RETRY_MS / 1000
        ));
    }
    if wait.is_done() {
        said.push(format!("kubectl prints {}.", wait.ending(store)));
    } else if !wait.pods.is_empty() {
        said.push(format!(
            "kubectl now waits: it prints pod/NAME evicted as each pod is gone, and node/{} drained after the last.",
            wait.node
        ));
    }
    said.join(" ")
}

/// One round of a drain's evictions: kubectl's lines, why, and the drain as it goes on.
fn evict_round(
    store: &Store,
    pods: &[&Pod],
    mut wait: DrainWait,
    now: Time,
    out: &mut Outcome,
) -> String {
    let done = evict_pods(store, pods, &mut wait, now, out);
    let why = explain(store, &wait, &done);
    out.change(Change::WatchDrain(Box::new(wait)));
    format!("{} {why}", sentence(&done.lines))
}

/// Drain `id` tries again the evictions a budget refused (`evictPods`' retry after
/// `EvictErrorRetryDelay`).
pub fn retry(store: &Store, id: u64, now: Time) -> Outcome {
    let mut out = Outcome::default();
    let Some(wait) = store.drains.iter().find(|d| d.id == id) else {
        return out;
    };
    let node = wait.node.as_str();
    if wait.pending.is_empty() {
        return out;
    }
    let next = DrainWait {
        pending: Vec::new(),
        ..wait.clone()
    };
    // A pod that went meanwhile (NotFound) needs no eviction: kubectl counts it as done.
    let pods: Vec<&Pod> = wait
        .pending
        .iter()
        .filter_map(|n| store.pods.get(n.as_str()))
        .map(|p| &**p)
        .collect();
    if pods.is_empty() {
        let ended = next
            .is_done()
            .then(|| format!(" kubectl prints {}.", next.ending(store)));
        out.say(format!(
            "kubectl drain {node} would try its refused evictions again, but the pods are gone (NotFound), which it counts as done.{}",
            ended.unwrap_or_default()
        ));
        out.change(Change::WatchDrain(Box::new(next)));
        return out;
    }
    let said = evict_round(store, &pods, next, now, &mut out);
    out.say(format!("kubectl drain {node} tries again: {said}"));
    out
}

/// The pod filters of kubectl's drain helper (`makeFilters`) that can turn a pod down here: a
/// pod that uses an `emptyDir` volume and has not finished would lose its data, so without
/// `--delete-emptydir-data` the whole drain stops before any eviction (`localStorageFilter`).
fn has_local_storage(pod: &Pod) -> bool {
    pod.spec
        .extra
        .get("volumes")
        .and_then(Value::as_array)
        .is_some_and(|vs| vs.iter().any(|v| v.get("emptyDir").is_some()))
}

/// `kubectl drain NODE`: `RunDrain`, which cordons the node (`RunCordonOrUncordon`), lists the
/// pods bound to it (`GetPodsForDeletion`), and evicts each (`evictPods`), then waits.
pub fn drain(
    store: &Store,
    node: &str,
    flags: &DrainFlags,
    now: Time,
    out: &mut Outcome,
) -> Result<(), CommandError> {
    // A client dry run prints what kubectl would do, from the objects as they are, and
    // writes nothing (the printer adds ` (dry run)` to each line).
    let (cordon, _) = super::commands::cordon(store, node, true, now, flags.dry_run, out)?;
    let pods: Vec<&Pod> = pods_on(store, node).collect();
    let finished = |p: &Pod| matches!(p.status.phase, PodPhase::Succeeded | PodPhase::Failed);
    let local: Vec<String> = pods
        .iter()
        .filter(|p| !flags.delete_emptydir_data && has_local_storage(p) && !finished(p))
        .map(|p| format!("default/{}", p.metadata.name))
        .collect();
    if !local.is_empty() {
        let err = format!(
            "cannot delete Pods with local storage (use --delete-emptydir-data to override): {}",
            local.join(", ")
        );
        out.say(format!(
            "{cordon}; {}. {} no pod was evicted: a pod's emptyDir volume lives on the node and goes with the pod, so kubectl asks for --delete-emptydir-data before it evicts one.",
            unable_to_drain(node, &err, std::slice::from_ref(&err)),
            if flags.dry_run {
                "It was a dry run, so the node is not cordoned either, and"
            } else {
                "The node stays cordoned, and"
            }
        ));
        return Ok(());
    }
    if flags.dry_run {
        let lines: Vec<String> = pods
            .iter()
            .map(|p| format!("evicting pod default/{} (dry run)", p.metadata.name))
            .chain([format!("node/{node} drained (dry run)")])
            .collect();
        out.say(format!(
            "{cordon}; {}. A client dry run asks the API server nothing: the node stays as it is and no pod is evicted, so a PodDisruptionBudget is not consulted either.",
            lines.join(", ")
        ));
        return Ok(());
    }
    if pods.is_empty() {
        out.say(format!(
            "{cordon}; node/{node} drained: there is no pod on it to evict, so the drain is done at once."
        ));
        return Ok(());
    }
    let wait = DrainWait {
        id: store.drains_started,
        node: node.to_string(),
        since: now,
        pods: Vec::new(),
        pending: Vec::new(),
        failed: Vec::new(),
        grace: flags.grace_period.filter(|g| *g >= 0),
    };
    let said = evict_round(store, &pods, wait, now, out);
    out.say(format!("{cordon}; {said}"));
    Ok(())
}

/// What the drains at work print now that a step has changed the pods: for each drain, the
/// `pod/NAME evicted` lines of its pods that are gone, and `node/NAME drained` when nothing is
/// left to wait for. Returns the sentence to add to the step's narration, and the drains it
/// changed (one that is over is written as done, and so leaves the store).
pub fn progress(store: &Store, now: Time) -> Option<(String, Vec<DrainWait>)> {
    let mut said = Vec::new();
    let mut changed = Vec::new();
    for d in store.drains.iter() {
        let (gone, left): (Vec<_>, Vec<_>) = d.pods.iter().cloned().partition(|(name, uid)| {
            store
                .pods
                .get(name.as_str())
                .is_none_or(|p| p.metadata.uid != *uid)
        });
        if gone.is_empty() {
            continue;
        }
        let evicted: Vec<String> = gone
            .iter()
            .map(|(name, _)| format!("pod/{name} evicted"))
            .collect();
        let next = DrainWait {
            pods: left,
            ..d.clone()
        };
        if next.is_done() {
            said.push(format!(
                "kubectl drain {}, which looks every second, prints {} and {}: the drain is done, {} after it began.",
                d.node,
                evicted.join(", "),
                next.ending(store),
                super::kubelet::go_duration(now.millis_since(d.since)),
            ));
        } else {
            let more = next.pods.len() + next.pending.len();
            said.push(format!(
                "kubectl drain {}, which looks every second, prints {} and waits for {} more pod{}.",
                d.node,
                evicted.join(", "),
                more,
                super::trace::plural(more as i64)
            ));
        }
        changed.push(next);
    }
    (!said.is_empty()).then(|| (said.join(" "), changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flags are read as kubectl's pflag reads them: `--grace-period` with `=` or a space and
    /// Go's base-0 integers, `--dry-run`'s values as `GetDryRunStrategy` takes them.
    #[test]
    fn flags_are_read_as_kubectl_reads_them() {
        let grace = |text: &str| parse(text).map(|(_, f)| f.grace_period);
        assert_eq!(grace("a --grace-period=10"), Ok(Some(10)));
        assert_eq!(grace("a --grace-period 10"), Ok(Some(10)));
        assert_eq!(grace("a --grace-period=010"), Ok(Some(8)));
        assert_eq!(grace("a --grace-period=0x10"), Ok(Some(16)));
        assert_eq!(grace("a --grace-period=1_000"), Ok(Some(1000)));
        assert_eq!(grace("a --grace-period=-1"), Ok(Some(-1)));
        assert_eq!(
            grace("a --grace-period=99999999999999999999"),
            Err("invalid argument \"99999999999999999999\" for \"--grace-period\" flag: strconv.ParseInt: parsing \"99999999999999999999\": value out of range".into())
        );
        for bad in ["08", "", "++5", "1__0", "_1", "1_", "5s"] {
            assert!(
                grace(&format!("a --grace-period={bad}"))
                    .is_err_and(|e| e.ends_with("invalid syntax")),
                "{bad:?}"
            );
        }
        let dry = |text: &str| parse(text).map(|(_, f)| f.dry_run);
        assert_eq!(dry("a --dry-run"), Ok(true));
        assert_eq!(dry("a --dry-run=client"), Ok(true));
        assert_eq!(dry("a --dry-run=none"), Ok(false));
        assert!(dry("a --dry-run=server").is_err_and(|e| e.contains("not model")));
        assert_eq!(
            dry("a --dry-run=maybe"),
            Err(
                "Invalid dry-run value (maybe). Must be \"none\", \"server\", or \"client\"."
                    .into()
            )
        );
    }
}
