//! Declared loss: records a system's own rule destroyed before any commit made them
//! visible, whose loss the connector then reported.
//!
//! A lifecycle rule that aborts an upload a completed checkpoint still needs destroys the
//! only copy of its records: nothing a connector does afterwards brings them back. A
//! connector that finds out must say so: its commit ends failed with a known reason naming
//! what is gone (the object's key or the upload's id), as Flink's
//! `CommitRequest::signalFailedWithKnownReason` does. Such a loss is declared; every other
//! missing record is lost silently, and so is a destroyed record whose commit claimed
//! success. `no-loss` judges the silent ones, `declared-loss` the declared ones.

use crate::history::{CommitOutcome, Event, EventKind};
use crate::record::RecordId;
use std::collections::BTreeMap;

/// Every record whose loss was declared, with what destroyed it and the declaration, for
/// evidence: destroyed by a [`EventKind::DataDestroyed`] and named, afterwards, by a commit
/// that failed with a known reason mentioning its key or upload.
pub fn declared_losses(events: &[Event]) -> BTreeMap<RecordId, String> {
    let mut destroyed: Vec<(usize, &str, &str, &[RecordId])> = Vec::new();
    let mut declared = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        let reason = match &e.kind {
            EventKind::DataDestroyed { key, upload, records } => {
                destroyed.push((i, key, upload, records));
                continue;
            }
            EventKind::CommitOutcome { outcome: CommitOutcome::FailedKnown(reason), .. }
            | EventKind::GlobalCommitOutcome { outcome: CommitOutcome::FailedKnown(reason), .. } => reason,
            _ => continue,
        };
        for (at, key, upload, records) in &destroyed {
            if names(reason, key) || names(reason, upload) {
                let why =
                    format!("upload {upload} of {key} destroyed at event #{at}, declared at event #{i}: {reason}");
                for id in records.iter() {
                    declared.entry(*id).or_insert_with(|| why.clone());
                }
            }
        }
    }
    declared
}

/// Whether `reason` names `token` whole: not as a piece of a longer key or id
/// (`out/part-1` is not named by `out/part-10` or `out/part-1-tail`).
fn names(reason: &str, token: &str) -> bool {
    let part_of_a_name = |c: char| c.is_alphanumeric() || "-_./".contains(c);
    !token.is_empty()
        && reason.match_indices(token).any(|(at, _)| {
            let before = reason[..at].chars().next_back();
            let after = reason[at + token.len()..].chars().next();
            !before.is_some_and(part_of_a_name) && !after.is_some_and(part_of_a_name)
        })
}

#[cfg(test)]
mod tests {
    use super::names;

    #[test]
    fn a_key_or_upload_is_named_whole() {
        assert!(names("upload upload-7 of out/part-1 is gone", "out/part-1"));
        assert!(names("upload upload-7 of out/part-1 is gone", "upload-7"));
        assert!(names("gone: out/part-1", "out/part-1"));
        assert!(names("\"out/part-1\" expired", "out/part-1"));
        assert!(!names("upload upload-70 of out/part-10 is gone", "out/part-1"));
        assert!(!names("upload upload-70 of out/part-10 is gone", "upload-7"));
        assert!(!names("the tail out/part-1-tail is gone", "out/part-1"));
        assert!(!names("anything", ""));
    }
}
