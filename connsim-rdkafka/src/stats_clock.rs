//! When a client hands its statistics to its context: every `statistics.interval.ms`, from
//! the calls that serve its events (a consumer's poll, a producer's poll, flush or send), as
//! librdkafka's `stats_cb` is served.

use std::sync::Mutex;
use std::time::Duration;

/// A client's statistics schedule.
pub(crate) struct StatsClock {
    interval: Duration,
    started: madsim::time::Instant,
    next: Mutex<Option<madsim::time::Instant>>,
}

impl StatsClock {
    /// Statistics every `interval` (none for zero, librdkafka's default).
    pub(crate) fn new(interval: Duration) -> StatsClock {
        let started = madsim::time::Instant::now();
        let next = (!interval.is_zero()).then(|| started + interval);
        StatsClock { interval, started, next: Mutex::new(next) }
    }

    /// Whether statistics are due now (then the next are one interval later).
    pub(crate) fn due(&self) -> bool {
        let mut next = self.next.lock().unwrap();
        let now = madsim::time::Instant::now();
        match *next {
            Some(at) if now >= at => {
                *next = Some(now + self.interval);
                true
            }
            _ => false,
        }
    }

    /// Microseconds since the client was created.
    pub(crate) fn age_us(&self) -> i64 {
        self.started.elapsed().as_micros() as i64
    }
}

/// Microseconds since the epoch on the simulation's wall clock.
pub(crate) fn now_us() -> i64 {
    let now = madsim::time::TimeHandle::current().now_time();
    now.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64)
}
