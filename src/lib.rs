//! RolloutScope: a step-through visualizer of how a Kubernetes Deployment reconciles desired
//! state.
//!
//! [`sim`] is the pure, deterministic core: the API objects, the deployment and replica-set
//! controllers, the scheduler and a kubelet, driven by a logical clock. It knows nothing about
//! browsers. [`ui`] is the Leptos front end that renders the core's snapshots and sends it
//! commands; it exists only with the `ui` feature.

pub mod sim;

#[cfg(feature = "ui")]
pub mod ui;
