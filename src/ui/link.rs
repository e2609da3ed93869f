//! The link: the part of the page's URL that says what to show — a bundled scenario by name or
//! a whole scenario file carried in the URL, and the step to open at — read defensively, since
//! links come from anywhere.
//!
//! Format version 1, as a query string: `v=1`, then `scenario=<file stem>` or
//! `yaml=<base64url of the scenario file>`, `step=<n>`, and one `do=<step>.<verb>.<base64url
//! argument>` per action the person took (an applied manifest, a deleted pod, a cordoned or
//! failed node), in order. Unknown parameters are ignored so that newer links still open their
//! scenario in an older app; view options (`embed`, `from`, `to`, …) travel alongside.

use super::session::{Lock, Session, UserAction};
use crate::sim::scenario::BUNDLED;

/// The newest link format this app writes.
pub const VERSION: u32 = 1;
/// The longest scenario a link may carry, decoded (the scenario loader's own limit).
const MAX_YAML_BYTES: usize = 256 * 1024;
/// The furthest step a link may ask for.
pub const MAX_STEP: usize = 100_000;
/// The most actions a link may carry.
const MAX_ACTIONS: usize = 200;

/// Where a link's scenario comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkScenario {
    /// An index into [`BUNDLED`].
    Bundled(usize),
    /// A scenario file's text.
    Yaml(String),
}

/// What a link asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Link {
    pub scenario: Option<LinkScenario>,
    pub step: Option<usize>,
    pub actions: Vec<(usize, UserAction)>,
}

/// Reads a query string (with or without its leading `?`).
///
/// # Errors
/// Why the link cannot be followed, in a sentence fit to show; the caller shows the default.
pub fn parse_query(query: &str) -> Result<Link, String> {
    let query = query.strip_prefix('?').unwrap_or(query);
    if query.len() > MAX_YAML_BYTES * 2 {
        return Err(format!(
            "the link is {} bytes long, more than any scenario needs",
            query.len()
        ));
    }
    let mut link = Link::default();
    let mut version = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "v" => {
                version = Some(
                    value
                        .parse::<u32>()
                        .map_err(|_| "the link's version is not a number".to_string())?,
                )
            }
            "scenario" => {
                let idx = BUNDLED
                    .iter()
                    .position(|(file, _)| file.strip_suffix(".yaml") == Some(value))
                    .ok_or_else(|| {
                        format!("there is no built-in scenario called {:?}", shorten(value))
                    })?;
                link.scenario = Some(LinkScenario::Bundled(idx));
            }
            "yaml" => {
                let bytes = base64url_decode(value)
                    .ok_or("the scenario in the link is damaged (not base64url)")?;
                if bytes.len() > MAX_YAML_BYTES {
                    return Err(format!(
                        "the scenario in the link is larger than {MAX_YAML_BYTES} bytes"
                    ));
                }
                let text = String::from_utf8(bytes)
                    .map_err(|_| "the scenario in the link is not UTF-8 text".to_string())?;
                link.scenario = Some(LinkScenario::Yaml(text));
            }
            "do" => {
                if link.actions.len() >= MAX_ACTIONS {
                    return Err(format!("the link carries more than {MAX_ACTIONS} actions"));
                }
                link.actions.push(parse_action(value)?);
            }
            "step" => {
                let n: usize = value
                    .parse()
                    .map_err(|_| format!("step {:?} is not a number", shorten(value)))?;
                if n > MAX_STEP {
                    return Err(format!(
                        "step {n} is beyond the {MAX_STEP} steps a link may ask for"
                    ));
                }
                link.step = Some(n);
            }
            _ => {}
        }
    }
    match version {
        Some(v) if v > VERSION => Err(format!(
            "the link was made by a newer RolloutScope (format {v}; this one reads up to {VERSION})"
        )),
        _ => Ok(link),
    }
}

fn parse_action(value: &str) -> Result<(usize, UserAction), String> {
    let damaged = || format!("the action {:?} in the link is damaged", shorten(value));
    let mut parts = value.splitn(3, '.');
    let (Some(step), Some(verb), Some(arg)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(damaged());
    };
    let step: usize = step.parse().map_err(|_| damaged())?;
    if step > MAX_STEP {
        return Err(damaged());
    }
    let arg = base64url_decode(arg)
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(damaged)?;
    let action = UserAction::from_parts(verb, arg)
        .ok_or_else(|| format!("the link asks for an unknown action {:?}", shorten(verb)))?;
    Ok((step, action))
}

/// The query string that reproduces `session` exactly: its scenario, the person's actions and
/// the current step, followed by `view` (the view options to keep, already encoded).
pub fn session_query(session: &Session, view: &str) -> String {
    let scenario = match session.scenario_idx {
        Some(idx) => LinkScenario::Bundled(idx),
        None => LinkScenario::Yaml(session.source.clone()),
    };
    let mut q = to_query(&scenario, session.position());
    for (step, action) in &session.actions {
        q.push_str(&format!(
            "&do={step}.{}.{}",
            action.verb(),
            base64url_encode(action.arg().as_bytes())
        ));
    }
    if !view.is_empty() {
        q.push('&');
        q.push_str(view);
    }
    q
}

/// The view options of a query string (`embed`, `readonly`, `from`, `to`, `present`,
/// `notes`), kept as written so that rewriting the URL on every step does not lose them.
pub fn view_params(query: &str) -> String {
    let query = query.strip_prefix('?').unwrap_or(query);
    query
        .split('&')
        .filter(|p| {
            let key = p.split_once('=').map_or(*p, |(k, _)| k);
            matches!(
                key,
                "embed" | "readonly" | "from" | "to" | "present" | "notes"
            )
        })
        .map(|p| {
            p.chars()
                .filter(|c| c.is_ascii_alphanumeric() || "=_-.".contains(*c))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("&")
}

impl Link {
    /// Whether two links describe the same run (scenario and actions), whatever their steps.
    pub fn same_run(&self, other: &Link) -> bool {
        self.scenario == other.scenario && self.actions == other.actions
    }
}

/// The query string for a link to `scenario` at `step`.
pub fn to_query(scenario: &LinkScenario, step: usize) -> String {
    let what = match scenario {
        LinkScenario::Bundled(idx) => format!(
            "scenario={}",
            BUNDLED
                .get(*idx)
                .map_or("", |(f, _)| f.trim_end_matches(".yaml"))
        ),
        LinkScenario::Yaml(text) => format!("yaml={}", base64url_encode(text.as_bytes())),
    };
    format!("?v={VERSION}&{what}&step={step}")
}

/// How the page is shown, from the link: the full app, an embed for docs, the presenter's view
/// or the presenter's notes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ViewOptions {
    /// `embed`: the compact layout for an iframe.
    pub embed: bool,
    /// `readonly`: the manifest can be read but not edited or applied.
    pub readonly: bool,
    /// `present`: large type, chrome hidden, stage title cards.
    pub present: bool,
    /// `notes`: the speaker notes that follow a presenting window.
    pub notes: bool,
    /// `from` / `to`: a step number (`from=12`) or a stage (`from=stage3`).
    pub lock: Option<Lock>,
}

/// Reads the view options of a query string. Malformed bounds are ignored rather than
/// refused: the view still works, just without the lock.
pub fn view_options(query: &str) -> ViewOptions {
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut o = ViewOptions::default();
    let (mut from, mut to) = (None, None);
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "embed" => o.embed = true,
            "readonly" => o.readonly = true,
            "present" => o.present = true,
            "notes" => o.notes = true,
            "from" => from = parse_bound(value),
            "to" => to = parse_bound(value),
            _ => {}
        }
    }
    o.lock = match (from, to) {
        (None, None) => None,
        (Some(Bound::Stage(a)), Some(Bound::Stage(b))) => Some(Lock::Stages(a.min(b), a.max(b))),
        (Some(Bound::Stage(a)), None) => Some(Lock::Stages(a, 5)),
        (None, Some(Bound::Stage(b))) => Some(Lock::Stages(1, b)),
        (Some(Bound::Step(a)), Some(Bound::Step(b))) => Some(Lock::Steps(a.min(b), a.max(b))),
        (Some(Bound::Step(a)), None) => Some(Lock::Steps(a, MAX_STEP)),
        (None, Some(Bound::Step(b))) => Some(Lock::Steps(0, b)),
        // A stage at one end and a step at the other: keep to the stages.
        (Some(Bound::Stage(a)), Some(Bound::Step(_))) => Some(Lock::Stages(a, 5)),
        (Some(Bound::Step(_)), Some(Bound::Stage(b))) => Some(Lock::Stages(1, b)),
    };
    o
}

#[derive(Clone, Copy)]
enum Bound {
    Step(usize),
    Stage(u8),
}

fn parse_bound(value: &str) -> Option<Bound> {
    match value.strip_prefix("stage") {
        Some(n) => n
            .parse::<u8>()
            .ok()
            .filter(|n| (1..=5).contains(n))
            .map(Bound::Stage),
        None => value
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= MAX_STEP)
            .map(Bound::Step),
    }
}

/// The session a query string opens: its scenario at its step. A link that cannot be followed
/// opens the first built-in scenario instead, with the reason as the session's notice.
///
/// # Errors
/// Only when no built-in scenario loads at all.
pub fn open(query: &str) -> Result<Session, String> {
    let fallback = |why: String| {
        Session::load(0).map(|mut s| {
            s.notice = Some(format!(
                "This link could not be opened: {}. Showing the first built-in scenario instead.",
                shorten_to(&why, 600)
            ));
            s
        })
    };
    let link = match parse_query(query) {
        Ok(link) => link,
        Err(why) => return fallback(why),
    };
    let mut session = match link.scenario {
        None => Session::load(0)?,
        Some(LinkScenario::Bundled(idx)) => Session::load(idx)?,
        Some(LinkScenario::Yaml(text)) => match Session::from_text(None, &text) {
            Ok(s) => s,
            Err(why) => return fallback(format!("its scenario is not valid: {why}")),
        },
    };
    if let Err(why) = session.replay(link.actions) {
        let mut fresh = match session.scenario_idx {
            Some(idx) => Session::load(idx)?,
            None => Session::from_text(None, &session.source)?,
        };
        fresh.notice = Some(format!(
            "Part of this link could not be repeated: {}.",
            shorten_to(&why, 400)
        ));
        return Ok(fresh);
    }
    if let Some(lock) = view_options(query).lock {
        session.set_lock(lock);
    }
    if let Some(step) = link.step {
        session.seek(step);
        if session.position() < step {
            session.notice = Some(format!(
                "The link asks for step {step}, but this run ends at step {}.",
                session.position()
            ));
        }
    }
    Ok(session)
}

/// A value cut short for an error message, so a hostile link cannot flood the page.
fn shorten(s: &str) -> String {
    shorten_to(s, 40)
}

fn shorten_to(s: &str, max_chars: usize) -> String {
    let mut out: String = s.chars().take(max_chars).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// Decodes base64url, with or without padding; `None` for anything else.
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = ALPHABET.iter().position(|&a| a == c)? as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits & 0xff) as u8);
        }
    }
    // Leftover bits must be padding zeros, and a lone sixth of a byte is not base64.
    (bits < 6 && acc & ((1 << bits) - 1) == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::session::tests::assert_notice;

    #[test]
    fn base64url_round_trips() {
        for text in [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "name: x\nseed: 7\n",
            "ünïcødé ✓",
        ] {
            let enc = base64url_encode(text.as_bytes());
            assert!(!enc.contains(['+', '/', '=']));
            assert_eq!(
                base64url_decode(&enc).as_deref(),
                Some(text.as_bytes()),
                "{text}"
            );
        }
        assert_eq!(base64url_decode("a"), None);
        assert_eq!(base64url_decode("ab<c"), None);
    }

    #[test]
    fn links_round_trip() {
        let yaml = LinkScenario::Yaml("name: x\n".into());
        let link = parse_query(&to_query(&yaml, 12)).expect("parses");
        assert_eq!(
            link,
            Link {
                scenario: Some(yaml),
                step: Some(12),
                actions: Vec::new(),
            }
        );
        let bundled = LinkScenario::Bundled(2);
        let link = parse_query(&to_query(&bundled, 0)).expect("parses");
        assert_eq!(link.scenario, Some(bundled));
    }

    #[test]
    fn hostile_links_are_refused_with_a_reason() {
        for (query, why) in [
            ("?scenario=%3Cscript%3E", "no built-in scenario"),
            ("?step=-1", "not a number"),
            ("?step=99999999999999999999999", "not a number"),
            ("?step=300000", "beyond"),
            ("?yaml=@@@", "damaged"),
            ("?yaml=_w", "not UTF-8"),
            ("?v=9&scenario=recreate", "newer RolloutScope"),
            ("?v=x", "version"),
        ] {
            let err = parse_query(query).expect_err(query);
            assert!(err.contains(why), "{query}: {err}");
        }
        let huge = format!("?yaml={}", "A".repeat(MAX_YAML_BYTES * 2));
        assert!(parse_query(&huge).is_err());
        let long_name = format!("?scenario={}", "x".repeat(1000));
        assert!(parse_query(&long_name).expect_err("unknown").len() < 120);
    }

    #[test]
    fn open_follows_good_links_and_falls_back_on_bad_ones() {
        let s = open("?v=1&scenario=recreate&step=5").expect("opens");
        assert_eq!(s.position(), 5);
        assert_eq!(s.notice, None);
        assert_eq!(BUNDLED[s.scenario_idx.unwrap_or(99)].0, "recreate.yaml");
        let s = open("?step=999").expect("opens");
        assert_notice(&s, "ends at step");
        let bad = format!(
            "?yaml={}",
            base64url_encode(b"name: <script>alert(1)</script>\nseed: -1\n")
        );
        let s = open(&bad).expect("falls back");
        assert_eq!(s.scenario_idx, Some(0));
        assert_eq!(s.position(), 0);
        assert!(
            s.notice.as_deref().is_some_and(|n| n.contains("not valid")),
            "{:?}",
            s.notice
        );
        let s = open("?scenario=nope").expect("falls back");
        assert!(
            s.notice
                .as_deref()
                .is_some_and(|n| n.contains("no built-in scenario"))
        );
    }

    #[test]
    fn a_session_link_reopens_the_same_moment() {
        let mut s = Session::load(0).expect("loads");
        s.seek(15);
        s.act(UserAction::Cordon("node-1".into())).expect("cordon");
        s.seek(30);
        let q = session_query(&s, "embed&from=2");
        assert!(q.ends_with("&embed&from=2"), "{q}");
        let again = open(&q).expect("opens");
        assert_eq!(again.notice, None);
        assert_eq!(again.position(), 30);
        assert_eq!(again.actions, s.actions);
        assert_eq!(again.timeline.steps()[..30], s.timeline.steps()[..30]);
        // A damaged or unknown action falls back to the scenario, saying why.
        let s = open("?scenario=recreate&do=3.explode.eA&step=4").expect("falls back");
        assert_notice(&s, "unknown action");
        let s = open("?scenario=recreate&do=3.cordon.bm9kZS05&step=4").expect("falls back");
        assert_notice(&s, "could not be repeated");
        assert_eq!(s.position(), 0);
    }

    #[test]
    fn links_of_the_same_run_differ_only_in_their_step() {
        let mut s = Session::load(0).expect("loads");
        s.seek(10);
        let at_10 = parse_query(&session_query(&s, "")).expect("parses");
        s.seek(20);
        let at_20 = parse_query(&session_query(&s, "")).expect("parses");
        assert!(at_10.same_run(&at_20));
        // An action changes the run even though the scenario and step come first in the link.
        s.act(UserAction::Cordon("node-1".into())).expect("cordon");
        let acted = parse_query(&session_query(&s, "")).expect("parses");
        assert!(!at_20.same_run(&acted));
        let other = parse_query("?scenario=recreate&step=20").expect("parses");
        assert!(!at_20.same_run(&other));
    }

    #[test]
    fn view_params_keep_only_view_options_and_safe_characters() {
        assert_eq!(
            view_params("?v=1&embed&from=3&to=4&step=9&x=<b>"),
            "embed&from=3&to=4"
        );
        assert_eq!(
            view_params("present&notes=1\"><script>"),
            "present&notes=1script"
        );
    }

    #[test]
    fn view_options_read_modes_and_locks() {
        let o = view_options("?embed&readonly&from=stage3&to=stage4");
        assert!(o.embed && o.readonly && !o.present);
        assert_eq!(o.lock, Some(Lock::Stages(3, 4)));
        assert_eq!(view_options("from=12&to=4").lock, Some(Lock::Steps(4, 12)));
        assert_eq!(view_options("from=stage9").lock, None);
        assert_eq!(view_options("to=x").lock, None);
        let s = open("?scenario=rolling-update&embed&from=stage3&to=stage4").expect("opens");
        assert_eq!(s.current_step().map(|st| st.stage.number()), Some(3));
    }

    #[test]
    fn unknown_parameters_and_an_empty_query_are_fine() {
        assert_eq!(parse_query(""), Ok(Link::default()));
        assert_eq!(parse_query("?embed&from=3").map(|l| l.step), Ok(None));
    }
}
