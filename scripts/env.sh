# shellcheck shell=bash
# Sourced by scripts/install-tools, scripts/serve and scripts/test (never run on its own): the
# environment every build and test step shares. Expects the working directory to be the repo root.

# The pinned tools come first: npm's binaryen (wasm-opt 132, never Debian's 108) and Playwright
# from node_modules, then cargo-installed Trunk and wasm-bindgen.
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

# Build outputs live outside the clone, so a fresh clone on a machine that built before (as CI's
# runs are) reuses them; a new machine still builds everything.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/rolloutscope/target}"

# Prints a step heading.
log() { printf '\n==> %s\n' "$*"; }

# Prints an error and exits non-zero.
die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}
