//! Watermark alignment: a split paused because its watermark ran more than the maximum
//! drift ahead of the group's minimum is not read until it is resumed. The reader base
//! tells which records of a paused split came from a fetch that began after the pause
//! reached the split reader (a `PausedSplitRead`); each of them fails the run. Records of a
//! paused split fetched before the pause (still queued) are not judged: Flink's readers
//! emit them too.
//!
//! A pause needs a cause: a split paused while its watermark was within the group's drift
//! (at or below `minimum` + drift) fails the run, whether alignment paused it (its own
//! `SplitsPaused`) or the reader held it paused unasked (`UnaskedPause`: a reader built on
//! `SourceReaderBase` is compared with what alignment asked after every pause and resume).
//! Such a split is not read until something resumes it, and nothing will: alignment thinks
//! it is running. Its pause, its watermark, the group minimum and the drift are the evidence.
//!
//! Only runs whose source is read with alignment announce a group minimum; for the rest the
//! check passes as "not claimed". A reader not built on `SourceReaderBase` does not say which
//! fetch a record came from: its pauses pass as not judged, and the verdict says so.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::history::attempt::Shown;
use crate::history::EventKind;
use std::collections::BTreeMap;

const NAME: &str = "watermark-alignment";

/// How many record ids one evidence line names.
const IDS_SHOWN: usize = 5;

/// A pause in force: its event, the split's watermark, the group minimum and the maximum.
type Pause = (usize, i64, i64, i64);

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    if !f.events.iter().any(|e| matches!(e.kind, EventKind::WatermarkAlignment { .. })) {
        return Verdict::pass(
            NAME,
            "not claimed: no group minimum was announced (the source is read without watermark alignment, or no reader reported its watermark before the run ended)",
        );
    }
    // Per (subtask, attempt, split): the pause in force (event, split watermark, minimum, maximum).
    let mut in_force: BTreeMap<(usize, u64, &str), Pause> = BTreeMap::new();
    let (mut pauses, mut resumes, mut reads, mut bad_records, mut unobserved, mut causeless) =
        (0usize, 0usize, 0usize, 0usize, 0usize, 0usize);
    let mut evidence = Vec::new();
    let mut first_bad = None;
    for (i, e) in f.events.iter().enumerate() {
        match &e.kind {
            EventKind::SplitsPaused { subtask, attempt, minimum, max_allowed, paused, resumed, observed } => {
                for (split, w) in paused {
                    if w <= max_allowed {
                        causeless += 1;
                        first_bad.get_or_insert(i);
                        if evidence.len() < EVIDENCE_MAX {
                            evidence.push(without_cause(
                                *subtask,
                                *attempt,
                                split,
                                Some(*w),
                                *minimum,
                                *max_allowed,
                                "alignment paused it",
                                &f.describe(i),
                            ));
                        }
                    }
                    pauses += 1;
                    unobserved += usize::from(!observed);
                    in_force.insert((*subtask, *attempt, split), (i, *w, *minimum, *max_allowed));
                }
                for split in resumed {
                    resumes += 1;
                    in_force.remove(&(*subtask, *attempt, split.as_str()));
                }
            }
            EventKind::UnaskedPause { subtask, attempt, minimum, max_allowed, splits } => {
                for (split, w) in splits {
                    causeless += 1;
                    first_bad.get_or_insert(i);
                    if evidence.len() < EVIDENCE_MAX {
                        evidence.push(without_cause(
                            *subtask,
                            *attempt,
                            split,
                            *w,
                            *minimum,
                            *max_allowed,
                            "its reader held it paused though alignment had not paused it (or had resumed it)",
                            &f.describe(i),
                        ));
                    }
                }
            }
            EventKind::PausedSplitRead { subtask, attempt, split, ids } => {
                reads += 1;
                bad_records += ids.len();
                first_bad.get_or_insert(i);
                if evidence.len() < EVIDENCE_MAX {
                    let shown: Vec<String> = ids.iter().take(IDS_SHOWN).map(|id| format!("{id}")).collect();
                    let more = if ids.len() > IDS_SHOWN {
                        format!(" and {} more", ids.len() - IDS_SHOWN)
                    } else {
                        String::new()
                    };
                    let why = match in_force.get(&(*subtask, *attempt, split.as_str())) {
                        Some((at, w, minimum, max_allowed)) => format!(
                            "paused at {} with watermark {w}, above the group minimum {minimum} plus the drift ({max_allowed})",
                            f.describe(*at)
                        ),
                        None => "paused".to_string(),
                    };
                    evidence.push(format!(
                        "subtask {subtask} attempt {}: split {split:?} was {why}, yet its split reader returned {}{more} from a fetch that began after the pause ({})",
                        Shown(*attempt),
                        shown.join(", "),
                        f.describe(i)
                    ));
                }
            }
            _ => {}
        }
    }
    if reads == 0 && causeless == 0 {
        let mut summary = format!("{pauses} splits paused, {resumes} resumed; no paused split was read");
        if unobserved > 0 {
            summary += &format!(
                "; {unobserved} of the pauses could not be judged: the reader does not say which fetch a record came from (readers built on SourceReaderBase do)"
            );
        }
        return Verdict::pass(NAME, summary);
    }
    let mut faults = Vec::new();
    if reads > 0 {
        faults.push(format!("{bad_records} records read from paused splits in {reads} fetches"));
    }
    if causeless > 0 {
        faults.push(format!("{causeless} splits paused without cause (within the drift)"));
    }
    let summary = format!("{} ({pauses} pauses)", faults.join("; "));
    Verdict::fail(NAME, summary, evidence, first_bad)
}

/// One evidence line for a split paused within the drift.
#[allow(clippy::too_many_arguments)]
fn without_cause(
    subtask: usize,
    attempt: u64,
    split: &str,
    watermark: Option<i64>,
    minimum: i64,
    max_allowed: i64,
    who: &str,
    at: &str,
) -> String {
    let w = match watermark {
        Some(w) => format!("watermark {w}"),
        None => "no watermark yet".to_string(),
    };
    format!(
        "subtask {subtask} attempt {}: split {split:?} was paused without cause: {who} with {w}, within the group minimum {minimum} plus the drift ({} ms, at most {max_allowed}) ({at})",
        Shown(attempt),
        max_allowed.saturating_sub(minimum)
    )
}
