//! Rollout benchmarks: a rolling update of 10, 100, 1,000 and 10,000 replicas to completion,
//! jumping back to earlier steps of the 1,000-replica run through the timeline, and what the
//! app works out after every step: the lanes view (each pod's kubectl STATUS, tallied) and the
//! event log's last 30 events. A plain
//! harness (`harness = false`) that reports the median of several runs, so `cargo bench` needs
//! no extra crates.

// Benchmarks measure wall time by design; the clock ban in clippy.toml is for the simulator.
#![allow(clippy::disallowed_methods)]

use rolloutscope::sim::kubectl::EventFold;
use rolloutscope::sim::scenario::{self, Scenario};
use rolloutscope::sim::timeline::Timeline;
use rolloutscope::sim::view::ClusterView;
use std::collections::BTreeSet;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A scenario with `replicas` healthy pods, enough nodes for them plus the surge, and a
/// template change at 60 s.
fn scenario_yaml(replicas: usize) -> String {
    let per_node = 500;
    let nodes = (replicas * 2).div_ceil(per_node).max(3);
    let mut s = String::from("name: bench\nseed: 1\ncluster:\n  nodes:\n");
    for i in 0..nodes {
        s.push_str(&format!(
            "    - {{name: node-{i}, cpu: \"64\", memory: 256Gi, pods: {per_node}}}\n"
        ));
    }
    let lines = [
        "images:".to_string(),
        "  web:1.0: {pull_time: 2s, listen_after: 1s}".to_string(),
        "  web:2.0: {pull_time: 2s, listen_after: 1s, shutdown: 1s}".to_string(),
        "deployment:".to_string(),
        "  apiVersion: apps/v1".to_string(),
        "  kind: Deployment".to_string(),
        "  metadata: {name: web}".to_string(),
        "  spec:".to_string(),
        format!("    replicas: {replicas}"),
        "    selector: {matchLabels: {app: web}}".to_string(),
        "    template:".to_string(),
        "      metadata: {labels: {app: web}}".to_string(),
        "      spec:".to_string(),
        "        containers:".to_string(),
        "          - name: web".to_string(),
        "            image: web:1.0".to_string(),
        "            resources: {requests: {cpu: 10m, memory: 16Mi}}".to_string(),
        "            readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 5}".to_string(),
        "actions:".to_string(),
        "  - {at: 60s, set_image: web:2.0}".to_string(),
        "run_until: complete".to_string(),
    ];
    for l in lines {
        s.push_str(&l);
        s.push('\n');
    }
    s
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    // `cargo test --benches` runs this binary with `--bench`-less arguments; keep it quick then.
    let quick =
        std::env::args().any(|a| a == "--test") || std::env::var_os("BENCH_QUICK").is_some();
    println!("rolling update to completion (25%/25%, all healthy), median of runs:");
    let mut per_replica = Vec::new();
    let sizes: Vec<usize> = std::env::var("BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10, 100, 1_000, 10_000]);
    for &n in &sizes {
        if (quick && n > 100)
            || std::env::var("BENCH_MAX")
                .ok()
                .and_then(|m| m.parse::<usize>().ok())
                .is_some_and(|m| n > m)
        {
            continue;
        }
        let sc = Scenario::parse(&scenario_yaml(n)).expect("bench scenario is valid");
        let runs = std::env::var("BENCH_RUNS")
            .ok()
            .and_then(|r| r.parse::<usize>().ok())
            .unwrap_or(if n >= 10_000 { 3 } else { 7 })
            .max(1);
        let mut times = Vec::new();
        let mut steps = 0;
        let mut stopped = String::new();
        for _ in 0..runs {
            let t = Instant::now();
            let run = scenario::run_with(&sc, |_, _| {});
            times.push(t.elapsed());
            steps = run.steps.len();
            stopped = run.stopped;
            black_box(run.sim.now());
        }
        let m = median(times);
        per_replica.push((n, m));
        println!(
            "  {n:>6} replicas: {:>9.2} ms  ({steps} steps, {:.2} µs/step; {stopped})",
            m.as_secs_f64() * 1e3,
            m.as_secs_f64() * 1e6 / steps.max(1) as f64
        );
    }
    if let (Some((n0, t0)), Some((n1, t1))) = (per_replica.first(), per_replica.last()) {
        let growth = (t1.as_secs_f64() / t0.as_secs_f64()) / (*n1 as f64 / *n0 as f64);
        println!("  cost per replica grows {growth:.2}× from {n0} to {n1} replicas (1.0 = linear)");
    }

    if quick || std::env::var_os("BENCH_NO_END").is_some() {
        return;
    }
    // The app's "End" runs the same rollout through the timeline, which also keeps snapshots
    // for stepping back: this is the native figure to hold the browser's "End" against.
    let sc = Scenario::parse(&scenario_yaml(1_000)).expect("bench scenario is valid");
    let mut times = Vec::new();
    let mut steps = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let mut tl = Timeline::of(&sc);
        tl.seek(usize::MAX);
        times.push(t.elapsed());
        steps = tl.position();
        black_box(tl.known_end());
    }
    println!(
        "timeline jump to the end of the 1,000-replica run (the app's End): {:.2} ms ({steps} steps)",
        median(times).as_secs_f64() * 1e3
    );
    if std::env::var_os("BENCH_NO_SEEK").is_some() {
        return;
    }
    println!("seek back in the 1,000-replica run (timeline, snapshot every 8 steps):");
    let sc = Scenario::parse(&scenario_yaml(1_000)).expect("bench scenario is valid");
    let mut tl = Timeline::new(sc.sim(), sc.time_limit());
    while tl.forward().is_some() {
        if scenario::rollout_settled(tl.sim(), "web") {
            break;
        }
    }
    let total = tl.position();
    let mut times = Vec::new();
    let mut worst = Duration::ZERO;
    let mut x: u64 = 12345;
    for _ in 0..200 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let target = (x >> 33) as usize % total.max(1);
        tl.seek(total);
        let t = Instant::now();
        tl.seek(target);
        let e = t.elapsed();
        worst = worst.max(e);
        times.push(e);
        black_box(tl.position());
    }
    println!(
        "  {total} steps; jump back to a random step: median {:.3} ms, worst {:.3} ms",
        median(times).as_secs_f64() * 1e3,
        worst.as_secs_f64() * 1e3
    );
    // What the app draws after every step, scrub or jump: the lanes' pod counts (a kubectl
    // STATUS per pod) with no lane drawn pod by pod, at the run's middle.
    tl.seek(total / 2);
    let mut times = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        black_box(ClusterView::for_lanes(tl.sim(), 40, &BTreeSet::new()));
        times.push(t.elapsed());
    }
    println!(
        "the lanes view (pod counts by STATUS) at step {} of 1,000 replicas: median {:.3} ms",
        total / 2,
        median(times).as_secs_f64() * 1e3
    );
    // The event log's window, which the app works out after every step too: the last 30
    // events in kubectl's order, at 200 positions over the whole run.
    let run = scenario::run_with(&sc, |_, _| {});
    let mut fold = EventFold::default();
    fold.extend(&run.steps);
    let mut times = Vec::new();
    for k in 1..=200 {
        let position = run.steps.len() * k / 200;
        let t = Instant::now();
        black_box(fold.latest(position, 30, run.sim.now()));
        times.push(t.elapsed());
    }
    times.sort();
    println!(
        "the event log's last 30 events over the 1,000-replica run: median {:.3} ms, p95 {:.3} ms",
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[times.len() * 95 / 100].as_secs_f64() * 1e3
    );
}
