//! PodTopologySpread: the scheduler plugin that keeps the pods a label selector matches spread
//! over topology domains. A domain is the set of nodes that share one value of a node label
//! (`topology.kubernetes.io/zone=a`), or one node for `kubernetes.io/hostname`. A pod's own
//! `topologySpreadConstraints` filter nodes (`DoNotSchedule`) and score them (`ScheduleAnyway`);
//! a pod that sets none and is owned by a ReplicaSet is scored with the system default
//! constraints. Mirrors upstream `pkg/scheduler/framework/plugins/podtopologyspread`
//! (`filtering.go`, `scoring.go`, `common.go`, v1.35).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::sim::api::selector::{LabelSelector, SelectorOperator};
use crate::sim::api::{Node, Pod};
use crate::sim::store::Store;

use super::scheduler::{FilterFailure, Plugins, node_affinity_allows, tolerates_node_taints};

/// The node label every node carries with its own name: a domain per node.
pub const HOSTNAME_LABEL: &str = "kubernetes.io/hostname";
/// The zone label of the system default constraint that spreads over zones.
pub const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// `ErrReasonConstraintsNotMatch`: placing the pod on the node would make the skew too large.
pub const REASON_CONSTRAINTS_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints";
/// `ErrReasonNodeLabelNotMatch`: the node lacks a constraint's topology key.
pub const REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// One `topologySpreadConstraints` entry as the scheduler reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint {
    /// How many more matching pods a domain may hold than the emptiest one.
    pub max_skew: i64,
    /// The node label whose values make the domains.
    pub topology_key: String,
    /// `whenUnsatisfiable: DoNotSchedule` (a filter); otherwise `ScheduleAnyway` (a score).
    pub hard: bool,
    /// The selector with `matchLabelKeys` merged in (`key In [the pod's value]`), as the API
    /// server stores it since v1.34 and the scheduler merges it anyway. `None` when the
    /// constraint has no `labelSelector`: it selects no pod (`labels.Nothing()`).
    pub selector: Option<LabelSelector>,
    /// `minDomains`, 1 when unset.
    pub min_domains: i64,
    /// `nodeAffinityPolicy: Honor` (the default): only nodes the pod's node selector and
    /// required node affinity allow are domains and are counted.
    pub honor_node_affinity: bool,
    /// `nodeTaintsPolicy: Honor` (the default is `Ignore`): nodes with a taint the pod does not
    /// tolerate are left out.
    pub honor_node_taints: bool,
}

impl Constraint {
    /// `Selector.Matches`: whether the selector takes these labels in. An empty selector (`{}`)
    /// takes in everything, a missing one nothing.
    pub fn selects(&self, labels: &BTreeMap<String, String>) -> bool {
        self.selector.as_ref().is_some_and(|s| s.matches(labels))
    }

    /// `countPodsMatchSelector` for one pod already on a node: it counts unless it is being
    /// deleted (upstream #87621). An empty selector counts no pod at all (`selector.Empty()`
    /// returns 0, since v1.27), although it still matches the incoming pod itself.
    fn counts(&self, pod: &Pod) -> bool {
        pod.metadata.deletion_timestamp.is_none()
            && self
                .selector
                .as_ref()
                .is_some_and(|s| !s.is_empty() && s.matches(&pod.metadata.labels))
    }

    /// `matchNodeInclusionPolicies`: whether the node takes part in this constraint's counts.
    fn includes(&self, pod: &Pod, node: &Node) -> bool {
        (!self.honor_node_affinity || node_affinity_allows(pod, node))
            && (!self.honor_node_taints || tolerates_node_taints(pod, node))
    }
}

/// Whether the pod sets constraints of its own (then the system defaults never apply).
fn has_own_constraints(pod: &Pod) -> bool {
    pod.spec
        .extra
        .get("topologySpreadConstraints")
        .and_then(Value::as_array)
        .is_some_and(|cs| !cs.is_empty())
}

/// The pod's own constraints, hard and soft, in the order written. The manifest was validated,
/// so an entry that cannot be read (which validation refuses) is skipped rather than guessed.
pub fn constraints(pod: &Pod) -> Vec<Constraint> {
    let Some(list) = pod
        .spec
        .extra
        .get("topologySpreadConstraints")
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    list.iter().filter_map(|c| constraint(pod, c)).collect()
}

/// One constraint as `filterTopologySpreadConstraints` builds it, with `matchLabelKeys` merged
/// into the selector (`mergeLabelSetWithSelector`).
fn constraint(pod: &Pod, c: &Value) -> Option<Constraint> {
    let text = |key: &str| c.get(key).and_then(Value::as_str);
    let max_skew = c.get("maxSkew").and_then(Value::as_i64)?;
    let topology_key = text("topologyKey")?.to_string();
    let hard = match text("whenUnsatisfiable")? {
        "DoNotSchedule" => true,
        "ScheduleAnyway" => false,
        _ => return None,
    };
    let mut selector: Option<LabelSelector> = c
        .get("labelSelector")
        .filter(|s| !s.is_null())
        .and_then(|s| serde_json::from_value(s.clone()).ok());
    // `matchLabelKeys`: the pod's own value of each key joins the selector (a key the pod does
    // not carry is left out), so that, say, `pod-template-hash` limits the count to the pods
    // of the pod's own ReplicaSet.
    if let Some(sel) = selector.as_mut() {
        let keys = c.get("matchLabelKeys").and_then(Value::as_array);
        sel.merge_label_keys(
            keys.into_iter().flatten().filter_map(Value::as_str),
            SelectorOperator::In,
            &pod.metadata.labels,
        );
    }
    Some(Constraint {
        max_skew,
        topology_key,
        hard,
        selector,
        min_domains: c.get("minDomains").and_then(Value::as_i64).unwrap_or(1),
        honor_node_affinity: text("nodeAffinityPolicy") != Some("Ignore"),
        honor_node_taints: text("nodeTaintsPolicy") == Some("Honor"),
    })
}

/// The API server's `applyMatchLabelKeys` at pod creation (`MatchLabelKeysInPodTopologySpread`
/// with `…SelectorMerge`, on by default since v1.34): each constraint with a `labelSelector`
/// gets `key In [the pod's value]` for every `matchLabelKeys` key the pod carries, so the stored
/// pod (and `kubectl describe pod`) shows the merged selector. The scheduler's own merge then
/// adds the same requirement again, which changes nothing.
pub fn merge_match_label_keys(pod: &mut Pod) {
    let has_keys = |c: &Value| {
        c.get("matchLabelKeys")
            .and_then(Value::as_array)
            .is_some_and(|ks| !ks.is_empty())
            && c.get("labelSelector").is_some_and(Value::is_object)
    };
    let wanted = pod
        .spec
        .extra
        .get("topologySpreadConstraints")
        .and_then(Value::as_array)
        .is_some_and(|cs| cs.iter().any(has_keys));
    if !wanted {
        return;
    }
    let labels = pod.metadata.labels.clone();
    let Some(Value::Array(list)) = pod.spec.extra.get_mut("topologySpreadConstraints") else {
        return;
    };
    for c in list.iter_mut().filter(|c| has_keys(c)) {
        let keys: Vec<String> = c
            .get("matchLabelKeys")
            .and_then(Value::as_array)
            .map(|ks| {
                ks.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        let Some(selector) = c.get_mut("labelSelector").and_then(Value::as_object_mut) else {
            continue;
        };
        let expressions = selector
            .entry("matchExpressions")
            .or_insert_with(|| Value::Array(Vec::new()));
        if !expressions.is_array() {
            *expressions = Value::Array(Vec::new());
        }
        if let Value::Array(exprs) = expressions {
            for key in keys {
                if let Some(value) = labels.get(&key) {
                    exprs.push(serde_json::json!({
                        "key": key,
                        "operator": "In",
                        "values": [value],
                    }));
                }
            }
        }
    }
}

/// The pod's `DoNotSchedule` constraints (`getConstraints`), which the filter and the queueing
/// hints read.
pub fn hard_constraints(pod: &Pod) -> Vec<Constraint> {
    constraints(pod).into_iter().filter(|c| c.hard).collect()
}

/// Whether the node carries every constraint's topology key (`nodeLabelsMatchSpreadConstraints`).
fn has_all_keys(node: &Node, constraints: &[Constraint]) -> bool {
    constraints
        .iter()
        .all(|c| node.metadata.labels.contains_key(&c.topology_key))
}

/// The pods each constraint counts, per node name (`countPodsMatchSelector` over each node's
/// pods; finished pods are never in the scheduler's cache): one pass over the bound pods.
fn counted_per_node<'s>(
    store: &'s Store,
    constraints: &[Constraint],
) -> Vec<BTreeMap<&'s str, i64>> {
    let mut per_node = vec![BTreeMap::new(); constraints.len()];
    for p in store
        .pods
        .values()
        .filter(|p| !p.node_name.is_empty() && !p.is_terminal())
    {
        for (i, c) in constraints.iter().enumerate() {
            if c.counts(p) {
                *per_node[i].entry(p.node_name.as_str()).or_default() += 1;
            }
        }
    }
    per_node
}

/// The filter's pre-computed state (`PreFilter`, `calPreFilterState`): for each hard
/// constraint, the pods it counts in each eligible domain, zero for a domain with none. A node
/// is eligible when it carries every constraint's topology key and passes the constraint's
/// node inclusion policies.
#[derive(Default)]
pub struct SpreadFilter {
    constraints: Vec<Constraint>,
    domains: Vec<BTreeMap<String, i64>>,
    /// Whether the incoming pod matches each constraint's selector: it counts itself.
    self_match: Vec<bool>,
}

impl SpreadFilter {
    /// `calPreFilterState` for the pod's hard constraints.
    pub fn of(pod: &Pod, store: &Store) -> SpreadFilter {
        let constraints = hard_constraints(pod);
        if constraints.is_empty() {
            return SpreadFilter::default();
        }
        let per_node = counted_per_node(store, &constraints);
        let mut domains = vec![BTreeMap::new(); constraints.len()];
        for node in store
            .nodes
            .values()
            .filter(|n| has_all_keys(n, &constraints))
        {
            for (i, c) in constraints.iter().enumerate() {
                if !c.includes(pod, node) {
                    continue;
                }
                let Some(value) = node.metadata.labels.get(&c.topology_key) else {
                    continue;
                };
                let here = per_node[i]
                    .get(node.metadata.name.as_str())
                    .copied()
                    .unwrap_or(0);
                *domains[i].entry(value.clone()).or_default() += here;
            }
        }
        SpreadFilter {
            self_match: constraints
                .iter()
                .map(|c| c.selects(&pod.metadata.labels))
                .collect(),
            constraints,
            domains,
        }
    }

    /// The fewest matching pods in any eligible domain of constraint `i`, or 0 while there are
    /// fewer eligible domains than its `minDomains` (`minMatchNum`).
    fn min_match(&self, i: usize) -> i64 {
        let domains = &self.domains[i];
        if (domains.len() as i64) < self.constraints[i].min_domains {
            return 0;
        }
        domains.values().copied().min().unwrap_or(0)
    }

    /// `Filter`: a node without a constraint's topology key can never take the pod
    /// (unresolvable); otherwise the pod may go there only if its domain's matching pods, with
    /// the pod itself when it matches, exceed the fewest in any domain by at most `maxSkew`.
    pub fn filter(&self, node: &Node) -> Result<(), FilterFailure> {
        for (i, c) in self.constraints.iter().enumerate() {
            let Some(value) = node.metadata.labels.get(&c.topology_key) else {
                return Err(FilterFailure {
                    reasons: vec![REASON_NODE_LABEL_NOT_MATCH.to_string()],
                    unresolvable: true,
                    plugin: Plugins::POD_TOPOLOGY_SPREAD,
                });
            };
            let here = self.domains[i].get(value).copied().unwrap_or(0);
            let skew = here + i64::from(self.self_match[i]) - self.min_match(i);
            if skew > c.max_skew {
                return Err(FilterFailure {
                    reasons: vec![REASON_CONSTRAINTS_NOT_MATCH.to_string()],
                    unresolvable: false,
                    plugin: Plugins::POD_TOPOLOGY_SPREAD,
                });
            }
        }
        Ok(())
    }

    /// Each hard constraint's arithmetic in words, for the narration of a pod it turned nodes
    /// away for: the matching pods per domain, the fewest, and so the most a domain may hold
    /// with this pod.
    pub fn explain(&self) -> String {
        let mut parts = Vec::new();
        for (i, c) in self.constraints.iter().enumerate() {
            let domains = &self.domains[i];
            if domains.is_empty() {
                parts.push(format!(
                    "The spread over {} (maxSkew {}, DoNotSchedule) has no domain: no node both carries every topology key the pod's constraints name and passes the constraint's node inclusion policies (the pod's node affinity, and the node's taints under nodeTaintsPolicy: Honor).",
                    c.topology_key, c.max_skew
                ));
                continue;
            }
            let counts: Vec<String> = domains
                .iter()
                .map(|(domain, n)| format!("{domain} {n}"))
                .collect();
            let min = self.min_match(i);
            let own = if self.self_match[i] {
                "with this pod"
            } else {
                "(this pod does not match its selector)"
            };
            let fewest = if (domains.len() as i64) < c.min_domains {
                format!(
                    "Only {} of the {} domains minDomains asks for exist, so the fewest counts as 0 and",
                    domains.len(),
                    c.min_domains
                )
            } else {
                format!("The fewest is {min}, so")
            };
            parts.push(format!(
                "The spread over {} (maxSkew {}, DoNotSchedule) counts the matching pods per domain: {}. {fewest} a domain may hold at most {} {own}.",
                c.topology_key,
                c.max_skew,
                counts.join(", "),
                min.saturating_add(c.max_skew),
            ));
        }
        parts.join(" ")
    }
}

/// What PodTopologySpread's scoring saw, for each feasible node in order: its normalized score
/// and the pods counted in its domains, and whose pods those are.
pub struct SpreadScores {
    /// The ReplicaSet the system default constraints count the pods of; `None` for the pod's
    /// own constraints.
    pub owner: Option<String>,
    /// The default constraints: the ReplicaSet's pods on each node.
    pub pods: Vec<i64>,
    /// The pod's own constraints: what each constraint counted for the node, in words (`1 in
    /// its topology.kubernetes.io/zone domain`).
    pub counted: Vec<Vec<String>>,
    /// Each node's score after `NormalizeScore`.
    pub normalized: Vec<i64>,
    /// Nodes without every topology key the constraints name: they score 0.
    pub ignored: Vec<bool>,
}

impl SpreadScores {
    /// The score's reason in words for the feasible node at `j`.
    pub fn words(&self, j: usize) -> String {
        let here = self.pods.get(j).copied().unwrap_or(0);
        let score = self.normalized.get(j).copied().unwrap_or(0);
        match &self.owner {
            Some(owner) => format!(
                " + 2 × spread {score} (it runs {here} of {owner}'s pods; fewer scores higher, as the scheduler spreads a ReplicaSet over nodes)"
            ),
            None if self.ignored.get(j).copied().unwrap_or(false) => format!(
                " + 2 × spread {score} (the node lacks a topology key the pod's ScheduleAnyway constraints name)"
            ),
            None => format!(
                " + 2 × spread {score} (the pod's ScheduleAnyway constraints count {}; fewer scores higher)",
                self.counted
                    .get(j)
                    .map(|c| c.join(", "))
                    .unwrap_or_default()
            ),
        }
    }
}

/// Upstream's `NormalizeScore`: `100 × (max + min − score) / max` over the nodes not ignored,
/// 100 for all when every score is 0, and 0 for an ignored node.
fn normalize(raw: &[i64], ignored: &[bool]) -> Vec<i64> {
    let kept = || {
        raw.iter()
            .zip(ignored)
            .filter(|(_, i)| !**i)
            .map(|(s, _)| *s)
    };
    let (min, max) = (kept().min().unwrap_or(0), kept().max().unwrap_or(0));
    raw.iter()
        .zip(ignored)
        .map(|(&s, &ignore)| {
            if ignore {
                0
            } else if max == 0 {
                100
            } else {
                100 * (max + min - s) / max
            }
        })
        .collect()
}

/// `topologyNormalizingWeight`: `ln(domains + 2)`, from plain arithmetic.
fn weight(domains: usize) -> f64 {
    super::scheduler::ln_f64(domains as f64 + 2.0)
}

/// PodTopologySpread's scoring (`PreScore`, `Score`, `NormalizeScore`): with the pod's own
/// `ScheduleAnyway` constraints when it has constraints (none: no score), else the system
/// defaults. Each feasible node scores `Σ count × ln(domains + 2) + (maxSkew − 1)` over the
/// constraints whose key it has, rounded, then is normalized so the emptiest node gets 100.
pub fn scores(pod: &Pod, store: &Store, feasible: &[&Node]) -> Option<SpreadScores> {
    if feasible.is_empty() {
        return None;
    }
    if has_own_constraints(pod) {
        let soft: Vec<Constraint> = constraints(pod).into_iter().filter(|c| !c.hard).collect();
        if soft.is_empty() {
            return None;
        }
        return Some(own_scores(pod, store, feasible, &soft));
    }
    default_scores(pod, store, feasible)
}

/// Scoring with the pod's own soft constraints (`requireAllTopologies`: a feasible node
/// without every key is ignored). Zone-like keys count over every node that passes the
/// inclusion policies, into the domains the feasible nodes make; the hostname key counts on
/// the node itself.
fn own_scores(pod: &Pod, store: &Store, feasible: &[&Node], soft: &[Constraint]) -> SpreadScores {
    let ignored: Vec<bool> = feasible.iter().map(|n| !has_all_keys(n, soft)).collect();
    let kept = || {
        feasible
            .iter()
            .zip(&ignored)
            .filter(|(_, i)| !**i)
            .map(|(n, _)| *n)
    };
    let per_node = counted_per_node(store, soft);
    let weights: Vec<f64> = soft
        .iter()
        .map(|c| {
            if c.topology_key == HOSTNAME_LABEL {
                weight(kept().count())
            } else {
                weight(
                    kept()
                        .filter_map(|n| n.metadata.labels.get(&c.topology_key))
                        .collect::<BTreeSet<_>>()
                        .len(),
                )
            }
        })
        .collect();
    let mut pair_counts: Vec<BTreeMap<&str, i64>> = soft
        .iter()
        .map(|c| {
            kept()
                .filter_map(|n| n.metadata.labels.get(&c.topology_key))
                .map(|v| (v.as_str(), 0))
                .collect()
        })
        .collect();
    for node in store.nodes.values().filter(|n| has_all_keys(n, soft)) {
        for (i, c) in soft.iter().enumerate() {
            if c.topology_key == HOSTNAME_LABEL || !c.includes(pod, node) {
                continue;
            }
            let Some(value) = node.metadata.labels.get(&c.topology_key) else {
                continue;
            };
            if let Some(count) = pair_counts[i].get_mut(value.as_str()) {
                *count += per_node[i]
                    .get(node.metadata.name.as_str())
                    .copied()
                    .unwrap_or(0);
            }
        }
    }
    let mut counted_words = Vec::with_capacity(feasible.len());
    let raw: Vec<i64> = feasible
        .iter()
        .zip(&ignored)
        .map(|(n, &ignore)| {
            let mut score = 0.0;
            let mut counted = Vec::new();
            if !ignore {
                for (i, c) in soft.iter().enumerate() {
                    let Some(value) = n.metadata.labels.get(&c.topology_key) else {
                        continue;
                    };
                    let count = if c.topology_key == HOSTNAME_LABEL {
                        per_node[i]
                            .get(n.metadata.name.as_str())
                            .copied()
                            .unwrap_or(0)
                    } else {
                        pair_counts[i].get(value.as_str()).copied().unwrap_or(0)
                    };
                    counted.push(if c.topology_key == HOSTNAME_LABEL {
                        format!("{count} on the node")
                    } else {
                        format!("{count} in its {} domain", c.topology_key)
                    });
                    score += count as f64 * weights[i] + (c.max_skew - 1) as f64;
                }
            }
            counted_words.push(counted);
            score.round() as i64
        })
        .collect();
    SpreadScores {
        owner: None,
        pods: Vec::new(),
        counted: counted_words,
        normalized: normalize(&raw, &ignored),
        ignored,
    }
}

/// Scoring with the system default constraints (`kubernetes.io/hostname` maxSkew 3 and
/// `topology.kubernetes.io/zone` maxSkew 5, both ScheduleAnyway), which apply to a pod that
/// sets no constraints of its own and is selected by a ReplicaSet: they count the ReplicaSet's
/// pods that are bound and not being deleted (in the node for the hostname, in the zone over
/// every node the pod's node affinity allows for the zone). A node without a zone label just
/// skips the zone term (`requireAllTopologies` is off for the defaults).
fn default_scores(pod: &Pod, store: &Store, feasible: &[&Node]) -> Option<SpreadScores> {
    let owner = pod
        .metadata
        .controller_ref()
        .filter(|r| r.kind == "ReplicaSet")?;
    // The store's co-location index counts exactly these: the owner's pods on a node that
    // are neither being deleted nor finished.
    let on = |node: &str| i64::from(store.active_on_node(&owner.uid, node));
    let mut per_zone: BTreeMap<&str, i64> = BTreeMap::new();
    for n in store
        .nodes
        .values()
        .filter(|n| node_affinity_allows(pod, n))
    {
        if let Some(zone) = n.metadata.labels.get(ZONE_LABEL) {
            *per_zone.entry(zone.as_str()).or_default() += on(&n.metadata.name);
        }
    }
    // A feasible node without the zone label makes a domain of its own, the empty value
    // (`initPreScoreState` reads `node.Labels[key]`); it never gets the zone term itself.
    let zones: BTreeSet<&str> = feasible
        .iter()
        .map(|n| n.metadata.labels.get(ZONE_LABEL).map_or("", String::as_str))
        .collect();
    let host_weight = weight(feasible.len());
    let zone_weight = weight(zones.len());
    let pods: Vec<i64> = feasible.iter().map(|n| on(&n.metadata.name)).collect();
    let raw: Vec<i64> = feasible
        .iter()
        .zip(&pods)
        .map(|(n, &here)| {
            let mut score = here as f64 * host_weight + 2.0;
            if let Some(zone) = n.metadata.labels.get(ZONE_LABEL) {
                let in_zone = per_zone.get(zone.as_str()).copied().unwrap_or(0);
                score += in_zone as f64 * zone_weight + 4.0;
            }
            score.round() as i64
        })
        .collect();
    let ignored = vec![false; feasible.len()];
    Some(SpreadScores {
        owner: Some(owner.name.clone()),
        pods,
        counted: Vec::new(),
        normalized: normalize(&raw, &ignored),
        ignored,
    })
}
