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
/// Upstream's limiter is the larger of that and a token bucket shared by the whole queue
/// ([`TokenBucket`]), which [`RateLimitedRequeues`] keeps beside it.
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

/// `DefaultControllerRateLimiter`'s `BucketRateLimiter` (`golang.org/x/time/rate`): a bucket of
/// 100 tokens, refilled at 10 a second and full at the start, shared by every key of one queue.
/// Each rate-limited requeue takes a token; once the bucket is empty a requeue waits for the
/// next one. It binds where one key is requeued in a hot loop: a Deployment within the last
/// second of its progress deadline is requeued at once after every sync, 5 ms apart for its
/// first hundred syncs and then ten a second.
///
/// Counted in thousandths of a token, so the refill (ten thousandths a millisecond) and the wait
/// for a token come out whole in milliseconds, as they do upstream for these rates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenBucket {
    /// Thousandths of a token held; below zero while requeues are waiting for tokens.
    milli_tokens: i64,
    /// When the bucket was last drawn on.
    last: Time,
}

/// The bucket's size, 100 tokens.
const BURST_MILLI_TOKENS: i64 = 100_000;
/// Its refill, 10 tokens a second.
const MILLI_TOKENS_PER_MS: i64 = 10;

impl Default for TokenBucket {
    fn default() -> Self {
        TokenBucket {
            milli_tokens: BURST_MILLI_TOKENS,
            last: Time::ZERO,
        }
    }
}

impl TokenBucket {
    /// `Reserve().Delay()`: takes a token at `now` and says how many milliseconds until it is
    /// there (0 while the bucket holds one).
    pub fn reserve(&mut self, now: Time) -> u64 {
        let elapsed = i64::try_from(now.millis_since(self.last)).unwrap_or(i64::MAX);
        let refill = elapsed.saturating_mul(MILLI_TOKENS_PER_MS);
        self.milli_tokens = self
            .milli_tokens
            .saturating_add(refill)
            .min(BURST_MILLI_TOKENS)
            - 1000;
        self.last = self.last.max(now);
        u64::try_from(-self.milli_tokens / MILLI_TOKENS_PER_MS).unwrap_or(0)
    }
}

/// The controllers' side of upstream's rate-limiting queue: the per-key failure counts, each
/// queue's token bucket, and the rate-limited requeue each key is waiting for.
///
/// Upstream's delaying queue keeps one waiting entry per key, apart from the keys that informer
/// events add at once: a second `AddAfter` for a key that is already waiting keeps the earlier
/// time. The simulator's queue drops a push only when the same work is pending no later, and an
/// informer's immediate push takes that place; so the waiting entry is kept here, and a retry
/// that would come after the one already waiting is not pushed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RateLimitedRequeues {
    limiter: RateLimiter,
    /// The deployment controller's queue's bucket.
    deployments: TokenBucket,
    /// The ReplicaSet controller's queue's bucket.
    replica_sets: TokenBucket,
    waiting: BTreeMap<Work, Time>,
}

impl RateLimitedRequeues {
    /// What the worker does after a sync of `item` at `now`: forget it on success; on failure,
    /// requeue it rate-limited (`AddRateLimited`), unless it has already been requeued
    /// `maxRetries` times, in which case it is forgotten and waits for the next event. A
    /// successful sync that asked for its key back through the rate limiter (`rate_limited`:
    /// `enqueueRateLimited`) is requeued the same way and then forgotten, so its next request
    /// waits the base delay again. Returns when the requeued sync is due, unless a requeue
    /// already waiting comes no later.
    ///
    /// The deployment controller's `handleErr` has `maxRetries = 15`; the ReplicaSet
    /// controller's `processNextWorkItem` has no limit, so a failing ReplicaSet keeps retrying,
    /// at most every 1000 s.
    pub fn after_sync(
        &mut self,
        item: &Work,
        failed: bool,
        rate_limited: bool,
        now: Time,
    ) -> Option<Time> {
        // A waiting entry that has come due has been handed to the queue.
        if self.waiting.get(item).is_some_and(|due| *due <= now) {
            self.waiting.remove(item);
        }
        let max_retries = match item {
            Work::SyncDeployment(_) => Some(DEPLOYMENT_MAX_RETRIES),
            _ => None,
        };
        let given_up =
            failed && max_retries.is_some_and(|max| self.limiter.num_requeues(item) >= max);
        if given_up || !(failed || rate_limited) {
            self.limiter.forget(item);
            return None;
        }
        // `MaxOfRateLimiter`: both limiters are asked, so the bucket gives up a token even
        // when the key's own back-off is the longer wait.
        let bucket = match item {
            Work::SyncDeployment(_) => &mut self.deployments,
            _ => &mut self.replica_sets,
        };
        let delay = self.limiter.when(item).max(bucket.reserve(now));
        if !failed {
            self.limiter.forget(item);
        }
        let due = now.plus_millis(delay);
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
                let due = q.after_sync(item, true, false, now)?;
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
            q.after_sync(&d, true, false, Time(1_000_000)),
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
        assert_eq!(q.after_sync(&rs, true, false, t0), Some(Time(1005)));
        // Informer events sync the ReplicaSet again at once; their failures count, but the
        // retry already waiting for 1005 stays the next one.
        assert_eq!(q.after_sync(&rs, true, false, t0), None);
        assert_eq!(q.after_sync(&rs, true, false, t0), None);
        // The waiting retry runs and fails for the fourth time: 5 ms × 2³.
        assert_eq!(q.after_sync(&rs, true, false, Time(1005)), Some(Time(1045)));
        // A success forgets the count; the next failure waits 5 ms again, which is sooner than
        // the retry still waiting.
        assert_eq!(q.after_sync(&rs, false, false, Time(1010)), None);
        assert_eq!(q.after_sync(&rs, true, false, Time(1020)), Some(Time(1025)));
    }

    /// The bucket starts full (100 tokens), gives them at once, then one every 100 ms; it
    /// refills ten a second up to its size.
    #[test]
    fn the_token_bucket_gives_a_burst_of_a_hundred_then_ten_a_second() {
        let mut bucket = TokenBucket::default();
        let t = Time(5_000);
        let burst: Vec<u64> = (0..100).map(|_| bucket.reserve(t)).collect();
        assert!(burst.iter().all(|d| *d == 0), "{burst:?}");
        assert_eq!(bucket.reserve(t), 100);
        assert_eq!(bucket.reserve(t), 200);
        // 300 ms later the two tokens owed are paid and a third has come: no wait, and the
        // next one takes another 100 ms.
        assert_eq!(bucket.reserve(Time(5_300)), 0);
        assert_eq!(bucket.reserve(Time(5_300)), 100);
        // A long pause fills it again, but no further than its size.
        let later = Time(1_000_000);
        let burst: Vec<u64> = (0..100).map(|_| bucket.reserve(later)).collect();
        assert!(burst.iter().all(|d| *d == 0), "{burst:?}");
        assert_eq!(bucket.reserve(later), 100);
    }

    /// A successful sync that asks for its key back through the rate limiter (the deployment
    /// controller in the last second of a progress deadline) is due 5 ms later each time, as
    /// its failures are forgotten after every sync, until the queue's bucket runs dry; then
    /// ten times a second.
    #[test]
    fn a_hot_loop_of_rate_limited_requeues_runs_into_the_bucket() {
        let mut q = RateLimitedRequeues::default();
        let d = Work::SyncDeployment("web".into());
        let mut now = Time(60_000);
        let mut delays = Vec::new();
        for _ in 0..120 {
            let due = q
                .after_sync(&d, false, true, now)
                .expect("a rate-limited requeue is always due");
            delays.push(due.millis_since(now));
            now = due;
        }
        let fast = delays.iter().take_while(|d| **d == 5).count();
        // 5 ms apart, the bucket regains a twentieth of a token per sync: 105 syncs empty it.
        assert_eq!(fast, 105, "{delays:?}");
        // The next waits for the rest of a token (75 ms), and every one after for a whole one.
        assert_eq!(delays[fast], 75, "{delays:?}");
        assert!(delays[fast + 1..].iter().all(|d| *d == 100), "{delays:?}");
        // The ReplicaSet controller's queue has a bucket of its own.
        let rs = Work::SyncReplicaSet("web-1".into());
        assert_eq!(
            q.after_sync(&rs, true, false, now),
            Some(now.plus_millis(5))
        );
    }
}
