//! The core as a JavaScript module: `run` and `validate`, bound with wasm-bindgen and built by
//! scripts/build-js. Natively it does nothing; it exists for the wasm32 build.

fn main() {}
