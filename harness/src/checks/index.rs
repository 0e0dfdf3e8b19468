//! What the checks read: the history, indexed once, and the sink's visible output.

use crate::api::DeliveryGuarantee;
use crate::cluster::JobStatus;
use crate::history::{CheckpointId, Event, EventKind};
use crate::record::RecordId;
use std::collections::BTreeMap;

/// The facts of one finished run.
pub struct RunFacts {
    /// The whole history.
    pub events: Vec<Event>,
    /// Location tag of the sink's output (see [`crate::systems::OutputReader::location`]).
    pub output_location: String,
    /// The output as a downstream reader sees it at the end.
    pub visible_final: Vec<RecordId>,
    /// Visible data that is not a record.
    pub corrupt: Vec<String>,
    /// What the sink promises.
    pub guarantee: DeliveryGuarantee,
    /// Whether the sink claims per-split order ([`crate::api::Sink::keeps_split_order`]).
    pub ordered: bool,
    /// Whether the source ends.
    pub bounded: bool,
    /// Where the job stood at the end.
    pub status: JobStatus,
    /// Virtual milliseconds the run was allowed to converge after faults healed.
    pub liveness_ms: u64,
    /// A panic in connector or harness code, if one ended the run.
    pub panic: Option<String>,
    /// Where each produced record came from: (split, position).
    pub produced: BTreeMap<RecordId, (String, u64)>,
    /// Event index at which each checkpoint completed.
    pub completed: BTreeMap<CheckpointId, usize>,
}

impl RunFacts {
    /// Indexes the history.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        events: Vec<Event>,
        output_location: String,
        visible: (Vec<RecordId>, Vec<String>),
        guarantee: DeliveryGuarantee,
        ordered: bool,
        bounded: bool,
        status: JobStatus,
        liveness_ms: u64,
        panic: Option<String>,
    ) -> Self {
        let mut produced = BTreeMap::new();
        let mut completed = BTreeMap::new();
        for (i, e) in events.iter().enumerate() {
            match &e.kind {
                EventKind::Produced { id, split, pos } => {
                    produced.insert(*id, (split.clone(), *pos));
                }
                EventKind::CheckpointCompleted { checkpoint } => {
                    completed.insert(*checkpoint, i);
                }
                _ => {}
            }
        }
        Self {
            events,
            output_location,
            visible_final: visible.0,
            corrupt: visible.1,
            guarantee,
            ordered,
            bounded,
            status,
            liveness_ms,
            panic,
            produced,
            completed,
        }
    }

    /// Visible events of the sink's output, with their event index.
    pub fn visibility(&self) -> impl Iterator<Item = (usize, &Vec<RecordId>)> {
        self.events.iter().enumerate().filter_map(|(i, e)| match &e.kind {
            EventKind::Visible { location, ids } if *location == self.output_location => Some((i, ids)),
            _ => None,
        })
    }

    /// Describes where a record came from, for evidence.
    pub fn origin(&self, id: RecordId) -> String {
        match self.produced.get(&id) {
            Some((split, pos)) => format!("{id} (split {split} pos {pos})"),
            None => format!("{id} (never produced)"),
        }
    }

    /// Describes an event, for evidence.
    pub fn describe(&self, index: usize) -> String {
        let e = &self.events[index];
        format!("event #{index} at {:.3}s on {}", e.t_us as f64 / 1e6, e.node)
    }
}
