//! The enumerator's callables (`EnumeratorContext::call_async`): each runs as a task of the
//! job-master node, and its results come back to the coordinator's loop tagged with the
//! enumerator generation that started it, so a replaced enumerator's results are dropped.

use super::JobMaster;
use crate::api::{AsyncCall, AsyncResult, Sink, Source};
use crate::cluster::protocol::JOB_MASTER;
use crate::history::EventKind;

/// A callable's result on its way to the coordinator's loop: the enumerator generation that
/// started it and, for a periodic call, how many of its results the loop has handled (bumped
/// there, read by the call before its next round).
pub(super) struct Called {
    pub generation: u64,
    pub result: AsyncResult,
    pub handled: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
}

impl<Src: Source, Snk: Sink> JobMaster<Src, Snk> {
    /// Starts the callables the enumerator asked for, each as a task of its own. A periodic
    /// one runs at a fixed rate, as Flink's `scheduleAtFixedRate`: every `interval` from its
    /// start, never two at once; a round that takes longer delays the next, which then starts
    /// as soon as it ends, before the enumerator has handled the previous result (recorded
    /// as [`EventKind::PeriodicCallOverlapped`]: two discovery rounds overlap).
    pub(super) fn start_calls(&mut self) {
        for call in std::mem::take(&mut self.coordinator.ctx.calls) {
            let (results, generation) = (self.coordinator.call_results.clone(), self.coordinator.generation);
            let ambient = self.endpoint.clone();
            let task = match call {
                AsyncCall::Once(callable) => {
                    madsim::task::spawn(crate::net::ambient::scope(ambient.clone(), async move {
                        let _ = results.send(Called { generation, result: callable.await, handled: None });
                    }))
                }
                AsyncCall::Periodic(interval, make) => {
                    let history = self.history.clone();
                    madsim::task::spawn(crate::net::ambient::scope(ambient, async move {
                        let handled = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
                        let (mut due, mut sent) = (madsim::time::Instant::now() + interval, 0);
                        loop {
                            // A late round starts at once (a sleep would take at least 1 ms).
                            if madsim::time::Instant::now() < due {
                                madsim::time::sleep_until(due).await;
                            }
                            let unhandled = sent - handled.load(std::sync::atomic::Ordering::Relaxed);
                            if unhandled > 0 {
                                let interval_ms = interval.as_millis() as u64;
                                history
                                    .record(JOB_MASTER, EventKind::PeriodicCallOverlapped { interval_ms, unhandled });
                            }
                            let result = make().await;
                            sent += 1;
                            if results.send(Called { generation, result, handled: Some(handled.clone()) }).is_err() {
                                return;
                            }
                            due += interval;
                        }
                    }))
                }
            };
            self.coordinator.calls.push(task);
        }
        self.coordinator.calls.retain(|t| !t.is_finished());
    }

    /// Stops every callable of the current enumerator (it is being replaced).
    pub(super) fn stop_calls(&mut self) {
        for task in self.coordinator.calls.drain(..) {
            task.abort();
        }
        self.coordinator.generation += 1;
    }
}
