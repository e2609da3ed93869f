//! The browser entry point that Trunk builds to wasm: it installs the panic hook and mounts the
//! app. Everything else lives in [`rolloutscope::ui`].

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(rolloutscope::ui::App);
}
