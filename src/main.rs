//! The browser entry point that Trunk builds to wasm: it mounts the app. Everything else lives
//! in [`rolloutscope::ui`].

fn main() {
    rolloutscope::ui::mount();
}
