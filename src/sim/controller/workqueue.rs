//! The rate limiting of the controllers' work queues (`client-go/util/workqueue`,
//! `DefaultControllerRateLimiter`) and what a controller's worker does with a key once its sync
//! returns (`processNextWorkItem`, `handleErr`): forget the key on success, requeue it after a
//! growing delay on failure, and give it up after `maxRetries` where the controller has one.

use super::Work;
use crate::sim::api::Time;
use std::collections::BTreeMap;

/// `ItemExponentialFailureRateLimiter`'s base delay: the first retry of a failed key comes 5 ms
/// after the failure.
pub const BASE_DELAY_MS: u64 = 5;
/// Its cap: no retry waits longer than 1000 s.
pub const MAX_DELAY_MS: u64 = 1_000_000;
/// The deployment controller's `maxRetries`: a key is requeued 15 times (5 ms … 82 s), then
/// dropped until the next event for it.
pub const DEPLOYMENT_MAX_RETRIES: u32 = 15;

/// The per-key failure counts of the controllers' queues (spec §2 item 3): a failed key waits
/// `5 ms × 2^n`, where `n` counts its failures since its last successful sync, capped at 1000 s.
///
/// Upstream's limiter is the larger of that and a token bucket shared by the whole queue (10 per
/// second, burst 100). The bucket is not modelled: it binds only once the queue as a whole has
/// been requeued more than a hundred times faster than ten a second, and then only for a key with
/// few failures of its own (a key that failed often waits longer on its exponential term: its
/// tenth failure already waits 2.56 s). The few ReplicaSets of one Deployment failing against a
/// pod quota stay far from that.
///
/// The keys are the queue items themselves (`SyncDeployment(name)` or `SyncReplicaSet(name)`), so
/// the two controllers' queues never share a count, as upstream's separate queues do not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RateLimiter {
    failures: BTreeMap<Work, u32>,
}

impl RateLimiter {
    /// `When`: the delay before the key's next try, counting this failure.
    pub fn when(&mut self, item: &Work) -> u64 {
        let n = self.failures.entry(item.clone()).or_insert(0);
        let exp = *n;
        *n = n.saturating_add(1);
        backoff_ms(exp)
    }

    /// `NumRequeues`: the key's failures since it was last forgotten.
    pub fn num_requeues(&self, item: &Work) -> u32 {
        self.failures.get(item).copied().unwrap_or(0)
    }

    /// `Forget`: the key's next failure waits the base delay again.
    pub fn forget(&mut self, item: &Work) {
        self.failures.remove(item);
    }
}

/// The controllers' side of upstream's rate-limiting queue: the per-key failure counts, and the
/// rate-limited requeue each key is waiting for.
///
/// Upstream's delaying queue keeps one waiting entry per key, apart from the keys that informer
/// events add at once: a second `AddAfter` for a key that is already waiting keeps the earlier
/// time. The simulator's queue drops a push only when the same work is pending no later, and an
/// informer's immediate push takes that place; so the waiting entry is kept here, and a retry
/// that would come after the one already waiting is not pushed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RateLimitedRequeues {
    limiter: RateLimiter,
    waiting: BTreeMap<Work, Time>,
}

impl RateLimitedRequeues {
    /// What the worker does after a sync of `item` at `now`: forget it on success; on failure,
    /// requeue it rate-limited (`AddRateLimited`), unless it has already been requeued
    /// `maxRetries` times, in which case it is forgotten and waits for the next event. Returns
    /// when the requeued sync is due, unless a requeue already waiting comes no later.
    ///
    /// The deployment controller's `handleErr` has `maxRetries = 15`; the ReplicaSet
    /// controller's `processNextWorkItem` has no limit, so a failing ReplicaSet keeps retrying,
    /// at most every 1000 s.
    pub fn after_sync(&mut self, item: &Work, failed: bool, now: Time) -> Option<Time> {
        // A waiting entry that has come due has been handed to the queue.
        if self.waiting.get(item).is_some_and(|due| *due <= now) {
            self.waiting.remove(item);
        }
        let max_retries = match item {
            Work::SyncDeployment(_) => Some(DEPLOYMENT_MAX_RETRIES),
            _ => None,
        };
        if !failed || max_retries.is_some_and(|max| self.limiter.num_requeues(item) >= max) {
            self.limiter.forget(item);
            return None;
        }
        let due = now.plus_millis(self.limiter.when(item));
        if self
            .waiting
            .get(item)
            .is_some_and(|waiting| *waiting <= due)
        {
            return None;
        }
        self.waiting.insert(item.clone(), due);
        Some(due)
    }
}

/// `5 ms × 2^exp`, capped at 1000 s (the cap also stands for upstream's overflow guard).
fn backoff_ms(exp: u32) -> u64 {
    1u64.checked_shl(exp)
        .and_then(|f| f.checked_mul(BASE_DELAY_MS))
        .map_or(MAX_DELAY_MS, |d| d.min(MAX_DELAY_MS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_from_five_milliseconds_to_the_cap() {
        let mut limiter = RateLimiter::default();
        let rs = Work::SyncReplicaSet("web-1".into());
        let delays: Vec<u64> = (0..22).map(|_| limiter.when(&rs)).collect();
        assert_eq!(&delays[..5], &[5, 10, 20, 40, 80]);
        assert_eq!(delays[14], 81_920);
        assert_eq!(delays[17], 655_360);
        assert_eq!(&delays[18..], &[MAX_DELAY_MS; 4]);
        limiter.forget(&rs);
        assert_eq!(limiter.when(&rs), 5);
    }

    /// Fails `item` at each retry it is given, `times` times, from `start`; returns each
    /// retry's delay (`None` once it is given up).
    fn fail_at_each_retry(
        q: &mut RateLimitedRequeues,
        item: &Work,
        start: Time,
        times: usize,
    ) -> Vec<Option<u64>> {
        let mut now = start;
        (0..times)
            .map(|_| {
                let due = q.after_sync(item, true, now)?;
                let delay = due.millis_since(now);
                now = due;
                Some(delay)
            })
            .collect()
    }

    #[test]
    fn a_deployment_is_dropped_after_fifteen_retries_and_a_replica_set_never() {
        let mut q = RateLimitedRequeues::default();
        let d = Work::SyncDeployment("web".into());
        let requeues = fail_at_each_retry(&mut q, &d, Time::ZERO, 16);
        assert_eq!(requeues[0], Some(5));
        assert_eq!(requeues[14], Some(81_920));
        assert_eq!(requeues[15], None, "the 16th failure gives the key up");
        // Given up means forgotten: the next event's failure starts over.
        assert_eq!(
            q.after_sync(&d, true, Time(1_000_000)),
            Some(Time(1_000_005))
        );
        let rs = Work::SyncReplicaSet("web-1".into());
        let requeues = fail_at_each_retry(&mut q, &rs, Time::ZERO, 40);
        assert!(requeues.iter().all(Option::is_some), "{requeues:?}");
        assert_eq!(requeues[39], Some(MAX_DELAY_MS));
    }

    #[test]
    fn a_success_forgets_and_a_later_retry_never_replaces_an_earlier_one() {
        let mut q = RateLimitedRequeues::default();
        let rs = Work::SyncReplicaSet("web-1".into());
        let t0 = Time(1000);
        assert_eq!(q.after_sync(&rs, true, t0), Some(Time(1005)));
        // Informer events sync the ReplicaSet again at once; their failures count, but the
        // retry already waiting for 1005 stays the next one.
        assert_eq!(q.after_sync(&rs, true, t0), None);
        assert_eq!(q.after_sync(&rs, true, t0), None);
        // The waiting retry runs and fails for the fourth time: 5 ms × 2³.
        assert_eq!(q.after_sync(&rs, true, Time(1005)), Some(Time(1045)));
        // A success forgets the count; the next failure waits 5 ms again, which is sooner than
        // the retry still waiting.
        assert_eq!(q.after_sync(&rs, false, Time(1010)), None);
        assert_eq!(q.after_sync(&rs, true, Time(1020)), Some(Time(1025)));
    }
}
