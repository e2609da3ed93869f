//! The event recorder's aggregation: what client-go's `EventAggregator`
//! (`tools/record/events_cache.go`, `EventAggregate` with `EventAggregatorByReasonFunc`) does to
//! an event before it reaches the API server. When one component has sent more than nine
//! differently worded events of the same type and reason about the same object, each within ten
//! minutes of the one before, the next ones are sent as one combined event, `(combined from
//! similar events): <message>`, whose count grows. This is why a real cluster shows the last of
//! a rollout's `ScalingReplicaSet` events, or the tenth `SuccessfulCreate` of a ReplicaSet, in
//! that form.
//!
//! Then the recorder's spam filter (`EventSourceObjectSpamFilter`): each component may send 25
//! events about one object at once and one more every five minutes after that (a token bucket
//! keyed by source and object, `defaultSpamBurst` 25, `defaultSpamQPS` 1/300). An event over
//! that rate is dropped; it was still counted, so the next one that gets through carries the
//! count of every repeat, dropped ones included. A crash-looping pod's events therefore stop
//! arriving after a few minutes in a real cluster, and then come about every five minutes with
//! a count that has jumped.
//!
//! The scheduler is left out: it records through the `events.k8s.io` API, which has neither
//! aggregation nor this filter; its repeats become that API's event series instead
//! (`kubectl::series_records`). Two details are made deterministic where client-go's are not: when the set of
//! remembered wordings is full, the one that sorts first is forgotten (client-go pops an
//! arbitrary one), and records are never evicted (client-go keeps the 4,096 most recently used,
//! far more than a simulated cluster has objects).

use super::api::{Event, EventReason, EventType, Time};
use super::controller::scheduler;
use super::fingerprint;
use imbl::OrdMap;

/// The prefix client-go's `EventAggregatorByReasonMessageFunc` puts on a combined event.
pub const COMBINED_PREFIX: &str = "(combined from similar events): ";

/// `defaultAggregateMaxEvents`: the number of distinct wordings at which events combine.
const MAX_EVENTS: usize = 10;

/// `defaultAggregateIntervalInSeconds`: a record older than this starts over.
const MAX_INTERVAL_MS: u64 = 600_000;

/// `defaultSpamQPS` (1/300): one token of the spam filter's bucket comes back every 300 s, so
/// the bucket is kept in milliseconds of refill, a token being worth this many.
const SPAM_TOKEN_MS: u64 = 300_000;

/// `defaultSpamBurst`: the bucket holds 25 tokens and starts full.
const SPAM_BURST_MS: u64 = 25 * SPAM_TOKEN_MS;

/// The aggregation state of every recorder, by aggregation key. Keys and wordings are kept as
/// fixed 64-bit fingerprints, so that recording an event costs a few integer comparisons; the
/// state is persistent, so a snapshot of the simulator shares it.
#[derive(Clone, Debug, Default)]
pub struct EventAggregator {
    /// By source and object (the spam filter's key; the aggregation key adds type and reason).
    objects: OrdMap<u64, ObjectRecords>,
}

/// What one recorder remembers about one object: its spam-filter bucket and the aggregation
/// record of each type and reason of event it has sent about it.
#[derive(Clone, Debug)]
struct ObjectRecords {
    /// The bucket's refill in milliseconds, and when it was last drawn on.
    credit: u64,
    last_drawn: Time,
    /// By event type and reason.
    by_reason: Vec<((EventType, EventReason), AggregateRecord)>,
}

/// `aggregateRecord`: the wordings seen (at most nine once full) and when the last event came.
#[derive(Clone, Debug)]
struct AggregateRecord {
    /// Fingerprints of the messages, sorted.
    local_keys: LocalKeys,
    last: Time,
}

/// A record's set of wordings: sorted fingerprints, kept inline. Every object a component emits
/// about starts a record for each reason, and a vector would allocate for its first wording
/// (one allocation per event, in a rollout where most objects are new pods); a record never
/// holds more than `MAX_EVENTS` of them, since it drops one on reaching that many.
#[derive(Clone, Debug)]
struct LocalKeys {
    keys: [u64; MAX_EVENTS],
    len: usize,
}

impl LocalKeys {
    const EMPTY: LocalKeys = LocalKeys {
        keys: [0; MAX_EVENTS],
        len: 0,
    };

    fn len(&self) -> usize {
        self.len
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    /// Adds `key` in its place, unless it is there already (or, which the record's limit rules
    /// out, the set is full).
    fn insert(&mut self, key: u64) {
        let held = self.keys.get(..self.len).unwrap_or(&[]);
        if let Err(at) = held.binary_search(&key)
            && self.len < MAX_EVENTS
        {
            self.keys.copy_within(at..self.len, at + 1);
            if let Some(slot) = self.keys.get_mut(at) {
                *slot = key;
            }
            self.len += 1;
        }
    }

    /// Drops the least key.
    fn remove_first(&mut self) {
        if self.len > 0 {
            self.keys.copy_within(1..self.len, 0);
            self.len -= 1;
        }
    }
}

impl EventAggregator {
    /// Passes `event`, emitted at `now`, through the recorder (`EventCorrelate`): aggregation,
    /// which may turn it into the combined event, then the spam filter, which may mark it
    /// dropped. Both key on the source and the object (not its field path), looked up once.
    pub fn record(&mut self, event: &mut Event, now: Time) {
        if event.source == scheduler::COMPONENT {
            return;
        }
        let key = fingerprint::of(&(
            &event.source,
            event.run,
            &event.involved_object.kind,
            &event.involved_object.name,
        ));
        let object = self.objects.entry(key).or_insert_with(|| ObjectRecords {
            credit: SPAM_BURST_MS,
            last_drawn: now,
            by_reason: Vec::new(),
        });
        aggregate(object, event, now);
        event.dropped = !spam_filter_accepts(object, now);
    }
}

/// `EventAggregate` (`EventAggregatorByReasonFunc`: source, object, type and reason; not the
/// field path and not the message): turns `event` into the combined event when its record is
/// full.
fn aggregate(object: &mut ObjectRecords, event: &mut Event, now: Time) {
    let reason = (event.type_, event.reason);
    let at = match object.by_reason.iter().position(|(r, _)| *r == reason) {
        Some(at) => at,
        None => {
            object.by_reason.push((
                reason,
                AggregateRecord {
                    local_keys: LocalKeys::EMPTY,
                    last: now,
                },
            ));
            object.by_reason.len() - 1
        }
    };
    let Some((_, record)) = object.by_reason.get_mut(at) else {
        return;
    };
    if now.millis_since(record.last) > MAX_INTERVAL_MS {
        record.local_keys.clear();
    }
    let local = fingerprint::of(&event.message);
    record.local_keys.insert(local);
    record.last = now;
    if record.local_keys.len() < MAX_EVENTS {
        return;
    }
    record.local_keys.remove_first();
    event.message.insert_str(0, COMBINED_PREFIX);
}

/// `EventSourceObjectSpamFilter.Filter`: whether the object's bucket has a token
/// (`rate.Limiter.AllowN`, which refills continuously up to the burst), taking it if so.
fn spam_filter_accepts(object: &mut ObjectRecords, now: Time) -> bool {
    object.credit = object
        .credit
        .saturating_add(now.millis_since(object.last_drawn))
        .min(SPAM_BURST_MS);
    object.last_drawn = now;
    if object.credit < SPAM_TOKEN_MS {
        return false;
    }
    object.credit -= SPAM_TOKEN_MS;
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::api::ObjectRef;

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
            agg.record(e, Time::from_secs(i as u64));
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
            agg.record(&mut e, Time::from_secs(i));
            assert!(!e.message.starts_with(COMBINED_PREFIX), "{i}");
        }
    }

    #[test]
    fn ten_minutes_of_quiet_start_the_record_over() {
        let nine = |agg: &mut EventAggregator| {
            for i in 1..=9 {
                agg.record(&mut scaled(i), Time::from_secs(u64::from(i)));
            }
        };
        let mut agg = EventAggregator::default();
        nine(&mut agg);
        let mut within = scaled(10);
        agg.record(&mut within, Time::from_secs(9 + 600));
        assert!(within.message.starts_with(COMBINED_PREFIX));
        let mut agg = EventAggregator::default();
        nine(&mut agg);
        let mut late = scaled(10);
        agg.record(&mut late, Time::from_secs(9 + 601));
        assert!(!late.message.starts_with(COMBINED_PREFIX));
    }

    #[test]
    fn the_spam_filter_lets_25_through_then_one_every_five_minutes() {
        let mut agg = EventAggregator::default();
        let mut sent = Vec::new();
        // An Unhealthy event every 10 s about one pod, the same wording each time.
        for i in 0..100u64 {
            let mut e = Event::warning(
                "kubelet, node-1",
                ObjectRef::new("Pod", "web-1-a"),
                EventReason::Unhealthy,
                "Readiness probe failed".to_string(),
            );
            agg.record(&mut e, Time::from_secs(i * 10));
            if !e.dropped {
                sent.push(i * 10);
            }
        }
        // The bucket refills from the start: a token is back by 300 s, and every 300 s after.
        assert_eq!(sent.len(), 25 + 3, "{sent:?}");
        assert_eq!(sent[24], 240);
        assert_eq!(&sent[25..], [300, 600, 900]);
    }

    #[test]
    fn other_objects_reasons_and_the_scheduler_keep_their_own_count() {
        let mut agg = EventAggregator::default();
        for i in 1..=9 {
            agg.record(&mut scaled(i), Time::from_secs(1));
        }
        let mut other = scaled(10);
        other.involved_object.name = "api".to_string();
        agg.record(&mut other, Time::from_secs(1));
        assert!(!other.message.starts_with(COMBINED_PREFIX));
        for i in 0..12 {
            let mut e = Event::warning(
                scheduler::COMPONENT,
                ObjectRef::new("Pod", "web-1-a"),
                EventReason::FailedScheduling,
                format!("0/{i} nodes are available"),
            );
            agg.record(&mut e, Time::from_secs(1));
            assert!(!e.message.starts_with(COMBINED_PREFIX));
        }
    }
}
