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
use super::label_query::LabelQuery;
use super::store::Store;
use super::validation::go_quote;
use serde_json::Value;

/// The flags of `kubectl drain` that RolloutScope takes. `--ignore-daemonsets` and `--force`
/// change nothing here, since the namespace has no DaemonSet and every pod has a controller,
/// but a command line copied from a runbook carries them, so they are accepted and echoed.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DrainFlags {
    pub ignore_daemonsets: bool,
    pub delete_emptydir_data: bool,
    pub force: bool,
    /// `--dry-run=client`: print what would be done, change nothing.
    pub dry_run: bool,
    /// `--grace-period=N`: the seconds each evicted pod gets to shut down; negative (kubectl's
    /// default, -1) leaves each pod its own.
    pub grace_period: Option<i64>,
    /// `--timeout=DURATION` in milliseconds: how long kubectl waits before it gives up (`None`
    /// for `0`, kubectl's default, which waits for ever). A negative one has run out at once.
    pub timeout_ms: Option<i64>,
    /// `--pod-selector=QUERY`: only the pods on the node whose labels match are drained.
    pub pod_selector: Option<LabelQuery>,
    /// `--disable-eviction`: delete each pod rather than evict it, which no
    /// PodDisruptionBudget is asked about.
    pub disable_eviction: bool,
    /// `--skip-wait-for-delete-timeout=N`: a pod whose deletion timestamp is more than N
    /// seconds past is neither evicted nor waited for (0, the default, and negatives: never).
    pub skip_wait_for_delete_timeout: i64,
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
            (self.disable_eviction, " --disable-eviction"),
        ] {
            if on {
                s.push_str(flag);
            }
        }
        if let Some(g) = self.grace_period {
            s.push_str(&format!(" --grace-period={g}"));
        }
        if let Some(t) = self.timeout_ms {
            s.push_str(&format!(" --timeout={}", go_duration_signed(t)));
        }
        if let Some(q) = &self.pod_selector {
            if q.text.contains(char::is_whitespace) {
                s.push_str(&format!(" --pod-selector='{}'", q.text));
            } else {
                s.push_str(&format!(" --pod-selector={}", q.text));
            }
        }
        if self.skip_wait_for_delete_timeout != 0 {
            s.push_str(&format!(
                " --skip-wait-for-delete-timeout={}",
                self.skip_wait_for_delete_timeout
            ));
        }
        s
    }

    /// The grace period the evictions or deletions ask for, when not each pod's own.
    pub fn grace(&self) -> Option<i64> {
        self.grace_period.filter(|g| *g >= 0)
    }
}

/// A Go `time.Duration` in milliseconds as `%v` prints it, negative ones with their sign.
fn go_duration_signed(ms: i64) -> String {
    let text = super::kubelet::go_duration(ms.unsigned_abs());
    if ms < 0 { format!("-{text}") } else { text }
}

/// Reads the argument of a `drain` action or of the app's drain button: a node name, then any
/// of the flags above (`node-1 --ignore-daemonsets --delete-emptydir-data`).
///
/// # Errors
/// The reason in words when there is no node name, or a flag this model does not take.
pub fn parse(text: &str) -> Result<(String, DrainFlags), String> {
    let words = shell_words(text)?;
    let mut words = words.iter().map(String::as_str);
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
            ("--ignore-daemonsets", value) => flags.ignore_daemonsets = go_bool_flag(flag, value)?,
            ("--delete-emptydir-data", value) => {
                flags.delete_emptydir_data = go_bool_flag(flag, value)?;
            }
            // The older spelling, deprecated since v1.20, is gone from kubectl (v1.31 and
            // later refuse it), though old runbooks still carry it.
            ("--delete-local-data", _) => {
                return Err("unknown flag: --delete-local-data (kubectl no longer takes it: use --delete-emptydir-data)".into());
            }
            ("--force", value) => flags.force = go_bool_flag(flag, value)?,
            ("--disable-eviction", value) => flags.disable_eviction = go_bool_flag(flag, value)?,
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
            // pflag takes a value after `=` or as the next word; integers as
            // `strconv.ParseInt(s, 0, 64)` reads them (so `010` is octal and `0x10`
            // hexadecimal), durations as `time.ParseDuration`.
            ("--grace-period", value) => {
                let (seconds, _) = flag_value(flag, value, &mut words, go_int_flag)?;
                // Zero asks the API server to delete each pod object at once, before its
                // kubelet has stopped anything, which this model does not do.
                if seconds == 0 {
                    return Err("--grace-period=0 deletes each pod object at once, before its kubelet stops it, which RolloutScope does not model: give 1 or more (or leave it out for each pod's own)".into());
                }
                flags.grace_period = Some(seconds);
            }
            ("--timeout", value) => {
                let (nanos, text) = flag_value(flag, value, &mut words, go_parse_duration)?;
                if nanos % 1_000_000 != 0 {
                    return Err(format!(
                        "--timeout={text} is finer than the millisecond RolloutScope keeps time in"
                    ));
                }
                // Whole milliseconds of a Go duration always fit.
                let ms = i64::try_from(nanos / 1_000_000).unwrap_or(i64::MAX);
                flags.timeout_ms = (ms != 0).then_some(ms);
            }
            ("--skip-wait-for-delete-timeout", value) => {
                (flags.skip_wait_for_delete_timeout, _) =
                    flag_value(flag, value, &mut words, go_int_flag)?;
            }
            ("--pod-selector", value) => {
                // `Complete` says only this, whatever is wrong with the selector.
                let text = next_value(flag, value, &mut words)?;
                let query = LabelQuery::parse(text).ok_or(
                    "--pod-selector=<pod_selector> must be a valid label selector".to_string(),
                )?;
                flags.pod_selector = (!text.is_empty()).then_some(query);
            }
            (other, _) if other.starts_with('-') => {
                return Err(format!(
                    "unknown flag: {w} (this model takes --ignore-daemonsets, --delete-emptydir-data, --force, --dry-run=client, --grace-period=N, --timeout=DURATION, --pod-selector=QUERY, --disable-eviction and --skip-wait-for-delete-timeout=N)"
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

/// The words of a command line as a shell splits them: at whitespace, except inside single or
/// double quotes, which are removed (`--pod-selector='app in (web)'` is one word), and a
/// backslash outside single quotes keeps the next character as it is.
fn shell_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' | '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => w.extend(chars.next()),
                        Some(other) => w.push(other),
                        None => return Err(format!("has an unterminated {c} quote")),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    words.extend(word);
    Ok(words)
}

/// A flag's text, after `=` or as the next word; pflag's error when there is none.
fn next_value<'w>(
    flag: &str,
    inline: Option<&'w str>,
    words: &mut impl Iterator<Item = &'w str>,
) -> Result<&'w str, String> {
    inline
        .or_else(|| words.next())
        .ok_or_else(|| format!("flag needs an argument: {flag}"))
}

/// A flag's value, after `=` or as the next word, read by `read`; its error is pflag's.
fn flag_value<'w, T, E: std::fmt::Display>(
    flag: &str,
    inline: Option<&'w str>,
    words: &mut impl Iterator<Item = &'w str>,
    read: impl Fn(&str) -> Result<T, E>,
) -> Result<(T, &'w str), String> {
    let value = next_value(flag, inline, words)?;
    read(value).map(|v| (v, value)).map_err(|why| {
        format!(
            "invalid argument {} for {flag:?} flag: {why}",
            go_quote(value)
        )
    })
}

/// A `bool` flag as pflag reads it: bare is true, or `=` and a value `strconv.ParseBool` takes.
fn go_bool_flag(flag: &str, value: Option<&str>) -> Result<bool, String> {
    match value {
        None => Ok(true),
        Some("1" | "t" | "T" | "TRUE" | "true" | "True") => Ok(true),
        Some("0" | "f" | "F" | "FALSE" | "false" | "False") => Ok(false),
        Some(v) => Err(format!(
            "invalid argument {} for {flag:?} flag: strconv.ParseBool: parsing {}: invalid syntax",
            go_quote(v),
            go_quote(v)
        )),
    }
}

/// An `int` flag's value as pflag reads it, with `strconv.ParseInt`'s error.
fn go_int_flag(s: &str) -> Result<i64, String> {
    go_parse_int(s).map_err(|why| format!("strconv.ParseInt: parsing {}: {why}", go_quote(s)))
}

/// The `quote` of Go's `time` package: printable ASCII as it is (with `"` and `\\` escaped),
/// anything else as `\\x` bytes.
fn time_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
    }
    out.push('"');
    out
}

/// `time.ParseDuration`: an optional sign, then numbers (with an optional fraction) each with a
/// unit (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`), or a bare `0`; in nanoseconds. The errors are
/// Go's.
fn go_parse_duration(orig: &str) -> Result<i128, String> {
    let invalid = || format!("time: invalid duration {}", time_quote(orig));
    let (negative, mut s) = match orig.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, orig.strip_prefix('+').unwrap_or(orig)),
    };
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    const MAX: i128 = 1 << 63;
    let mut total: i128 = 0;
    while !s.is_empty() {
        if !s.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return Err(invalid());
        }
        let int_len = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let (int_part, rest) = s.split_at(int_len);
        let mut whole: i128 = 0;
        for d in int_part.bytes() {
            whole = whole * 10 + i128::from(d - b'0');
            if whole > MAX {
                return Err(invalid());
            }
        }
        s = rest;
        let mut fraction = "";
        if let Some(rest) = s.strip_prefix('.') {
            let len = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            fraction = &rest[..len];
            s = &rest[len..];
            if int_part.is_empty() && fraction.is_empty() {
                return Err(invalid());
            }
        } else if int_part.is_empty() {
            return Err(invalid());
        }
        let unit_len = s
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if unit_len == 0 {
            return Err(format!(
                "time: missing unit in duration {}",
                time_quote(orig)
            ));
        }
        let (unit, rest) = s.split_at(unit_len);
        s = rest;
        let scale: i128 = match unit {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    time_quote(unit),
                    time_quote(orig)
                ));
            }
        };
        // The fraction as `leadingFraction` reads it (digits past 63 bits are dropped) and Go
        // adds it: `float64(f) * (float64(unit) / scale)`, truncated.
        let mut f: u64 = 0;
        let mut f_scale: f64 = 1.0;
        let mut overflow = false;
        for d in fraction.bytes() {
            if overflow || f > (i64::MAX as u64) / 10 {
                overflow = true;
                continue;
            }
            let y = f * 10 + u64::from(d - b'0');
            if y > 1 << 63 {
                overflow = true;
                continue;
            }
            f = y;
            f_scale *= 10.0;
        }
        let mut v = whole * scale;
        if v > MAX {
            return Err(invalid());
        }
        if f > 0 {
            v += (f as f64 * (scale as f64 / f_scale)) as i128;
            if v > MAX {
                return Err(invalid());
            }
        }
        total += v;
        if total > MAX {
            return Err(invalid());
        }
    }
    if negative {
        return Ok(-total);
    }
    if total > MAX - 1 {
        return Err(invalid());
    }
    Ok(total)
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
    /// The command's flags: the grace period it asks for, its timeout, its pod selector,
    /// whether it deletes rather than evicts, and when it stops waiting for a pod.
    pub flags: DrainFlags,
}

impl DrainWait {
    /// Whether kubectl has nothing left to try or wait for.
    pub fn is_done(&self) -> bool {
        self.pods.is_empty() && self.pending.is_empty()
    }

    /// Whether `--timeout` has run out at `now` (`ctx.Done()`), counted from when the
    /// evictions began.
    fn timed_out(&self, now: Time) -> bool {
        self.flags.timeout_ms.is_some_and(|t| {
            i128::from(now.as_millis()) >= i128::from(self.since.as_millis()) + i128::from(t)
        })
    }

    /// When `--timeout` ends this drain, if it does: its waits end at the timeout itself, and
    /// its refused evictions at their first 5 s retry from then on.
    pub fn gives_up_at(&self) -> Option<Time> {
        let t = u64::try_from(self.flags.timeout_ms?).unwrap_or(0);
        let waits = (!self.pods.is_empty()).then_some(t);
        let retries = (!self.pending.is_empty())
            .then(|| t.div_ceil(RETRY_MS).max(1).saturating_mul(RETRY_MS));
        let last = waits.into_iter().chain(retries).max()?;
        Some(Time::from_millis(
            self.since.as_millis().saturating_add(last),
        ))
    }

    /// The end of an eviction's or a wait's error when `--timeout` ran out.
    fn timeout_reached(&self) -> String {
        format!(
            "global timeout reached: {}",
            go_duration_signed(self.flags.timeout_ms.unwrap_or_default())
        )
    }

    /// Gives up on evicting pod `name`, as `--timeout` ran out: kubectl's error for it.
    fn give_up_evicting(&mut self, name: &str) {
        let err = format!(
            "error when evicting pods/{} -n \"default\": {}",
            go_quote(name),
            self.timeout_reached()
        );
        self.failed.push(err);
    }

    /// What kubectl prints of a pod that is gone: `pod/NAME evicted`, or `deleted` when it
    /// deleted the pods (`onPodDeletionOrEvictionFinished`).
    fn gone_verb(&self) -> &'static str {
        if self.flags.disable_eviction {
            "deleted"
        } else {
            "evicted"
        }
    }

    /// [`Self::ending`] with how long the drain took, for the step that ends it.
    fn ended(&self, store: &Store, now: Time) -> String {
        let took = super::kubelet::go_duration(now.millis_since(self.since));
        if self.failed.is_empty() {
            format!(
                "{}: the drain is done, {took} after it began",
                self.ending(store, now)
            )
        } else {
            format!(
                "{}. The drain gave up {took} after it began, and the node stays cordoned",
                self.ending(store, now)
            )
        }
    }

    /// What kubectl prints when the drain is over: `node/NAME drained`, or, when evictions
    /// failed, the failure as `RunDrain` and `CheckErr` print it: the pods still to drain
    /// (when any are), then [`unable_to_drain`].
    fn ending(&self, store: &Store, now: Time) -> String {
        if self.failed.is_empty() {
            return format!("node/{} drained", self.node);
        }
        let err = aggregate(&self.failed);
        let left: Vec<String> = pods_for_deletion(store, &self.node, &self.flags, now)
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
        // `deletePods` fails with one plain error, which `CheckErr` prints with its prefix;
        // `evictPods` fails with an aggregate, whose lines it prints bare.
        let last = if self.flags.disable_eviction {
            self.failed.iter().map(|e| format!("error: {e}")).collect()
        } else {
            self.failed.clone()
        };
        format!("{pending}{}", unable_to_drain(&self.node, &err, &last))
    }
}

/// How `RunDrain` ends for a node it could not drain: the error on stderr, the node left to
/// drain, and `CheckErr`'s print of `errors` (lines of an aggregate carry no `error: `
/// prefix).
fn unable_to_drain(node: &str, err: &str, errors: &[String]) -> String {
    format!(
        "error: unable to drain node {node:?} due to error: {err}, continuing command... There are pending nodes to be drained: {node}. {}",
        errors.join(" ")
    )
}

/// `GetPodsForDeletion`: the pods bound to `node` (by `spec.nodeName`, those being deleted
/// included) that `--pod-selector` selects, less those `--skip-wait-for-delete-timeout` skips
/// (`skipDeletedFilter`), by name.
fn pods_for_deletion<'s>(
    store: &'s Store,
    node: &'s str,
    flags: &'s DrainFlags,
    now: Time,
) -> impl Iterator<Item = &'s Pod> {
    store
        .pods
        .values()
        .filter(move |p| {
            p.node_name == node
                && flags
                    .pod_selector
                    .as_ref()
                    .is_none_or(|q| q.matches(&p.metadata.labels))
                && !skips(p, flags.skip_wait_for_delete_timeout, now)
        })
        .map(|p| &**p)
}

/// `shouldSkipPod`: whether the pod's deletion timestamp is more than `after` whole seconds
/// past (never when `after` is 0 or less). The timestamp is when the grace period ends, so
/// only a pod that outlives it, on a node whose kubelet is gone, is ever skipped.
fn skips(pod: &Pod, after: i64, now: Time) -> bool {
    after > 0
        && pod.metadata.deletion_timestamp.is_some_and(|t| {
            now >= t && i64::try_from(now.millis_since(t) / 1000).unwrap_or(i64::MAX) > after
        })
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
    /// The budgets that refused, each once.
    refused_by: std::collections::BTreeSet<String>,
    /// Pods kubectl gave up on without asking, as `--timeout` had run out.
    timed_out: Vec<String>,
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
        // kubectl looks at its timeout after printing the line and before asking.
        if wait.timed_out(now) {
            wait.give_up_evicting(name);
            report.timed_out.push(name.clone());
            continue;
        }
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
                    wait.flags.grace(),
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
                report.refused_by.insert(budget);
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

/// `deletePods` (`--disable-eviction`): each pod is deleted as `kubectl delete pod` deletes it,
/// with the grace period asked for or its own, and no line is printed until it is gone. No
/// budget is asked and no `DisruptionTarget` condition is added.
fn delete_pods(pods: &[&Pod], wait: &mut DrainWait, out: &mut Outcome) -> Evictions {
    let mut report = Evictions::default();
    for p in pods {
        let name = &p.metadata.name;
        if p.metadata.deletion_timestamp.is_some() {
            report.terminating.push(name.clone());
        } else {
            out.change(Change::DeletePod {
                name: name.clone(),
                grace_seconds: wait
                    .flags
                    .grace()
                    .unwrap_or_else(|| p.spec.termination_grace_seconds()),
            });
            report.evicted.push(name.clone());
        }
        wait.pods.push((name.clone(), p.metadata.uid.clone()));
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
fn explain(store: &Store, wait: &DrainWait, done: &Evictions, now: Time) -> String {
    let mut said = Vec::new();
    let evicted = &done.evicted;
    let deleting = wait.flags.disable_eviction;
    if !evicted.is_empty() {
        let graces: std::collections::BTreeSet<i64> = evicted
            .iter()
            .filter_map(|n| store.pods.get(n.as_str()))
            .map(|p| {
                wait.flags
                    .grace()
                    .unwrap_or_else(|| p.spec.termination_grace_seconds())
            })
            .collect();
        let grace = match (graces.first(), graces.last()) {
            (Some(a), _) if wait.flags.grace().is_some() => {
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
        let owner = if one {
            "its ReplicaSet"
        } else {
            "each pod's ReplicaSet"
        };
        if deleting {
            said.push(format!(
                "With --disable-eviction kubectl deletes {}, as kubectl delete pod does, with {grace}: no PodDisruptionBudget is asked and no DisruptionTarget condition is added, so nothing holds the pods back. {} no longer counts {} and creates a replacement at once, which the scheduler places on another node.",
                if one { "the pod".to_string() } else { format!("the {} pods", evicted.len()) },
                if one { "Its ReplicaSet" } else { "Each pod's ReplicaSet" },
                if one { "it" } else { "its pod" },
            ));
        } else {
            said.push(format!(
                "{budget}{}: {} marked DisruptionTarget (EvictionByEvictionAPI) and deleted with {grace}; {owner} no longer counts it and creates a replacement at once, which the scheduler places on another node.",
                if one { "the eviction".to_string() } else { format!("{} evictions", evicted.len()) },
                if one { "the pod is" } else { "each pod is" },
            ));
        }
    }
    if !done.terminating.is_empty() {
        let one = done.terminating.len() == 1;
        let it = if one { "it" } else { "them" };
        let how = if deleting {
            format!("so deleting {it} again")
        } else {
            format!("so the Eviction API lets {it} go without asking a budget, and")
        };
        said.push(format!(
            "{} {} being deleted already, {how} changes nothing for {it}: kubectl waits for {it} too.",
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
                wait.flags
                    .grace()
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
                wait.flags.grace().unwrap_or_default()
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
        said.extend(
            done.refused_by
                .iter()
                .filter_map(|b| store.pdbs.get(b.as_str()))
                .map(when_allowed),
        );
    }
    if !done.timed_out.is_empty() {
        let one = done.timed_out.len() == 1;
        said.push(format!(
            "The --timeout of {} has run out ({} after the drain began), so kubectl gives up on {} without asking the Eviction API; the error{} print{} when the drain ends.",
            go_duration_signed(wait.flags.timeout_ms.unwrap_or_default()),
            super::kubelet::go_duration(now.millis_since(wait.since)),
            done.timed_out.join(", "),
            if one { "" } else { "s" },
            if one { "s" } else { "" },
        ));
    }
    if wait.is_done() {
        said.push(format!("kubectl prints {}.", wait.ending(store, now)));
    } else if !wait.pods.is_empty() {
        said.push(format!(
            "kubectl now waits: it prints pod/NAME {} as each pod is gone, and node/{} drained after the last{}.",
            wait.gone_verb(),
            wait.node,
            waiting_limits(wait)
        ));
    }
    said.join(" ")
}

/// What cuts a drain's wait short, as a clause: its `--timeout` and its
/// `--skip-wait-for-delete-timeout`.
fn waiting_limits(wait: &DrainWait) -> String {
    let mut limits = Vec::new();
    if let Some(t) = wait.flags.timeout_ms {
        limits.push(format!(
            "it gives up on the pods still there when its --timeout of {} runs out",
            go_duration_signed(t)
        ));
    }
    let n = wait.flags.skip_wait_for_delete_timeout;
    if n > 0 {
        limits.push(format!(
            "it stops waiting for a pod whose deletion timestamp (the end of its grace period) is more than {n}s past"
        ));
    }
    if limits.is_empty() {
        String::new()
    } else {
        format!("; {}", limits.join(", and "))
    }
}

/// When budget `b`, which refused an eviction, will allow one: once more of its pods are
/// healthy, or, when it needs as many healthy pods as it expects (`minAvailable` equal to the
/// replicas, `maxUnavailable: 0`, `100%`), never at this size, so that a drain waits for ever.
fn when_allowed(b: &crate::sim::api::PodDisruptionBudget) -> String {
    let s = &b.status;
    let name = &b.metadata.name;
    if blocks_for_good(s) {
        format!(
            "Budget {name} needs {} healthy pods of the {} it expects, so it allows no disruption until the Deployment has more replicas or the budget is relaxed: this drain would retry every {}s for ever (scale up first, change the budget, or give kubectl drain a --timeout).",
            s.desired_healthy,
            s.expected_pods,
            RETRY_MS / 1000
        )
    } else {
        // The status's healthy count may be the controller's last, from before this round's
        // evictions, so no number is given here.
        format!(
            "Budget {name} allows another once more than {} of its pods are healthy again (a replacement turning Ready).",
            s.desired_healthy
        )
    }
}

/// Whether a budget's status allows no disruption however long a drain waits: it needs every
/// pod it expects (or more) to be healthy.
pub fn blocks_for_good(s: &crate::sim::api::PodDisruptionBudgetStatus) -> bool {
    s.expected_pods > 0 && s.desired_healthy >= s.expected_pods
}

/// One round of a drain's evictions: kubectl's lines, why, and the drain as it goes on.
fn evict_round(
    store: &Store,
    pods: &[&Pod],
    mut wait: DrainWait,
    now: Time,
    out: &mut Outcome,
) -> String {
    let done = if wait.flags.disable_eviction {
        delete_pods(pods, &mut wait, out)
    } else {
        evict_pods(store, pods, &mut wait, now, out)
    };
    let why = explain(store, &wait, &done, now);
    out.change(Change::WatchDrain(Box::new(wait)));
    if done.lines.is_empty() {
        why
    } else {
        format!("{} {why}", sentence(&done.lines))
    }
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
    let mut next = DrainWait {
        pending: Vec::new(),
        ..wait.clone()
    };
    // Each retry prints its line, then looks at the timeout before it asks again, whether or
    // not the pod is still there.
    if wait.timed_out(now) {
        let lines: Vec<String> = wait
            .pending
            .iter()
            .map(|n| format!("evicting pod default/{n}"))
            .collect();
        for n in &wait.pending {
            next.give_up_evicting(n);
        }
        let done = Evictions {
            timed_out: wait.pending.clone(),
            ..Evictions::default()
        };
        out.say(format!(
            "kubectl drain {node} tries again: {} {}",
            sentence(&lines),
            explain(store, &next, &done, now)
        ));
        out.change(Change::WatchDrain(Box::new(next)));
        return out;
    }
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
            .then(|| format!(" kubectl prints {}.", next.ending(store, now)));
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
    let pods: Vec<&Pod> = pods_for_deletion(store, node, flags, now).collect();
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
        let why = if flags.pod_selector.is_some() || flags.skip_wait_for_delete_timeout > 0 {
            "no pod on it is left to evict once --pod-selector and --skip-wait-for-delete-timeout have picked"
        } else {
            "there is no pod on it to evict"
        };
        out.say(format!(
            "{cordon}; node/{node} drained: {why}, so the drain is done at once."
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
        flags: flags.clone(),
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
            .map(|(name, _)| format!("pod/{name} {}", d.gone_verb()))
            .collect();
        let next = DrainWait {
            pods: left,
            ..d.clone()
        };
        if next.is_done() {
            said.push(format!(
                "kubectl drain {}, which looks every second, prints {} and {}.",
                d.node,
                evicted.join(", "),
                next.ended(store, now),
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

/// Drain `id` looks again at the pods it waits for, as `waitForDelete` does every second: it
/// stops waiting for a pod that `--skip-wait-for-delete-timeout` skips, and gives up on those
/// left when `--timeout` has run out. Nothing to say is no step.
pub fn poll(store: &Store, id: u64, now: Time) -> Outcome {
    let mut out = Outcome::default();
    let Some(wait) = store.drains.iter().find(|d| d.id == id) else {
        return out;
    };
    let mut next = wait.clone();
    let mut said = Vec::new();
    let after = wait.flags.skip_wait_for_delete_timeout;
    let mut skipped = Vec::new();
    next.pods.retain(|(name, uid)| {
        let skip = store
            .pods
            .get(name.as_str())
            .is_some_and(|p| p.metadata.uid == *uid && skips(p, after, now));
        if skip {
            skipped.push(format!(
                "pod {} has DeletionTimestamp older than {after} seconds, skipping",
                go_quote(name)
            ));
        }
        !skip
    });
    if !skipped.is_empty() {
        said.push(format!(
            "kubectl drain {}, which looks every second, prints {} The pod{} outlived {} grace period by more than the {after}s --skip-wait-for-delete-timeout allows (its kubelet is not there to finish it), so kubectl stops waiting for {} and prints no {} line for {}.",
            wait.node,
            sentence(&skipped),
            if skipped.len() == 1 { "" } else { "s" },
            if skipped.len() == 1 { "its" } else { "their" },
            if skipped.len() == 1 { "it" } else { "them" },
            wait.gone_verb(),
            if skipped.len() == 1 { "it" } else { "them" },
        ));
    }
    if !next.pods.is_empty() && wait.timed_out(now) {
        let names: Vec<&str> = next.pods.iter().map(|(n, _)| n.as_str()).collect();
        // Both waits are `PollUntilContextTimeout` (since v1.32), which ends when its context
        // does, with the context's error.
        if wait.flags.disable_eviction {
            next.failed.push(DEADLINE_EXCEEDED.to_string());
        } else {
            for n in &names {
                next.failed.push(format!(
                    "error when waiting for pod {} in namespace \"default\" to terminate: {DEADLINE_EXCEEDED}",
                    go_quote(n),
                ));
            }
        }
        said.push(format!(
            "kubectl drain {}'s --timeout of {} has run out with {} still terminating, so it stops waiting for {}.",
            wait.node,
            go_duration_signed(wait.flags.timeout_ms.unwrap_or_default()),
            names.join(", "),
            if names.len() == 1 { "it" } else { "them" },
        ));
        next.pods.clear();
    }
    if said.is_empty() {
        return out;
    }
    if next.is_done() {
        said.push(format!("kubectl prints {}.", next.ended(store, now)));
    }
    out.say(said.join(" "));
    out.change(Change::WatchDrain(Box::new(next)));
    out
}

/// `context.DeadlineExceeded`'s text.
const DEADLINE_EXCEEDED: &str = "context deadline exceeded";

/// When drain `wait` must next look at its pods ([`poll`]): the first of its one-second looks
/// at which a pod it waits for is skipped, or the moment its `--timeout` runs out, which ends
/// the wait's context at once. `None` when neither can happen.
pub fn next_poll(store: &Store, wait: &DrainWait, now: Time) -> Option<Time> {
    if wait.pods.is_empty() {
        return None;
    }
    let since = wait.since.as_millis();
    // The evictions and the waits began on the drain's whole seconds, so every look is too.
    let look =
        |t: u64| since.saturating_add(t.saturating_sub(since).div_ceil(1000).saturating_mul(1000));
    let mut due = Vec::new();
    if let Some(t) = wait.flags.timeout_ms {
        due.push(since.saturating_add(u64::try_from(t).unwrap_or(0)));
    }
    let after = wait.flags.skip_wait_for_delete_timeout;
    if after > 0 {
        // A whole number of seconds past the timestamp greater than `after` first holds
        // `after + 1` seconds after it.
        let wait_ms = u64::try_from(after)
            .unwrap_or(0)
            .saturating_add(1)
            .saturating_mul(1000);
        due.extend(wait.pods.iter().filter_map(|(name, uid)| {
            let p = store.pods.get(name.as_str())?;
            let t = p.metadata.deletion_timestamp?;
            (p.metadata.uid == *uid).then(|| look(t.as_millis().saturating_add(wait_ms)))
        }));
    }
    due.into_iter()
        .min()
        .map(|t| Time::from_millis(t.max(now.as_millis())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flags are read as kubectl's pflag reads them: `--grace-period` with `=` or a space and
    /// Go's base-0 integers, `--timeout` as `time.ParseDuration`, a quoted `--pod-selector`
    /// as one word, `--dry-run`'s values as `GetDryRunStrategy` takes them.
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
        let timeout = |text: &str| parse(text).map(|(_, f)| f.timeout_ms);
        assert_eq!(timeout("a --timeout=1m30s"), Ok(Some(90_000)));
        assert_eq!(timeout("a --timeout 1.5s"), Ok(Some(1_500)));
        assert_eq!(timeout("a --timeout=0"), Ok(None));
        assert_eq!(timeout("a --timeout=-2s"), Ok(Some(-2_000)));
        assert_eq!(timeout("a --timeout=250000us"), Ok(Some(250)));
        assert_eq!(
            timeout("a --timeout=5d"),
            Err("invalid argument \"5d\" for \"--timeout\" flag: time: unknown unit \"d\" in duration \"5d\"".into())
        );
        assert_eq!(
            timeout("a --timeout=soon"),
            Err(
                "invalid argument \"soon\" for \"--timeout\" flag: time: invalid duration \"soon\""
                    .into()
            )
        );
        assert!(
            timeout("a --timeout=1500ns").is_err_and(|e| e.contains("finer than the millisecond"))
        );
        let skip = |text: &str| parse(text).map(|(_, f)| f.skip_wait_for_delete_timeout);
        assert_eq!(skip("a --skip-wait-for-delete-timeout=30"), Ok(30));
        assert!(
            skip("a --skip-wait-for-delete-timeout=30s")
                .is_err_and(|e| e.ends_with("invalid syntax"))
        );
        let (_, flags) =
            parse("a --pod-selector='app in (web, db)' --disable-eviction --timeout=90s")
                .unwrap_or_default();
        assert!(flags.disable_eviction);
        assert_eq!(
            flags.text(),
            " --disable-eviction --timeout=1m30s --pod-selector='app in (web, db)'"
        );
        assert!(parse("a --pod-selector='app in (web'").is_err());
        assert!(parse("a --pod-selector='app").is_err_and(|e| e.contains("unterminated")));
        assert_eq!(
            parse("a --timeout").map(|_| ()),
            Err("flag needs an argument: --timeout".into())
        );
        assert_eq!(
            timeout("a --timeout=5\u{b5}x"),
            Err("invalid argument \"5\u{b5}x\" for \"--timeout\" flag: time: unknown unit \"\\xc2\\xb5x\" in duration \"5\\xc2\\xb5x\"".into())
        );
        // Digits of a fraction past 63 bits are dropped, as Go drops them.
        assert!(
            timeout("a --timeout=0.9999999999999999999m")
                .is_err_and(|e| e.contains("finer than the millisecond"))
        );
        let force = |text: &str| parse(text).map(|(_, f)| f.force);
        assert_eq!(force("a --force"), Ok(true));
        assert_eq!(force("a --force=false"), Ok(false));
        assert_eq!(force("a --force=T"), Ok(true));
        assert_eq!(
            force("a --force=yes"),
            Err("invalid argument \"yes\" for \"--force\" flag: strconv.ParseBool: parsing \"yes\": invalid syntax".into())
        );
        assert!(
            parse("a --delete-local-data")
                .is_err_and(|e| e.starts_with("unknown flag: --delete-local-data"))
        );
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
