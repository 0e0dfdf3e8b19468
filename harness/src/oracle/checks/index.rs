//! What the checks read: the history, indexed once, and the output as a downstream reader
//! saw it at the end.

use crate::api::DeliveryGuarantee;
use crate::cluster::JobStatus;
use crate::history::{Cause, CheckpointId, Event, EventKind};
use crate::oracle::{Expected, Starts};
use crate::record::{Digest, RecordId, Seen};
use crate::systems::Entry;
use std::collections::BTreeMap;

/// Where a produced record came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Its split.
    pub split: std::sync::Arc<str>,
    /// Its position in the split.
    pub pos: u64,
    /// Its content's digest.
    pub digest: Digest,
}

/// How a run ended, besides its history: what the checks judge it against.
#[derive(Clone, Debug)]
pub struct RunEnd {
    /// The output's name ([`crate::systems::OutputReader::location`]).
    pub output_location: String,
    /// The output at the end, in reading order, or why it could not be read.
    pub visible: Result<Vec<Entry>, String>,
    /// What the sink promises.
    pub guarantee: DeliveryGuarantee,
    /// Whether the sink claims per-split order ([`crate::api::Sink::keeps_split_order`]).
    pub ordered: bool,
    /// Whether the sink takes records behind the watermark its input already passed on
    /// ([`crate::api::Sink::accepts_late_records`]).
    pub late_accepted: bool,
    /// Between the readers and the writers.
    pub exchange: crate::cluster::Exchange,
    /// Whether the source ends.
    pub bounded: bool,
    /// Where the job stood at the end.
    pub status: JobStatus,
    /// Virtual milliseconds the run was allowed to converge after faults healed.
    pub liveness_ms: u64,
    /// A panic in connector or harness code, if one ended the run.
    pub panic: Option<String>,
    /// Where the source starts reading each split.
    pub starts: Starts,
    /// Whether the case makes a loss unavoidable, so a declared one passes `declared-loss`.
    pub declared_loss_allowed: bool,
    /// What the sink declared it may leave behind ([`crate::run::World::declare_leave_behind`]).
    pub leave_behind: Vec<crate::oracle::LeaveBehind>,
}

impl RunEnd {
    /// A finished bounded exactly-once run of `output`, read empty: change the fields a
    /// test needs.
    pub fn new(output: &str) -> Self {
        Self {
            output_location: output.to_string(),
            visible: Ok(Vec::new()),
            guarantee: DeliveryGuarantee::ExactlyOnce,
            ordered: false,
            late_accepted: false,
            exchange: crate::cluster::Exchange::Forward,
            bounded: true,
            status: JobStatus::Finished,
            liveness_ms: 30_000,
            panic: None,
            starts: Starts::default(),
            declared_loss_allowed: false,
            leave_behind: Vec::new(),
        }
    }
}

/// The facts of one finished run.
pub struct RunFacts {
    /// The whole history.
    pub events: Vec<Event>,
    /// The output's name.
    pub output_location: String,
    /// The records a downstream reader sees at the end, in its reading order.
    pub visible_final: Vec<Seen>,
    /// Visible content at the end that is not a record.
    pub garbage_final: Vec<String>,
    /// Why the output could not be read at the end, if it could not.
    pub unreadable: Option<String>,
    /// What the sink promises.
    pub guarantee: DeliveryGuarantee,
    /// Whether the sink claims per-split order.
    pub ordered: bool,
    /// Whether the sink takes late records.
    pub late_accepted: bool,
    /// Between the readers and the writers.
    pub exchange: crate::cluster::Exchange,
    /// Whether the source ends.
    pub bounded: bool,
    /// Where the job stood at the end.
    pub status: JobStatus,
    /// Virtual milliseconds the run was allowed to converge after faults healed.
    pub liveness_ms: u64,
    /// A panic in connector or harness code, if one ended the run.
    pub panic: Option<String>,
    /// Every produced record's origin.
    pub produced: BTreeMap<RecordId, Origin>,
    /// Which produced records the output must (and must not) hold.
    pub expected: Expected,
    /// Event index at which each checkpoint completed.
    pub completed: BTreeMap<CheckpointId, usize>,
    /// Event index at which the output converged, if it did: a bounded job's `JobFinished`,
    /// an unbounded one's `Converged`.
    pub converged: Option<usize>,
    /// The records whose loss the connector declared, with why ([`crate::oracle::declared`]).
    pub declared: BTreeMap<RecordId, String>,
    /// Whether the case makes a loss unavoidable (a declared one then passes).
    pub declared_loss_allowed: bool,
    /// What the sink declared it may leave behind.
    pub leave_behind: Vec<crate::oracle::LeaveBehind>,
    /// `produced` by id when ids are dense (they are when a [`crate::run::RecordMaker`] made
    /// them): the checks look a record up for every record they see.
    dense: Vec<Option<Origin>>,
}

/// One observed change of the output.
pub struct Change<'a> {
    /// Its event index.
    pub index: usize,
    /// Appeared (true) or vanished.
    pub appeared: bool,
    /// The part it happened in.
    pub part: &'a str,
    /// The records.
    pub records: &'a [Seen],
    /// Content that is not a record.
    pub garbage: &'a [String],
    /// Why the harness looked.
    pub cause: &'a Cause,
}

impl RunFacts {
    /// Indexes the history.
    pub fn new(events: Vec<Event>, end: RunEnd) -> Self {
        // In history order; built into the map at once below (ids come sorted, so that is a
        // bulk build rather than an insert per record; a repeated id keeps its last origin,
        // as inserting would).
        let mut produced_in_order: Vec<(RecordId, Origin)> = Vec::new();
        let mut completed = BTreeMap::new();
        let mut converged = None;
        // One shared name per split, not one copy per record.
        let mut splits: BTreeMap<&str, std::sync::Arc<str>> = BTreeMap::new();
        for (i, e) in events.iter().enumerate() {
            match &e.kind {
                EventKind::Produced { id, split, pos, digest, .. } => {
                    let split = splits.entry(split).or_insert_with(|| split.as_str().into()).clone();
                    produced_in_order.push((*id, Origin { split, pos: *pos, digest: *digest }));
                }
                EventKind::CheckpointCompleted { checkpoint } => {
                    completed.insert(*checkpoint, i);
                }
                // A bounded job's output must not change once it finished.
                EventKind::Converged | EventKind::JobFinished => {
                    converged.get_or_insert(i);
                }
                _ => {}
            }
        }
        let expected = end.starts.expected(&events);
        let declared = crate::oracle::declared::declared_losses(&events);
        let max_id = produced_in_order.iter().map(|(id, _)| id.0 as usize).max().unwrap_or(0);
        let dense = if max_id <= 4 * produced_in_order.len() + 1024 {
            let mut dense = vec![None; max_id + 1];
            for (id, o) in &produced_in_order {
                dense[id.0 as usize] = Some(o.clone());
            }
            dense
        } else {
            Vec::new()
        };
        let produced: BTreeMap<RecordId, Origin> = produced_in_order.into_iter().collect();
        let (mut visible_final, mut garbage_final, mut unreadable) = (Vec::new(), Vec::new(), None);
        match end.visible {
            Ok(entries) => {
                for e in entries {
                    match e {
                        Entry::Record(s) => visible_final.push(s),
                        Entry::Garbage(g) => garbage_final.push(g),
                    }
                }
            }
            Err(e) => unreadable = Some(e),
        }
        Self {
            events,
            output_location: end.output_location,
            visible_final,
            garbage_final,
            unreadable,
            guarantee: end.guarantee,
            ordered: end.ordered,
            late_accepted: end.late_accepted,
            exchange: end.exchange,
            bounded: end.bounded,
            status: end.status,
            liveness_ms: end.liveness_ms,
            panic: end.panic,
            produced,
            expected,
            completed,
            converged,
            declared,
            declared_loss_allowed: end.declared_loss_allowed,
            leave_behind: end.leave_behind,
            dense,
        }
    }

    /// Where a record came from, if it was produced.
    pub fn origin_of(&self, id: RecordId) -> Option<&Origin> {
        match self.dense.is_empty() {
            true => self.produced.get(&id),
            false => self.dense.get(id.0 as usize).and_then(Option::as_ref),
        }
    }

    /// Every observed change of the output, in history order.
    pub fn changes(&self) -> impl Iterator<Item = Change<'_>> {
        self.events.iter().enumerate().filter_map(|(index, e)| {
            let (appeared, output, part, records, garbage, cause) = match &e.kind {
                EventKind::Appeared { output, part, records, garbage, cause } => {
                    (true, output, part, records, garbage, cause)
                }
                EventKind::Vanished { output, part, records, garbage, cause } => {
                    (false, output, part, records, garbage, cause)
                }
                _ => return None,
            };
            (*output == self.output_location).then_some(Change { index, appeared, part, records, garbage, cause })
        })
    }

    /// The records visible more than once at the end, with how often, in id order.
    pub fn visible_more_than_once(&self) -> Vec<(RecordId, usize)> {
        let mut ids: Vec<RecordId> = self.visible_final.iter().map(|s| s.id).collect();
        ids.sort_unstable();
        let mut dups = Vec::new();
        for run in ids.chunk_by(|a, b| a == b).filter(|run| run.len() > 1) {
            dups.push((run[0], run.len()));
        }
        dups
    }

    /// Describes where a record came from, for evidence.
    pub fn origin(&self, id: RecordId) -> String {
        match self.origin_of(id) {
            Some(o) => format!("{id} (split {} pos {})", o.split, o.pos),
            None => format!("{id} (never produced)"),
        }
    }

    /// Describes an event, for evidence.
    pub fn describe(&self, index: usize) -> String {
        let e = &self.events[index];
        format!("event #{index} at {:.3}s on {}", e.t_us as f64 / 1e6, e.node)
    }

    /// Describes an observed change: when, where, and why the harness looked.
    pub fn describe_change(&self, c: &Change<'_>) -> String {
        let why = match c.cause {
            Cause::Setup => "before the job started".to_string(),
            Cause::Request { node, from, kind, .. } => format!("after {node} served {kind} from {from}"),
            Cause::Crash { node } => format!("when {node} crashed"),
            Cause::Restart { node } => format!("when {node} restarted"),
            Cause::Audit => "in an audit".to_string(),
            Cause::Final => "in the final read".to_string(),
        };
        format!("{} in {} ({why})", self.describe(c.index), c.part)
    }

    /// The highest checkpoint completed before event `index` (0: none).
    pub fn last_completed_before(&self, index: usize) -> CheckpointId {
        self.completed.iter().filter(|(_, &at)| at < index).map(|(c, _)| *c).max().unwrap_or(0)
    }
}
