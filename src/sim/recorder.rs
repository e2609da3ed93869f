//! The event recorder's aggregation: what client-go's `EventAggregator`
//! (`tools/record/events_cache.go`, `EventAggregate` with `EventAggregatorByReasonFunc`) does to
//! an event before it reaches the API server. When one component has sent more than nine
//! differently worded events of the same type and reason about the same object, each within ten
//! minutes of the one before, the next ones are sent as one combined event, `(combined from
//! similar events): <message>`, whose count grows. This is why a real cluster shows the last of
//! a rollout's `ScalingReplicaSet` events, or the tenth `SuccessfulCreate` of a ReplicaSet, in
//! that form.
//!
//! The scheduler is left out: it records through the `events.k8s.io` API, which has no
//! aggregation. Two details are made deterministic where client-go's are not: when the set of
//! remembered wordings is full, the one that sorts first is forgotten (client-go pops an
//! arbitrary one), and records are never evicted (client-go keeps the 4,096 most recently used,
//! far more than a simulated cluster has objects).

use super::api::{Event, Time};
use super::controller::scheduler;
use super::fingerprint;
use imbl::OrdMap;

/// The prefix client-go's `EventAggregatorByReasonMessageFunc` puts on a combined event.
pub const COMBINED_PREFIX: &str = "(combined from similar events): ";

/// `defaultAggregateMaxEvents`: the number of distinct wordings at which events combine.
const MAX_EVENTS: usize = 10;

/// `defaultAggregateIntervalInSeconds`: a record older than this starts over.
const MAX_INTERVAL_MS: u64 = 600_000;

/// The aggregation state of every recorder, by aggregation key. Keys and wordings are kept as
/// fixed 64-bit fingerprints, so that recording an event costs a few integer comparisons; the
/// state is persistent, so a snapshot of the simulator shares it.
#[derive(Clone, Debug, Default)]
pub struct EventAggregator {
    records: OrdMap<u64, AggregateRecord>,
}

/// `aggregateRecord`: the wordings seen (at most nine once full) and when the last event came.
#[derive(Clone, Debug)]
struct AggregateRecord {
    /// Fingerprints of the messages, sorted.
    local_keys: Vec<u64>,
    last: Time,
}

impl EventAggregator {
    /// Passes `event`, emitted at `now`, through the aggregation, turning it into the combined
    /// event when its record is full.
    pub fn aggregate(&mut self, event: &mut Event, now: Time) {
        if event.source == scheduler::COMPONENT {
            return;
        }
        // `EventAggregatorByReasonFunc`: source, object, type and reason; not the field path
        // and not the message.
        let key = fingerprint::of(&(
            &event.source,
            &event.involved_object.kind,
            &event.involved_object.name,
            event.type_.as_str(),
            event.reason.as_str(),
        ));
        let local = fingerprint::of(&event.message);
        let record = self.records.entry(key).or_insert_with(|| AggregateRecord {
            local_keys: Vec::new(),
            last: now,
        });
        if now.millis_since(record.last) > MAX_INTERVAL_MS {
            record.local_keys.clear();
        }
        if let Err(at) = record.local_keys.binary_search(&local) {
            record.local_keys.insert(at, local);
        }
        record.last = now;
        if record.local_keys.len() < MAX_EVENTS {
            return;
        }
        record.local_keys.remove(0);
        event.message.insert_str(0, COMBINED_PREFIX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::api::{EventReason, ObjectRef};

    fn scaled(to: u32) -> Event {
        Event::normal(
            "deployment-controller",
            ObjectRef::new("Deployment", "web"),
            EventReason::ScalingReplicaSet,
            format!("Scaled up replica set web-1 from {} to {to}", to - 1),
        )
    }

    fn messages(events: &[Event]) -> Vec<&str> {
        events.iter().map(|e| e.message.as_str()).collect()
    }

    #[test]
    fn the_tenth_distinct_wording_is_combined_and_so_are_the_next() {
        let mut agg = EventAggregator::default();
        let mut events: Vec<Event> = (1..=12).map(scaled).collect();
        for (i, e) in events.iter_mut().enumerate() {
            agg.aggregate(e, Time::from_secs(i as u64));
        }
        let m = messages(&events);
        assert_eq!(m[8], "Scaled up replica set web-1 from 8 to 9");
        assert_eq!(
            m[9],
            "(combined from similar events): Scaled up replica set web-1 from 9 to 10"
        );
        assert_eq!(
            m[11],
            "(combined from similar events): Scaled up replica set web-1 from 11 to 12"
        );
    }

    #[test]
    fn a_repeated_wording_is_not_a_new_one() {
        let mut agg = EventAggregator::default();
        for i in 0..20 {
            let mut e = scaled(2);
            agg.aggregate(&mut e, Time::from_secs(i));
            assert!(!e.message.starts_with(COMBINED_PREFIX), "{i}");
        }
    }

    #[test]
    fn ten_minutes_of_quiet_start_the_record_over() {
        let nine = |agg: &mut EventAggregator| {
            for i in 1..=9 {
                agg.aggregate(&mut scaled(i), Time::from_secs(u64::from(i)));
            }
        };
        let mut agg = EventAggregator::default();
        nine(&mut agg);
        let mut within = scaled(10);
        agg.aggregate(&mut within, Time::from_secs(9 + 600));
        assert!(within.message.starts_with(COMBINED_PREFIX));
        let mut agg = EventAggregator::default();
        nine(&mut agg);
        let mut late = scaled(10);
        agg.aggregate(&mut late, Time::from_secs(9 + 601));
        assert!(!late.message.starts_with(COMBINED_PREFIX));
    }

    #[test]
    fn other_objects_reasons_and_the_scheduler_keep_their_own_count() {
        let mut agg = EventAggregator::default();
        for i in 1..=9 {
            agg.aggregate(&mut scaled(i), Time::from_secs(1));
        }
        let mut other = scaled(10);
        other.involved_object.name = "api".to_string();
        agg.aggregate(&mut other, Time::from_secs(1));
        assert!(!other.message.starts_with(COMBINED_PREFIX));
        for i in 0..12 {
            let mut e = Event::warning(
                scheduler::COMPONENT,
                ObjectRef::new("Pod", "web-1-a"),
                EventReason::FailedScheduling,
                format!("0/{i} nodes are available"),
            );
            agg.aggregate(&mut e, Time::from_secs(1));
            assert!(!e.message.starts_with(COMBINED_PREFIX));
        }
    }
}
