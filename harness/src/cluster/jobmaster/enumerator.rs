//! The enumerator's start, off the coordinator's loop when it has to be retried.
//!
//! The first try of a start is awaited where the enumerator is created or restored. When it
//! fails with a retriable error, the enumerator and its context move into a task of their own
//! beside the loop (wait 20 ms, try again, until it starts or fails for good), and the loop
//! goes on: heartbeats, failures, deployments and failovers are handled meanwhile. What
//! readers ask while the enumerator is away (registrations, split requests, source events)
//! waits in order and reaches it once it started, as events wait behind the enumerator in
//! Flink's source-coordinator executor. No checkpoint is triggered before it started (the
//! first tick after does). A global failover aborts the retry; the enumerator is dropped
//! unclosed (it never started; the simulator drops it as it drops the aborted task), or closed
//! if its last try had just started it.
//!
//! A replaced attempt's requests are dropped twice over, on purpose: when its subtask fails
//! over (`Starting::forget`) and, should one slip through, when they are handed over (the
//! attempt check in `on_started`).

use super::JobMaster;
use crate::api::{EnumeratorContext, Sink, Source, SplitEnumerator};
use crate::cluster::protocol::JOB_MASTER;
use crate::error::{ConnectorError, RetryHint};
use crate::history::{EventKind, History};
use crate::net::Endpoint;
use std::time::Duration;
use tokio::sync::oneshot;

/// How long a retried start waits before its next attempt.
const RETRY_EVERY: Duration = Duration::from_millis(20);

/// What the retry hands back: the enumerator, its context, and how its last attempt ended.
pub(super) struct Started<Src: Source> {
    enumerator: Src::Enumerator,
    ctx: EnumeratorContext<Src::Split>,
    result: Result<(), ConnectorError>,
}

/// A reader's request that came while the enumerator's start was retried, with the attempt
/// that sent it.
enum Deferred {
    Register,
    SplitRequest,
    SourceEvent(Vec<u8>),
}

/// A start being retried beside the loop (a task of the job-master node, aborted when this
/// is dropped), and what waits for it.
pub(super) struct Starting<Src: Source> {
    task: madsim::task::JoinHandle<()>,
    started: oneshot::Receiver<Started<Src>>,
    deferred: Vec<(usize, u64, Deferred)>,
}

impl<Src: Source> Drop for Starting<Src> {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl<Src: Source> Starting<Src> {
    /// Tries `enumerator`'s start again [`RETRY_EVERY`] after each failed try until it starts
    /// or fails for good; `failed` tries failed so far.
    fn new(
        mut enumerator: Src::Enumerator,
        mut ctx: EnumeratorContext<Src::Split>,
        endpoint: Endpoint,
        history: History,
        failed: u32,
    ) -> Self {
        let (tx, started) = oneshot::channel();
        // Clients the enumerator builds without the context send from the job master.
        let retry = crate::net::ambient::scope(endpoint, async move {
            let mut tries = failed;
            loop {
                madsim::time::sleep(RETRY_EVERY).await;
                tries += 1;
                match enumerator.start(&mut ctx).await {
                    Err(e) if e.hint == RetryHint::Retry => {
                        history.record(JOB_MASTER, EventKind::EnumeratorStartFailed { tries, error: e.message });
                    }
                    result => {
                        if result.is_ok() {
                            history.record(JOB_MASTER, EventKind::EnumeratorStarted { tries });
                        }
                        let _ = tx.send(Started { enumerator, ctx, result });
                        return;
                    }
                }
            }
        });
        Starting { task: madsim::task::spawn(retry), started, deferred: Vec::new() }
    }

    /// The enumerator, when its last try has just started it and the loop has not yet taken
    /// it back: a global failover closes it before dropping the rest.
    pub(super) fn started_unseen(&mut self) -> Option<Src::Enumerator> {
        match self.started.try_recv() {
            Ok(Started { enumerator, result: Ok(()), .. }) => Some(enumerator),
            _ => None,
        }
    }

    /// Drops what `subtask`'s failed attempts asked: the enumerator never saw them, and the
    /// subtask's next attempt registers anew.
    pub(super) fn forget(&mut self, subtask: usize) {
        self.deferred.retain(|(s, _, _)| *s != subtask);
    }
}

/// The retry's outcome, when one runs; never ready otherwise (a branch of the loop's select).
pub(super) async fn retried<Src: Source>(starting: &mut Option<Starting<Src>>) -> Started<Src> {
    match starting {
        Some(Starting { started, .. }) => match started.await {
            Ok(started) => started,
            // Aborting drops this receiver too, and a panic or a crash ends the loop as well.
            Err(_) => unreachable!("the enumerator's start task ended without a result"),
        },
        None => std::future::pending().await,
    }
}

impl<Src: Source, Snk: Sink> JobMaster<Src, Snk> {
    /// Starts the enumerator just created or restored: the first try here, the others beside
    /// the loop.
    pub(super) async fn start_enumerator(&mut self) {
        let (enumerator, ctx) = self.coordinator.enumerator_mut().expect("a new enumerator is in place");
        match enumerator.start(ctx).await {
            Ok(()) => self.apply_actions(),
            Err(e) if e.hint == RetryHint::Retry => {
                self.record(EventKind::EnumeratorStartFailed { tries: 1, error: e.message });
                let enumerator = self.coordinator.enumerator.take().expect("a new enumerator is in place");
                let placeholder = EnumeratorContext::new(self.coordinator.readers, self.endpoint.clone());
                let ctx = std::mem::replace(&mut self.coordinator.ctx, placeholder);
                self.coordinator.starting =
                    Some(Starting::new(enumerator, ctx, self.endpoint.clone(), self.history.clone(), 1));
            }
            Err(e) => self.fail_job(format!("enumerator failed to start: {e}")),
        }
    }

    /// The retried start ended: the enumerator is back, and what waited for it reaches it in
    /// order (requests of attempts replaced since are dropped).
    pub(super) fn on_started(&mut self, started: Started<Src>) {
        let Some(mut starting) = self.coordinator.starting.take() else { return };
        if let Err(e) = started.result {
            return self.fail_job(format!("enumerator failed to start: {e}"));
        }
        self.coordinator.enumerator = Some(started.enumerator);
        self.coordinator.ctx = started.ctx;
        self.apply_actions();
        for (subtask, attempt, request) in std::mem::take(&mut starting.deferred) {
            if self.scheduler.slots[subtask].attempt == attempt && !self.done {
                self.hand_to_enumerator(subtask, request);
            }
        }
    }

    /// A reader's registration, split request or source event: to the enumerator, or held
    /// until it started.
    pub(super) fn on_reader_request(&mut self, subtask: usize, attempt: u64, body: super::MasterMsg) {
        let request = match body {
            super::MasterMsg::Register => {
                // The coordinator heard it now; the enumerator hears it once it started.
                self.record(EventKind::ReaderRegistered { subtask, attempt });
                Deferred::Register
            }
            super::MasterMsg::SplitRequest => Deferred::SplitRequest,
            super::MasterMsg::SourceEvent(event) => Deferred::SourceEvent(event),
            _ => unreachable!("only a reader's requests go to the enumerator"),
        };
        match &mut self.coordinator.starting {
            Some(starting) => starting.deferred.push((subtask, attempt, request)),
            None => self.hand_to_enumerator(subtask, request),
        }
    }

    fn hand_to_enumerator(&mut self, subtask: usize, request: Deferred) {
        if matches!(request, Deferred::Register) {
            self.coordinator.ctx.registered.insert(subtask);
        }
        let (enumerator, ctx) = self.coordinator.enumerator_mut().expect("the enumerator started");
        match request {
            Deferred::Register => enumerator.add_reader(subtask, ctx),
            Deferred::SplitRequest => enumerator.handle_split_request(subtask, ctx),
            Deferred::SourceEvent(event) => enumerator.handle_source_event(subtask, event, ctx),
        }
        self.apply_actions();
    }
}
