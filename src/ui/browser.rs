//! The browser: the few web APIs the app talks to outside the page itself — the address bar,
//! local storage, the clipboard, a channel to the speaker-notes window and messages to and
//! from a host page. Each call fails quietly: a browser that refuses one (private mode, an
//! old engine, a sandboxed iframe) still gets a working app.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// The page's query string, with its `?`.
pub fn query() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// The page's address without its query, for building links.
pub fn base_url() -> String {
    web_sys::window()
        .and_then(|w| {
            let l = w.location();
            Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
        })
        .unwrap_or_default()
}

/// Rewrites the address bar without a reload or a history entry.
pub fn replace_query(query: &str) {
    if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(query));
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// The tab's own storage, which a reload keeps and another tab never sees.
fn tab_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok()?
}

/// The tab-storage key of the address a page hid with and the one it meant to show.
const RELOAD_KEY: &str = "rolloutscope.reload";

/// Records, as the page is hidden, that the page is at `meant` while a reload may start from
/// any of the `shown` addresses. A reload starts from the address as it was when it was asked
/// for: one that was still waiting to be rewritten (the address bar follows at most every
/// 250 ms), or the one before a throttled rewrite that fired between the request and the page
/// going. Without this that step would be lost; [`reloaded_query`] puts it back.
pub fn remember_reload(shown: &[&str], meant: &str) {
    if let Some(s) = tab_storage() {
        let mut record = shown.join("\n");
        record.push('\n');
        record.push_str(meant);
        let _ = s.set_item(RELOAD_KEY, &record);
    }
}

/// The page's query, corrected for a reload that started from an address the page had not
/// caught up with yet (see [`remember_reload`]). Read once: the record is removed. Only a reload
/// (or a return through the history) is corrected: a link opened anew shows what it says, even
/// when it is the address this tab last showed.
pub fn reloaded_query() -> String {
    let shown = query();
    let Some(s) = tab_storage() else {
        return shown;
    };
    let record = s.get_item(RELOAD_KEY).ok().flatten();
    let _ = s.remove_item(RELOAD_KEY);
    match record.as_deref().and_then(|r| r.rsplit_once('\n')) {
        Some((was, meant)) if was.split('\n').any(|w| w == shown) && reopened() => {
            meant.to_string()
        }
        _ => shown,
    }
}

/// Whether this page load reloads the page or comes back to it through the history, rather
/// than following a link or a typed address (the Navigation Timing entry's `type`).
/// A browser without the entry falls back on the older `performance.navigation.type` (1 a
/// reload, 2 the history), and without either the record is trusted, as it always was.
fn reopened() -> bool {
    let Some(p) = web_sys::window().and_then(|w| w.performance()) else {
        return true;
    };
    let kind = js_sys::Reflect::get(
        &p.get_entries_by_type("navigation").get(0),
        &JsValue::from_str("type"),
    )
    .ok()
    .and_then(|t| t.as_string());
    if let Some(kind) = kind {
        return matches!(kind.as_str(), "reload" | "back_forward");
    }
    let legacy = js_sys::Reflect::get(&p, &JsValue::from_str("navigation"))
        .and_then(|n| js_sys::Reflect::get(&n, &JsValue::from_str("type")))
        .ok()
        .and_then(|t| t.as_f64());
    legacy.is_none_or(|t| t == 1.0 || t == 2.0)
}

/// Runs `f` once after `ms`; [`cancel`] stops it before then.
pub fn after(ms: u32, f: impl FnOnce() + 'static) -> Option<Pending> {
    let w = web_sys::window()?;
    timer(&w, &Closure::once_into_js(f), ms)
}

fn timer(w: &web_sys::Window, f: &JsValue, ms: u32) -> Option<Pending> {
    w.set_timeout_with_callback_and_timeout_and_arguments_0(
        f.unchecked_ref(),
        i32::try_from(ms).unwrap_or(i32::MAX),
    )
    .ok()
    .map(Pending::Timer)
}

/// Runs `f` once when the browser next has an idle moment, or after `timeout_ms` at the latest;
/// [`cancel`] stops it before then. Work that nobody is waiting for (rewriting the address bar,
/// saving) goes here, so that it never lands between an input and its frame. A browser without
/// idle callbacks runs `f` on a plain timer instead.
pub fn when_idle(f: impl FnOnce() + 'static, timeout_ms: u32) -> Option<Pending> {
    let w = web_sys::window()?;
    let f = Closure::once_into_js(f);
    let options = web_sys::IdleRequestOptions::new();
    options.set_timeout(timeout_ms);
    match w.request_idle_callback_with_options(f.unchecked_ref(), &options) {
        Ok(id) => Some(Pending::Idle(id)),
        Err(_) => timer(&w, &f, 0),
    }
}

/// A callback that [`after`] or [`when_idle`] has queued.
#[derive(Clone, Copy, Debug)]
pub enum Pending {
    Idle(u32),
    Timer(i32),
}

/// Cancels a callback that [`after`] or [`when_idle`] queued and that has not run yet.
pub fn cancel(pending: Pending) {
    let Some(w) = web_sys::window() else { return };
    match pending {
        Pending::Idle(id) => w.cancel_idle_callback(id),
        Pending::Timer(id) => w.clear_timeout_with_handle(id),
    }
}

/// Milliseconds since the page loaded (for pacing writes, never for the simulation).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Calls `f` when the page is hidden or unloaded (a reload, a closed tab, a switch away).
pub fn on_page_hide(f: impl Fn() + 'static) {
    let Some(w) = web_sys::window() else { return };
    let handler = Closure::<dyn Fn()>::new(f);
    let _ = w.add_event_listener_with_callback("pagehide", handler.as_ref().unchecked_ref());
    // Lives as long as the page.
    handler.forget();
}

/// A saved value: this tab's own, which a reload finds, else the one the last tab to save
/// left in local storage (for a new tab on the bare address). Another tab that opens a link
/// overwrites only the latter, so a tab's unapplied work survives it.
pub fn load(key: &str) -> Option<String> {
    tab_storage()
        .and_then(|s| s.get_item(key).ok().flatten())
        .or_else(|| storage()?.get_item(key).ok()?)
}

/// Saves a value for this tab and, in local storage, for the next tab opened on the bare
/// address.
pub fn save(key: &str, value: &str) {
    for s in [tab_storage(), storage()].into_iter().flatten() {
        let _ = s.set_item(key, value);
    }
}

/// Asks the person to confirm; `true` when the browser cannot ask.
pub fn confirm(message: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.confirm_with_message(message).ok())
        .unwrap_or(true)
}

/// Brings the element with this id into view at the next frame, once the render that may
/// create it has run (an element shown in answer to a click does not exist during the click).
pub fn scroll_into_view(id: &'static str) {
    leptos::prelude::request_animation_frame(move || {
        if let Some(e) = element_by_id(id) {
            e.scroll_into_view();
        }
    });
}

fn element_by_id(id: &str) -> Option<web_sys::Element> {
    web_sys::window()?.document()?.get_element_by_id(id)
}

/// Whether to act at the current step when `later` of the person's actions come after it:
/// they would be discarded, so the person is asked first (as Reset asks).
pub fn may_discard_later_actions(later: usize) -> bool {
    later == 0
        || confirm(&format!(
            "Acting at this step discards the {later} action{} you took later in this run: from here on the run is simulated anew. Go on?",
            if later == 1 { "" } else { "s" }
        ))
}

/// Adds `class` to the document's root element (`<html>`).
pub fn mark_root(class: &str) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.class_list().add_1(class);
    }
}

/// Moves the keyboard focus to the element with this id at the next frame, once the render
/// that answers the current event has run.
pub fn focus(id: &'static str) {
    leptos::prelude::request_animation_frame(move || {
        if let Some(e) = element_by_id(id).and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = e.focus();
        }
    });
}

/// Scrolls the element with this id into view at the next frame only as far as needed
/// (`block: "nearest"`): a panel that opens above the viewport, while the sticky controls that
/// opened it stay in view, comes down to just below them.
pub fn reveal(id: &'static str) {
    leptos::prelude::request_animation_frame(move || {
        let Some(e) = element_by_id(id) else {
            return;
        };
        let options = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&options, &"block".into(), &"nearest".into());
        if let Ok(f) = js_sys::Reflect::get(&e, &"scrollIntoView".into())
            && let Some(f) = f.dyn_ref::<js_sys::Function>()
        {
            let _ = f.call1(&e, &options);
        }
    });
}

/// Puts text on the clipboard, when the browser allows it.
pub fn copy_to_clipboard(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

/// The channel between a presenting window and its speaker notes.
pub const CHANNEL: &str = "rolloutscope-presenter";

/// Opens the presenter channel and calls `on_message` with each text sent on it. The channel
/// lives as long as the page.
pub fn listen_channel(on_message: impl Fn(String) + 'static) -> Option<web_sys::BroadcastChannel> {
    let channel = web_sys::BroadcastChannel::new(CHANNEL).ok()?;
    let handler =
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            if let Some(text) = ev.data().as_string() {
                on_message(text);
            }
        });
    channel.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler must outlive this call; the page keeps the channel for its whole life.
    handler.forget();
    Some(channel)
}

/// Sends a text on the presenter channel.
pub fn post_channel(channel: &web_sys::BroadcastChannel, text: &str) {
    let _ = channel.post_message(&JsValue::from_str(text));
}

/// Whether the page runs inside a frame of another page.
pub fn in_frame() -> bool {
    web_sys::window().is_some_and(|w| {
        w.parent()
            .ok()
            .flatten()
            .is_some_and(|p| !js_sys::Object::is(&p, &w))
    })
}

/// Tells the host page (when framed) about the current step.
pub fn post_to_host(message: &JsValue) {
    if let Some(parent) = web_sys::window().and_then(|w| w.parent().ok().flatten()) {
        let _ = parent.post_message(message, "*");
    }
}

/// Calls `on_message` with each message a host page posts to this one.
pub fn listen_host(on_message: impl Fn(JsValue) + 'static) {
    let Some(w) = web_sys::window() else { return };
    let handler =
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            on_message(ev.data());
        });
    let _ = w.add_event_listener_with_callback("message", handler.as_ref().unchecked_ref());
    handler.forget();
}

/// Reads a field of a plain JS object: a string, or a number as text.
pub fn field(obj: &JsValue, name: &str) -> Option<String> {
    let v = js_sys::Reflect::get(obj, &JsValue::from_str(name)).ok()?;
    // JavaScript's own `String(n)` writes a number as the host page sees it (and keeps Rust's
    // float printing out of the app).
    v.as_string().or_else(|| {
        let n = js_sys::Number::from(v.as_f64()?);
        n.to_string_with_radix(10).ok().map(String::from)
    })
}

/// Builds the message a host page receives on each step change.
pub fn step_message(step: usize, stage: u8, time_ms: u64, narration: &str) -> JsValue {
    let obj = js_sys::Object::new();
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&obj, &JsValue::from_str(k), &v);
    };
    set("type", JsValue::from_str("rolloutscope:step"));
    set("step", JsValue::from_f64(step as f64));
    set("stage", JsValue::from_f64(f64::from(stage)));
    set("timeMs", JsValue::from_f64(time_ms as f64));
    set("narration", JsValue::from_str(narration));
    obj.into()
}
