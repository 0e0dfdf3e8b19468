//! Restoring with another parallelism: split states, writer states and committables of the
//! old subtasks are pooled and dealt out round-robin to the new ones (as Flink redistributes
//! operator list state). Every part dealt out is deserialized and serialized again, so a
//! state that does not survive the round trip fails the job with a clear message. With a
//! sink parallelism of its own, the writers' count may stay while the readers' changes: the
//! writers then keep their own states, as in Flink, where only an operator whose
//! parallelism changed has its state redistributed.

use super::config::RuntimeBug;
use super::protocol::SubtaskState;
use crate::api::{Sink, Source};
use crate::history::CheckpointId;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The state of a subtask that had none: every part an empty list.
pub(crate) fn empty() -> SubtaskState {
    let none = bincode::serialize(&Vec::<()>::new()).expect("serializes");
    SubtaskState { splits: none.clone(), writer: none.clone(), committables: none, finished: false }
}

/// The global committer's state after a rescale: its own, as it was (its parallelism is
/// always 1). `bug` [`RuntimeBug::GlobalCommitterForgetsOnRescale`]: nothing.
pub(crate) fn global_state(state: SubtaskState, bug: Option<RuntimeBug>) -> SubtaskState {
    match bug {
        Some(RuntimeBug::GlobalCommitterForgetsOnRescale) => empty(),
        _ => SubtaskState { finished: false, ..state },
    }
}

/// The committer tasks' states after a rescale of the readers or writers: their own, as
/// they were (`old`: the states of the old tasks downstream of the writers). Their number is
/// the job's setting and a rescale does not change it, so each keeps its pending
/// committables, as Flink keeps the state of an operator whose parallelism did not change.
pub(crate) fn committers(old: &[SubtaskState], k: usize) -> Result<Vec<SubtaskState>, String> {
    if old.len() != k {
        return Err(format!(
            "the restored checkpoint holds the state of {} committer tasks, and the job runs {k}: \
             committer_parallelism cannot change across a restore; keep the job's setting",
            old.len()
        ));
    }
    Ok(old.iter().map(|s| SubtaskState { finished: false, ..s.clone() }).collect())
}

fn deal<T: Serialize + DeserializeOwned>(parts: &[&[u8]], p: usize, what: &str) -> Result<Vec<Vec<u8>>, String> {
    let mut buckets: Vec<Vec<T>> = (0..p).map(|_| Vec::new()).collect();
    let mut i = 0;
    for (subtask, bytes) in parts.iter().enumerate() {
        let items: Vec<T> = if bytes.is_empty() {
            Vec::new()
        } else {
            crate::bytes::decode(bytes)
                .map_err(|e| format!("rescale: {what} of old subtask {subtask} did not deserialize: {e}"))?
        };
        for item in items {
            buckets[i % p].push(item);
            i += 1;
        }
    }
    Ok(buckets.iter().map(|b| bincode::serialize(b).expect("state serializes")).collect())
}

/// The states of `old.len()` subtasks (`old_writers` of them with a writer), redistributed
/// over `readers` readers and `writers` writers (subtask `i` hosts reader `i` and writer `i`
/// where they exist). Writers whose count did not change keep their own state, as Flink
/// redistributes an operator's state only when its own parallelism changes.
///
/// `bug` [`RuntimeBug::SplitStateByIndex`]: new reader `i` restores old reader `i`'s splits.
pub(crate) fn redistribute<Src: Source, Snk: Sink>(
    old: &[SubtaskState],
    old_writers: usize,
    readers: usize,
    writers: usize,
    bug: Option<RuntimeBug>,
) -> Result<Vec<SubtaskState>, String> {
    let splits = match bug {
        Some(RuntimeBug::SplitStateByIndex) => {
            let none = bincode::serialize(&Vec::<Src::Split>::new()).expect("serializes");
            (0..readers).map(|i| old.get(i).map_or(none.clone(), |s| s.splits.clone())).collect()
        }
        _ => deal::<Src::Split>(&old.iter().map(|s| s.splits.as_slice()).collect::<Vec<_>>(), readers, "split state")?,
    };
    let (writer, committables) = if old_writers == writers && old.len() >= writers {
        (
            old[..writers].iter().map(|s| s.writer.clone()).collect(),
            old[..writers].iter().map(|s| s.committables.clone()).collect(),
        )
    } else {
        let writer = deal::<Snk::WriterState>(
            &old.iter().map(|s| s.writer.as_slice()).collect::<Vec<_>>(),
            writers,
            "writer state",
        )?;
        let committables = deal::<(CheckpointId, Snk::Committable)>(
            &old.iter().map(|s| s.committables.as_slice()).collect::<Vec<_>>(),
            writers,
            "committables",
        )?;
        (writer, committables)
    };
    let none = || bincode::serialize(&Vec::<()>::new()).expect("serializes");
    Ok((0..readers.max(writers))
        .map(|i| SubtaskState {
            splits: splits.get(i).cloned().unwrap_or_else(none),
            writer: writer.get(i).cloned().unwrap_or_else(none),
            committables: committables.get(i).cloned().unwrap_or_else(none),
            finished: false,
        })
        .collect())
}
