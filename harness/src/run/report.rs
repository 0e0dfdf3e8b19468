//! The report of one seed: verdicts with evidence, a compact timeline and the replay line.

use super::config::RunConfig;
use super::shorten;
use crate::history::{CommitOutcome, EventKind};
use crate::oracle::checks::{RunFacts, Verdict};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Counts that describe how much a run exercised.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    /// Virtual time the run took.
    pub virtual_ms: u64,
    /// History length.
    pub events: usize,
    /// Records produced into source systems.
    pub produced: usize,
    /// Completed checkpoints.
    pub checkpoints_completed: usize,
    /// Aborted checkpoints.
    pub checkpoints_aborted: usize,
    /// Node crashes.
    pub crashes: usize,
    /// Failovers.
    pub failovers: usize,
    /// Messages dropped or responses lost by fault rules.
    pub messages_faulted: usize,
    /// Commit requests that were retried or found already committed.
    pub commits_repeated: usize,
    /// Checkpoints completed before the input ended, that is before the last record was
    /// first emitted: how much of the run's checkpointing happened while records flowed.
    #[serde(default)]
    pub checkpoints_before_input_ended: usize,
    /// Scenario blocks that disturbed the job (crashes, faults, slow phases, stops).
    #[serde(default)]
    pub fault_blocks: usize,
    /// Of those, the ones skipped because the job had already ended (or installed after).
    #[serde(default)]
    pub fault_blocks_skipped: usize,
    /// The first of them began after the input ended (its last record first emitted): none
    /// of the scenario's faults met records flowing.
    #[serde(default)]
    pub first_fault_after_input_ended: bool,
    /// Virtual time at which the input ended (its last record first emitted), in ms.
    #[serde(default)]
    pub input_ended_ms: u64,
}

impl RunStats {
    /// Why the seed's faults met no job moving records, if they did not: every fault block was
    /// skipped because the job had ended, the first one began after the input ended, or the
    /// input ended (its last record first emitted) before half of `pace_ms`, the virtual time
    /// the case asked its input to arrive over: a source that honours the pace cannot emit its
    /// last record earlier. `None`: the faults landed mid-stream. Later blocks of a long case
    /// may still find the job ended (`fault_blocks_skipped`): the earlier ones met it, so
    /// the seed counts.
    pub fn vacuous(&self, pace_ms: u64) -> Option<String> {
        if self.fault_blocks > 0 && self.fault_blocks_skipped == self.fault_blocks {
            return Some(format!("all {} of its fault blocks met no running job (it had ended)", self.fault_blocks));
        }
        if self.first_fault_after_input_ended {
            return Some("its first fault block began after the input ended".to_string());
        }
        (self.produced > 0 && self.input_ended_ms < pace_ms / 2).then(|| {
            format!(
                "its input ended at {} ms of virtual time, {} checkpoints in, though the case asked for it to arrive over {pace_ms} ms",
                self.input_ended_ms, self.checkpoints_before_input_ended
            )
        })
    }
}

impl RunStats {
    pub(crate) fn of(f: &RunFacts, virtual_ms: u64) -> Self {
        let mut s = RunStats { virtual_ms, events: f.events.len(), produced: f.produced.len(), ..Default::default() };
        // Only asked "contains?", never iterated.
        let mut emitted = crate::record::IdSet::default();
        emitted.reserve(s.produced);
        let mut completed_so_far = 0;
        let mut settled = false;
        // Whether a record was first emitted after the first fault block began.
        let mut first_fault_met_input = false;
        for e in &f.events {
            match &e.kind {
                EventKind::FaultBlock { skipped } => {
                    s.fault_blocks += 1;
                    s.fault_blocks_skipped += usize::from(*skipped);
                }
                EventKind::Converged => settled = true,
                // The harness restarts every system once the output converged: not the
                // scenario's crashes.
                EventKind::Crashed { .. } if settled => continue,
                EventKind::Emitted { ids, .. } if ids.iter().fold(false, |new, id| emitted.insert(*id) | new) => {
                    s.checkpoints_before_input_ended = completed_so_far;
                    s.input_ended_ms = e.t_us / 1000;
                    first_fault_met_input |= s.fault_blocks > 0;
                }
                EventKind::CheckpointCompleted { .. } => completed_so_far += 1,
                _ => {}
            }
            match &e.kind {
                EventKind::CheckpointCompleted { .. } => s.checkpoints_completed += 1,
                EventKind::CheckpointAborted { .. } => s.checkpoints_aborted += 1,
                EventKind::Crashed { .. } => s.crashes += 1,
                EventKind::Failover { .. } => s.failovers += 1,
                EventKind::Fault { .. } => s.messages_faulted += 1,
                EventKind::CommitOutcome { outcome, .. } if *outcome != CommitOutcome::Committed => {
                    s.commits_repeated += 1
                }
                _ => {}
            }
        }
        s.first_fault_after_input_ended = s.fault_blocks > 0 && !first_fault_met_input;
        s
    }
}

/// Everything about one seed's run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunReport {
    /// The seed.
    pub seed: u64,
    /// The testbed's name.
    pub testbed: String,
    /// The configuration that ran.
    pub config: RunConfig,
    /// The scenario that ran (for blocks: the Rust code that builds them).
    pub scenario: String,
    /// One verdict per check.
    pub verdicts: Vec<Verdict>,
    /// FNV-1a hash of the history (equal hashes: identical histories); for a run without
    /// verification, which keeps none, a hash of how it ended (virtual time, records
    /// produced, checkpoints completed, the job's end).
    pub history_hash: u64,
    /// How much the run exercised.
    pub stats: RunStats,
    /// Coverage marks the run reached (see [`crate::oracle::marks`]).
    pub marks: Vec<String>,
    /// Notable events, one line each.
    pub timeline: Vec<String>,
    /// The command line that replays this seed.
    pub replay: String,
    /// The whole history, kept only for failed runs (see `CONNSIM_DUMP_DIR`); of a
    /// runner's failed seeds that fail the same checks, only the lowest keeps it, so a
    /// sweep of a broken connector does not hold every failing history at once.
    #[serde(skip)]
    pub history: Vec<crate::history::Event>,
    /// Where the run's wall time went (what `connsim bench` breaks down); never saved,
    /// printed or compared: it is not part of what the run did.
    #[serde(skip)]
    pub cost: Cost,
}

/// Wall time one run spent per phase.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cost {
    /// The simulation: the cluster, the systems, the scenario and the observed output.
    pub simulate: std::time::Duration,
    /// Hashing the history and indexing it for the checks.
    pub history: std::time::Duration,
    /// The checks.
    pub checks: std::time::Duration,
    /// Marks, the timeline and the rest of the report.
    pub report: std::time::Duration,
}

const TIMELINE_MAX: usize = 80;

fn timeline(f: &RunFacts, verdicts: &[Verdict]) -> Vec<String> {
    let bad: Vec<usize> = verdicts.iter().filter_map(|v| v.first_bad_event).collect();
    let mut lines = Vec::new();
    for (i, e) in f.events.iter().enumerate() {
        let notable = matches!(
            e.kind,
            EventKind::Crashed { .. }
                | EventKind::Restarted { .. }
                | EventKind::Failover { .. }
                | EventKind::CheckpointCompleted { .. }
                | EventKind::CheckpointAborted { .. }
                | EventKind::FaultRule { .. }
                | EventKind::ConnectorError { .. }
                | EventKind::SplitsReturned { .. }
                | EventKind::JobFinished
                | EventKind::JobFailed { .. }
                | EventKind::JobStopped { .. }
                | EventKind::CrashPoint { .. }
                | EventKind::Declined { .. }
                | EventKind::LateNotification { .. }
                | EventKind::Step { .. }
                | EventKind::NodeStopped { .. }
                | EventKind::NewJob { .. }
                | EventKind::LeaseExpired { .. }
                | EventKind::Paused { .. }
                | EventKind::ZombieRequest { .. }
                | EventKind::OutOfRange { .. }
                | EventKind::ChannelBlocked { .. }
                | EventKind::BarrierAligned { .. }
                | EventKind::AlignmentAborted { .. }
                | EventKind::BackpressureHeld { .. }
        );
        if notable || bad.contains(&i) {
            let mark = if bad.contains(&i) { " <== first bad event" } else { "" };
            let mut kind = serde_json::to_value(&e.kind).unwrap_or_default();
            shorten::compact(&mut kind);
            let line = format!("#{i:<6} {:>9.3}s {:<16} {kind}", e.t_us as f64 / 1e6, e.node);
            lines.push(format!("{}{mark}", shorten::cap(&line)));
        }
    }
    if lines.len() > TIMELINE_MAX {
        let skipped = lines.len() - TIMELINE_MAX;
        let tail = lines.split_off(lines.len() - TIMELINE_MAX / 2);
        lines.truncate(TIMELINE_MAX / 2);
        lines.push(format!("… {skipped} more …"));
        lines.extend(tail);
    }
    lines
}

/// The command that reruns `seed` (see [`super::rerun`]).
fn replay_line(seed: u64) -> String {
    super::rerun::line(seed, super::rerun::current().as_deref())
}

impl RunReport {
    pub(crate) fn new(
        seed: u64,
        testbed: String,
        config: RunConfig,
        verdicts: Vec<Verdict>,
        history_hash: u64,
        stats: RunStats,
        facts: &RunFacts,
    ) -> Self {
        let timeline = timeline(facts, &verdicts);
        let failed = verdicts.iter().any(|v| !v.passed);
        let history = if failed { facts.events.clone() } else { Vec::new() };
        let marks = crate::oracle::marks::reached(&facts.events, facts.exchange.all_to_all())
            .into_iter()
            .map(String::from)
            .collect();
        Self {
            seed,
            testbed,
            config,
            scenario: String::new(),
            verdicts,
            history_hash,
            stats,
            marks,
            timeline,
            replay: replay_line(seed),
            history,
            cost: Cost::default(),
        }
    }

    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.verdicts.iter().all(|v| v.passed)
    }

    /// The verdict of one check.
    pub fn verdict(&self, check: &str) -> Option<&Verdict> {
        self.verdicts.iter().find(|v| v.check == check)
    }

    /// Names of the checks that failed.
    pub fn failed_checks(&self) -> Vec<&str> {
        self.verdicts.iter().filter(|v| !v.passed).map(|v| v.check.as_str()).collect()
    }
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let status = if self.passed() { "PASSED" } else { "FAILED" };
        writeln!(f, "connsim {status}: {} — seed {}", self.testbed, self.seed)?;
        writeln!(f, "config: {}", serde_json::to_string(&self.config).unwrap_or_default())?;
        if !self.scenario.is_empty() {
            writeln!(f, "scenario: {}", self.scenario)?;
        }
        let s = &self.stats;
        writeln!(
            f,
            "stats: {} ms virtual, {} events, {} records, {} checkpoints completed ({} before the input ended) / {} aborted, {} crashes, {} failovers, {} messages faulted, {} commits repeated",
            s.virtual_ms, s.events, s.produced, s.checkpoints_completed, s.checkpoints_before_input_ended, s.checkpoints_aborted, s.crashes, s.failovers, s.messages_faulted, s.commits_repeated
        )?;
        writeln!(f, "history hash: {:016x}", self.history_hash)?;
        writeln!(f, "marks: {}", self.marks.join(", "))?;
        writeln!(f, "verdicts:")?;
        for v in &self.verdicts {
            writeln!(f, "  [{}] {}: {}", if v.passed { "ok" } else { "FAIL" }, v.check, v.summary)?;
            for e in &v.evidence {
                writeln!(f, "         - {}", shorten::cap(e))?;
            }
            if v.unshown() > 0 {
                writeln!(f, "         - … and {} more", v.unshown())?;
            }
        }
        writeln!(f, "timeline:")?;
        for line in &self.timeline {
            writeln!(f, "  {line}")?;
        }
        write!(f, "replay: {}", self.replay)
    }
}

#[cfg(test)]
mod vacuity_tests {
    use super::RunStats;

    fn stats(fault_blocks: usize, skipped: usize, first_after_end: bool, input_ended_ms: u64) -> RunStats {
        RunStats {
            produced: 100,
            fault_blocks,
            fault_blocks_skipped: skipped,
            first_fault_after_input_ended: first_after_end,
            input_ended_ms,
            ..RunStats::default()
        }
    }

    #[test]
    fn a_seed_is_vacuous_only_when_no_fault_met_records_flowing() {
        assert_eq!(stats(8, 0, false, 1_500).vacuous(2_000), None);
        // A long case's last crash finding the job ended: its earlier blocks met it.
        assert_eq!(stats(8, 1, false, 1_500).vacuous(2_000), None);
        let all = stats(2, 2, false, 1_500).vacuous(2_000).expect("every block skipped");
        assert!(all.starts_with("all 2 of its fault blocks met no running job"), "{all}");
        let late = stats(2, 0, true, 1_500).vacuous(2_000).expect("first block after the input");
        assert!(late.contains("first fault block began after the input ended"), "{late}");
        let early = stats(2, 0, false, 420).vacuous(2_000).expect("input ended before half the pace");
        assert!(early.starts_with("its input ended at 420 ms"), "{early}");
        assert_eq!(stats(2, 0, false, 1_000).vacuous(2_000), None, "half the pace is enough");
    }
}
