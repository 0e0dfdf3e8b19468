//! The functions that build blocks (`crash(worker(1)).at(phase)`, `drop_messages(…)`, …):
//! what a scenario is written with, and what [`Block::to_rust`] prints.

use super::{Block, Fault, NewJobFrom, Target, Worker};
use connsim::cluster::Phase;
use connsim::net::Refusal;
use connsim::run::Spread;
use connsim::systems::{Setting, TxnProtocol};

/// A crash being built: [`crash`], then optionally [`Crash::at`] and [`Crash::restart_after`].
#[derive(Clone, Debug, PartialEq)]
pub struct Crash {
    target: Target,
    at: Option<Phase>,
    restart_after_ms: u64,
}

impl Crash {
    /// Crash when a subtask on the target worker (or the job master, for the phases it
    /// reaches: [`Phase::on_job_master`]) reaches `phase`.
    pub fn at(mut self, phase: Phase) -> Self {
        self.at = Some(phase);
        self
    }
    /// Restart after `ms` (default 50).
    pub fn restart_after(mut self, ms: u64) -> Self {
        self.restart_after_ms = ms;
        self
    }
}

impl From<Crash> for Block {
    fn from(c: Crash) -> Block {
        Block::Crash { target: c.target, at: c.at, restart_after_ms: c.restart_after_ms }
    }
}

/// The worker's next start registers its reader `ms` late.
pub fn slow_start(worker: Worker, ms: u64) -> Block {
    Block::SlowStart { worker, ms }
}

/// `worker`'s next snapshot takes `ms` before it acknowledges (see [`Block::SlowSnapshot`]).
pub fn slow_snapshot(worker: Worker, ms: u64) -> Block {
    Block::SlowSnapshot { worker, ms }
}

/// The worker's writer takes `ms` per record for `for_ms` (see [`Block::SlowSink`]).
pub fn slow_sink(worker: Worker, ms: u64, for_ms: u64) -> Block {
    Block::SlowSink { worker, ms, for_ms }
}

/// Crash `target` (a [`Worker`], [`Target::JobMaster`] or [`Target::System`]); it restarts 50 ms later.
pub fn crash(target: impl Into<Target>) -> Crash {
    Crash { target: target.into(), at: None, restart_after_ms: 50 }
}

/// The job master, as a target.
pub fn job_master() -> Target {
    Target::JobMaster
}

/// An external system by node name, as a target.
pub fn system(name: &str) -> Target {
    Target::System(name.to_string())
}

/// Produce `n` records, evenly over the splits, over 200 ms.
pub fn produce(n: u64) -> Block {
    Block::Produce { n, spread: Spread::Uniform, over_ms: 200 }
}

/// Produce `n` records at once.
pub fn burst(n: u64) -> Block {
    Block::Produce { n, spread: Spread::Uniform, over_ms: 0 }
}

/// Produce `n` records, most into one split (a hot key), over 200 ms.
pub fn skewed(n: u64) -> Block {
    Block::Produce { n, spread: Spread::Skewed, over_ms: 200 }
}

/// Add `n` splits to the source system.
pub fn add_splits(n: u64) -> Block {
    Block::AddSplits { n }
}

/// Trigger a checkpoint and wait for it.
pub fn checkpoint() -> Block {
    Block::Checkpoint
}

/// The worker declines the next checkpoint.
pub fn decline_checkpoint(worker: Worker) -> Block {
    Block::DeclineCheckpoint { worker }
}

/// The next checkpoint times out and is aborted.
pub fn checkpoint_timeout() -> Block {
    Block::CheckpointTimeout
}

/// The next completed checkpoint's notification to the worker(s) is lost.
pub fn lose_notify(worker: Worker) -> Block {
    Block::LoseNotify { worker }
}

/// Drop messages of `kind` (prefix; `None`: all) with `probability`, on every link, for `for_ms`.
pub fn drop_messages(probability: f64, kind: Option<&str>, for_ms: u64) -> Block {
    Block::Fault { fault: Fault::Drop { probability, kind: kind.map(String::from), from: None, to: None }, for_ms }
}

/// Delay messages of `kind` by `ms`, for `for_ms`.
pub fn delay_messages(ms: u64, kind: Option<&str>, for_ms: u64) -> Block {
    Block::Fault { fault: Fault::Delay { ms, kind: kind.map(String::from), from: None, to: None }, for_ms }
}

/// Requests of `kind` (prefix) to the external system `system` straggle, for `for_ms`: each
/// arrives `ms` late, after what its sender sent next (a request that waited on a connection
/// the client abandoned reaches the server after its retry on a new one). Order per
/// connection holds, order across connections does not.
pub fn straggle(system: &str, kind: &str, ms: u64, for_ms: u64) -> Block {
    let to = Some(Target::System(system.into()));
    Block::Fault { fault: Fault::Straggle { ms, kind: Some(kind.into()), from: None, to }, for_ms }
}

/// Requests of `kind` (prefix) to the external system `system` are held, for `for_ms`: each
/// lands right after its sender's next request of kind `until` (prefix) to the system, or
/// `max_ms` late if none comes. An older attempt's commit (`"kafka.end_txn"`) released by a
/// newer attempt's first read (`"kafka.offset_fetch"`) lands between that read and whatever
/// the newer attempt does next.
pub fn hold(system: &str, kind: &str, until: &str, max_ms: u64, for_ms: u64) -> Block {
    let to = Some(Target::System(system.into()));
    let fault = Fault::Hold { until: until.into(), max_ms, kind: Some(kind.into()), from: None, to };
    Block::Fault { fault, for_ms }
}

/// `ALTER TABLE` on the table `system` (a [`SnapshotTable`](connsim::systems::SnapshotTable)
/// built with a schema): rows written from now on are decoded with the changed schema.
pub fn alter_table(system: &str, change: connsim::systems::Alteration) -> Block {
    Block::Configure { system: system.into(), setting: Setting::AlterTable(change) }
}

/// Lose the responses to requests sent to `to`, with `probability`, for `for_ms`.
pub fn lose_responses(probability: f64, to: Target, for_ms: u64) -> Block {
    Block::Fault { fault: Fault::LoseResponses { probability, kind: None, from: None, to: Some(to) }, for_ms }
}

/// The external system `system` refuses requests with `refusal` (an error reply, nothing
/// done), with `probability`, for `for_ms`.
pub fn refuse(system: &str, refusal: Refusal, probability: f64, for_ms: u64) -> Block {
    let fault = Fault::Refuse { probability, refusal, kind: None, to: Target::System(system.into()) };
    Block::Fault { fault, for_ms }
}

/// The external system `system` answers `ms` late (requests and responses each take `ms`
/// longer: above a client's timeout, the request takes effect after the caller gave up), for
/// `for_ms`.
pub fn slow_system(system: &str, ms: u64, for_ms: u64) -> Block {
    Block::Fault { fault: Fault::Delay { ms, kind: None, from: None, to: Some(Target::System(system.into())) }, for_ms }
}

/// From now on the log `system` aborts transactions open longer than `ms` (counted from
/// their first write) and fences their producer epoch, as Kafka's `transaction.timeout.ms`.
pub fn transaction_timeout(system: &str, ms: u64) -> Block {
    Block::Configure { system: system.into(), setting: Setting::TransactionTimeoutMs(Some(ms)) }
}

/// From now on the log `system`'s Kafka face follows the transaction protocol `protocol`
/// ([`TxnProtocol::ClassicUnverified`]: a broker before KIP-890 part 1, where a produce the
/// transaction never added opens a hanging transaction, KAFKA-14402).
pub fn transaction_protocol(system: &str, protocol: TxnProtocol) -> Block {
    Block::Configure { system: system.into(), setting: Setting::TransactionProtocol(protocol) }
}

/// From now on the log `system` deletes input records older than `ms` (Kafka's
/// `retention.ms`; topics read as output keep everything): a reader that falls further
/// behind is told its position is out of range and must seek to the oldest record left.
pub fn retention(system: &str, ms: u64) -> Block {
    Block::Configure { system: system.into(), setting: Setting::RetentionMs(Some(ms)) }
}

/// From now on the file system `system` tears appends with `probability`: it writes a prefix
/// of the bytes and does not answer (the caller times out). `torn_appends(system, 0.0)` stops it.
pub fn torn_appends(system: &str, probability: f64) -> Block {
    Block::Configure { system: system.into(), setting: Setting::TornAppends(probability) }
}

/// From now on the bucket `system` refuses requests `503 SlowDown` (S3's throttling) with
/// `probability`, before applying them. `slow_down(system, 0.0)` stops it.
pub fn slow_down(system: &str, probability: f64) -> Block {
    Block::Configure { system: system.into(), setting: Setting::SlowDown(probability) }
}

/// From now on the bucket `system` answers requests `500 InternalError` with `probability`;
/// half of those requests were applied all the same. `internal_errors(system, 0.0)` stops it.
pub fn internal_errors(system: &str, probability: f64) -> Block {
    Block::Configure { system: system.into(), setting: Setting::InternalErrors(probability) }
}

/// From now on the bucket `system`'s lifecycle rule aborts every multipart upload `ms` after
/// it started (S3's `AbortIncompleteMultipartUpload`).
pub fn expire_incomplete_uploads(system: &str, ms: u64) -> Block {
    Block::Configure { system: system.into(), setting: Setting::ExpireIncompleteUploadsAfterMs(Some(ms)) }
}

/// Cut task executor `worker` off from the job master (only) for `ms`, then heal that link.
/// Once the job master has missed its heartbeats (about 300 ms with the default settings) it
/// redeploys the worker's subtask to a spare slot elsewhere, while the cut-off attempt keeps
/// running and writing to external systems: a zombie, until its task executor's lease runs
/// out ([`HeartbeatConfig::executor_timeout_ms`](connsim::cluster::HeartbeatConfig), 500 ms)
/// and it cancels the attempt. Prints as the `partition(..)` it is.
pub fn zombie(worker: Worker, ms: u64) -> Block {
    partition(worker, job_master(), ms)
}

/// A global committer notified late, after its replacement started: checkpoint
/// notifications from the job master to task executor 0 (where the global committer shares
/// subtask 0's slot) are held up 400 ms on their way for 120 ms (the link keeps its order,
/// so everything sent after them waits too), then that task executor is cut off from the
/// job master for 800 ms ([`zombie`]). The job master replaces every task from the latest
/// checkpoint elsewhere, and the new committer commits what it restored; a notification held
/// up reaches the cut-off committer afterwards, while its lease still runs, and it commits
/// the same checkpoint again. Prints as the `during(..)` it is.
pub fn global_committer_notified_late() -> Block {
    let late = Fault::Delay {
        ms: 400,
        kind: Some("Notify".into()),
        from: Some(Target::JobMaster),
        to: Some(Target::Worker(Worker::Nth(0))),
    };
    during(late, wait(120).then(zombie(Worker::Nth(0), 800)))
}

/// Freeze `target` for `ms` (a long garbage-collection pause): none of its tasks runs and
/// calls to it time out; then it goes on where it stopped, unaware of the gap. A frozen task
/// executor's subtask is replaced elsewhere meanwhile; once it wakes up the old attempt runs
/// on until it notices its lease ran out.
pub fn pause(target: impl Into<Target>, ms: u64) -> Block {
    Block::Pause { target: target.into(), ms }
}

/// Partition `a` from `b` for `for_ms`, then heal that link.
pub fn partition(a: impl Into<Target>, b: impl Into<Target>, for_ms: u64) -> Block {
    Block::Fault { fault: Fault::Partition { a: a.into(), b: b.into() }, for_ms }
}

/// Heal everything.
pub fn heal() -> Block {
    Block::Heal
}

/// Stop with a savepoint and resume with the same parallelism.
pub fn stop_with_savepoint() -> Block {
    Block::StopWithSavepoint { resume_with: None }
}

/// Stop with a savepoint and resume with `parallelism`.
pub fn savepoint_and_rescale(parallelism: usize) -> Block {
    Block::StopWithSavepoint { resume_with: Some(parallelism) }
}

/// Stop with a savepoint, then start a new job without state against the output left.
pub fn restart_without_state() -> Block {
    Block::NewJob { from: NewJobFrom::WithoutState }
}

/// Stop with a savepoint, then start a new job from the savepoint before it (older than
/// the latest completed checkpoint).
pub fn restart_from_older_savepoint() -> Block {
    Block::NewJob { from: NewJobFrom::OlderSavepoint }
}

/// Restore from the latest checkpoint with `parallelism`.
pub fn rescale(parallelism: usize) -> Block {
    Block::Rescale { parallelism }
}

/// Let `ms` of virtual time pass.
pub fn wait(ms: u64) -> Block {
    Block::Wait { ms }
}

/// Wait until the job converged, at most `timeout_ms`.
pub fn drain(timeout_ms: u64) -> Block {
    Block::Drain { timeout_ms }
}

/// `fault` held while `body` runs.
pub fn during(fault: Fault, body: impl Into<Block>) -> Block {
    Block::During { fault, body: Box::new(body.into()) }
}

/// A safety phase, then heal and a liveness phase of `liveness_ms`.
pub fn phases(safety: impl Into<Block>, liveness_ms: u64) -> Block {
    Block::Phases { safety: Box::new(safety.into()), liveness_ms }
}

/// One of `blocks`, picked by the run's seed.
pub fn one_of(blocks: Vec<Block>) -> Block {
    Block::OneOf(blocks)
}

impl Crash {
    /// This crash, then `next`.
    pub fn then(self, next: impl Into<Block>) -> Block {
        Block::from(self).then(next)
    }
    /// This crash `n` times.
    pub fn repeat(self, n: u32) -> Block {
        Block::from(self).repeat(n)
    }
    /// This crash, cut off after `ms`.
    pub fn time_limit(self, ms: u64) -> Block {
        Block::from(self).time_limit(ms)
    }
}
