//! Side by side: the same scenario under two manifests, stepped together in simulated time, so
//! a learner sees how, say, `maxSurge: 1, maxUnavailable: 0` and `maxSurge: 0,
//! maxUnavailable: 1` roll out the same change.

use leptos::prelude::*;

use super::cluster::{DeploymentPanel, ReplicaSetLanes, lanes_view};
use super::session::{Session, UserAction};
use crate::sim::api::Time;
use crate::sim::view::ClusterView;

/// Two runs of one scenario that move through time together.
#[derive(Clone, Debug)]
pub struct Pair {
    pub left: Session,
    pub right: Session,
}

impl Pair {
    /// The scenario of `base` twice, each started from one of the two manifests.
    ///
    /// # Errors
    /// Why a manifest could not be applied.
    pub fn new(base: &Session, left: &str, right: &str) -> Result<Pair, String> {
        let start = |text: &str| -> Result<Session, String> {
            let mut s = Session::from_text(base.scenario_idx, &base.source)?;
            s.act(UserAction::Apply(text.to_string()))?;
            s.notice = None;
            Ok(s)
        };
        Ok(Pair {
            left: start(left)?,
            right: start(right)?,
        })
    }

    /// The simulated time shown: the later of the two.
    pub fn now(&self) -> Time {
        self.left.now().max(self.right.now())
    }

    /// Steps whichever run's next step comes first in simulated time (both on a tie), so the
    /// two stay at the same moment. Returns whether either moved.
    pub fn forward(&mut self) -> bool {
        let l = self.left.peek_next().map(|s| s.time);
        let r = self.right.peek_next().map(|s| s.time);
        match (l, r) {
            (None, None) => false,
            (Some(_), None) => self.left.forward(),
            (None, Some(_)) => self.right.forward(),
            (Some(a), Some(b)) if a < b => self.left.forward(),
            (Some(a), Some(b)) if b < a => self.right.forward(),
            (Some(_), Some(_)) => {
                let moved = self.left.forward();
                self.right.forward() || moved
            }
        }
    }

    /// Undoes the latest step of the two (both when they happened at the same time).
    pub fn back(&mut self) {
        let t = |s: &Session| s.current_step().map(|st| st.time);
        match (t(&self.left), t(&self.right)) {
            (Some(a), Some(b)) if a > b => self.left.back(),
            (Some(a), Some(b)) if b > a => self.right.back(),
            (Some(_), None) => self.left.back(),
            (None, Some(_)) => self.right.back(),
            _ => {
                self.left.back();
                self.right.back();
            }
        }
    }

    /// Both runs back to their start.
    pub fn reset(&mut self) {
        self.left.reset();
        self.right.reset();
    }
}

/// What a run's strategy says, for its column's title.
fn strategy_line(c: &ClusterView) -> String {
    match &c.deployment {
        Some(d) if d.max_surge == 0 && d.max_unavailable == 0 => "Recreate".to_string(),
        Some(d) => format!(
            "maxSurge {} · maxUnavailable {}",
            d.max_surge, d.max_unavailable
        ),
        None => "not created yet".to_string(),
    }
}

/// One column of the comparison: the left run or the right one of `pair`.
#[component]
fn Side(pair: RwSignal<Pair>, left: bool) -> impl IntoView {
    fn pick(p: &Pair, left: bool) -> &Session {
        if left { &p.left } else { &p.right }
    }
    let expanded: RwSignal<std::collections::BTreeSet<String>> = RwSignal::new(Default::default());
    let cluster = Memo::new(move |_| {
        expanded.with(|e| pair.with(|p| lanes_view(pick(p, left).timeline.sim(), e)))
    });
    let narration = Memo::new(move |_| {
        pair.with(|p| {
            pick(p, left)
                .current_step()
                .map(|st| format!("Step {} at {}: {}", st.index, st.time, st.narration))
                .unwrap_or_else(|| "Nothing has run yet.".to_string())
        })
    });
    let label = if left { "left" } else { "right" };
    view! {
        <section class="compare-side" data-testid=format!("compare-{label}") aria-label=format!("{label} run")>
            <h2>{move || format!("{}: {}", if left { "A" } else { "B" }, cluster.with(strategy_line))}</h2>
            <p class="compare-narration">{move || narration.get()}</p>
            <DeploymentPanel cluster session=None />
            <ReplicaSetLanes cluster expanded session=None />
        </section>
    }
}

/// Both runs side by side with one set of controls.
#[component]
pub fn CompareView(pair: RwSignal<Pair>, on_close: Callback<()>) -> impl IntoView {
    let now = move || pair.with(|p| p.now().to_string());
    view! {
        <section class="compare" data-testid="compare" aria-label="Side by side">
            <div class="controls" role="toolbar" aria-label="Step both runs">
                <button class="control" data-testid="compare-reset" on:click=move |_| pair.update(Pair::reset)>"|◀ Reset"</button>
                <button class="control" data-testid="compare-back" on:click=move |_| pair.update(Pair::back)>"◀ Step back"</button>
                <button class="control" data-testid="compare-forward" on:click=move |_| pair.update(|p| { p.forward(); })>"▶ Step forward"</button>
                <p class="position" data-testid="compare-time">{move || format!("t = {}", now())}</p>
                <button class="control" data-testid="compare-close" on:click=move |_| on_close.run(())>"✕ Close the comparison"</button>
            </div>
            <div class="compare-grid">
                <Side pair left=true />
                <Side pair left=false />
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pair_stays_in_step_and_the_surge_first_run_keeps_all_pods_available() {
        let base = Session::load_file("rolling-update.yaml").expect("loads");
        let text = base.manifest_text();
        let with = |surge: &str, unavailable: &str| {
            text.replace(
                "  replicas: 10\n",
                &format!("  replicas: 10\n  strategy:\n    rollingUpdate:\n      maxSurge: {surge}\n      maxUnavailable: {unavailable}\n"),
            )
        };
        let mut pair = Pair::new(&base, &with("1", "0"), &with("0", "1")).expect("both apply");
        let mut min_available = (i32::MAX, i32::MAX);
        let mut guard = 0;
        while pair.forward() && guard < 20_000 {
            guard += 1;
            // Neither run gets ahead of the other in time by more than one step.
            let (l, r) = (pair.left.now(), pair.right.now());
            assert!(l.max(r) == pair.now());
            if pair.now() > Time::from_secs(61) {
                let avail = |s: &Session| {
                    s.live_deployment()
                        .map_or(0, |d| d.status.available_replicas)
                };
                min_available.0 = min_available.0.min(avail(&pair.left));
                min_available.1 = min_available.1.min(avail(&pair.right));
            }
        }
        assert!(pair.left.at_end() && pair.right.at_end());
        // maxUnavailable 0 never drops below 10 available; maxUnavailable 1 goes to 9.
        assert_eq!(min_available, (10, 9));
        pair.back();
        assert!(!(pair.left.at_end() && pair.right.at_end()));
        pair.reset();
        assert_eq!((pair.left.position(), pair.right.position()), (0, 0));
    }
}
