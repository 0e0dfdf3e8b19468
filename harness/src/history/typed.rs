//! Typed values of history events that were text before: the protocol phase a crash was
//! aimed at, the scope of a failover, a commit's outcome, a fault, why a checkpoint was aborted. Each records as its text (the same bytes and JSON
//! as before), so histories and their hashes are unchanged; checks and marks match on the
//! types.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point in a subtask's part of the checkpoint protocol where a crash can be aimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// The barrier arrived; the reader has not snapshotted yet.
    BeforeBarrier,
    /// The reader snapshotted (the barrier passed); the writer has not prepared yet.
    AfterReaderSnapshot,
    /// The writer prepared its committables; the ack is not sent yet.
    AfterPrepareCommit,
    /// The ack was sent; the notification of completion has not arrived yet.
    AfterAck,
    /// The committer's external commit took effect; the committer has not recorded it yet.
    /// On a task executor (a global committer's task too).
    InsideCommit,
    /// A restored attempt committed a recovered committable (before reading anything); it
    /// has not recorded that yet.
    InsideRecoveredCommit,
    /// An attempt restored its state and started its reader; it has neither committed its
    /// recovered committables nor polled yet.
    AfterRestore,
    /// A subtask acknowledged the barrier of a stopping savepoint (its source stopped); the
    /// savepoint has not completed.
    DuringSavepoint,
    /// On the job master: a completed checkpoint is stored; no subtask was notified yet.
    BeforeNotify,
}

impl Phase {
    /// Every phase, in protocol order.
    pub const ALL: [Phase; 9] = [
        Phase::BeforeBarrier,
        Phase::AfterReaderSnapshot,
        Phase::AfterPrepareCommit,
        Phase::AfterAck,
        Phase::InsideCommit,
        Phase::InsideRecoveredCommit,
        Phase::AfterRestore,
        Phase::DuringSavepoint,
        Phase::BeforeNotify,
    ];

    /// The phases a chain of crashes reaches one after another, each crash's restart leading
    /// to the next phase: a crash after the ack leaves a completed checkpoint; a job master
    /// that dies before notifying leaves committables no one committed, so every attempt
    /// restores them, and the next crash lands after such a restore, before the recovered
    /// commit; that restart commits them again, inside which the next crash lands; then a
    /// plain commit. [`Phase::DuringSavepoint`] needs a stopping savepoint and is not in it.
    pub const CHAIN: [Phase; 8] = [
        Phase::BeforeBarrier,
        Phase::AfterReaderSnapshot,
        Phase::AfterPrepareCommit,
        Phase::AfterAck,
        Phase::BeforeNotify,
        Phase::AfterRestore,
        Phase::InsideRecoveredCommit,
        Phase::InsideCommit,
    ];

    /// The coverage-mark name for a crash at this phase.
    pub fn mark(self) -> &'static str {
        match self {
            Phase::BeforeBarrier => "crash-at:before-barrier",
            Phase::AfterReaderSnapshot => "crash-at:after-reader-snapshot",
            Phase::AfterPrepareCommit => "crash-at:after-prepare-commit",
            Phase::AfterAck => "crash-at:after-ack",
            Phase::InsideCommit => "crash-at:inside-commit",
            Phase::InsideRecoveredCommit => "crash-at:inside-recovered-commit",
            Phase::AfterRestore => "crash-at:after-restore",
            Phase::DuringSavepoint => "crash-at:during-savepoint",
            Phase::BeforeNotify => "crash-at:before-notify",
        }
    }

    /// Whether a subtask can reach this phase (a task executor crashes there).
    pub fn on_subtasks(self) -> bool {
        self != Phase::BeforeNotify
    }

    /// Whether the job master can reach this phase (it crashes there). It commits nothing:
    /// a global committer is a task on a task executor, which reaches the commit phases.
    pub fn on_job_master(self) -> bool {
        self == Phase::BeforeNotify
    }
}

/// How far a failover reaches, as the job master recorded it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FailoverScope {
    /// The failed subtasks' region restarts (splits go back to the enumerator).
    Region,
    /// Every subtask restarts from the latest completed checkpoint.
    Global,
    /// A new job-master incarnation restores everything from the latest checkpoint.
    JobMaster,
    /// The job restarts from a checkpoint taken at another parallelism.
    Rescale,
}

impl FailoverScope {
    /// Every scope.
    pub const ALL: [FailoverScope; 4] =
        [FailoverScope::Region, FailoverScope::Global, FailoverScope::JobMaster, FailoverScope::Rescale];

    /// The scope's name in the history.
    pub fn as_str(self) -> &'static str {
        match self {
            FailoverScope::Region => "region",
            FailoverScope::Global => "global",
            FailoverScope::JobMaster => "jobmaster",
            FailoverScope::Rescale => "rescale",
        }
    }

    /// Reads back what [`FailoverScope::as_str`] wrote.
    pub fn parse(text: &str) -> Option<FailoverScope> {
        FailoverScope::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// How one commit request ended (a committer's answer, and what the history records of it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CommitOutcome {
    /// Committed now.
    Committed,
    /// It had been committed before (e.g. by an earlier attempt); nothing to do.
    AlreadyCommitted,
    /// Transient failure: the runtime retries it later.
    RetryLater,
    /// It cannot be committed, for a known reason (the data is given up; the run says so).
    FailedKnown(String),
    /// It cannot be committed and nobody knows why: the job fails.
    FailedUnknown(String),
}

/// A commit outcome in a history event: recorded as its `Debug` text (`RetryLater`,
/// `FailedKnown("why")`), as before it was typed.
pub(crate) mod outcome_as_text {
    use super::CommitOutcome;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(o: &CommitOutcome, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{o:?}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<CommitOutcome, D::Error> {
        let text = String::deserialize(d)?;
        parse(&text).ok_or_else(|| serde::de::Error::custom(format!("not a commit outcome: {text:?}")))
    }

    /// Reads back what `Debug` wrote.
    pub fn parse(text: &str) -> Option<CommitOutcome> {
        let reason = |prefix: &str| text.strip_prefix(prefix)?.strip_suffix(')').and_then(unescape);
        Some(match text {
            "Committed" => CommitOutcome::Committed,
            "AlreadyCommitted" => CommitOutcome::AlreadyCommitted,
            "RetryLater" => CommitOutcome::RetryLater,
            _ => match reason("FailedKnown(") {
                Some(r) => CommitOutcome::FailedKnown(r),
                None => CommitOutcome::FailedUnknown(reason("FailedUnknown(")?),
            },
        })
    }

    /// A string as `Debug` quotes it, unquoted.
    fn unescape(quoted: &str) -> Option<String> {
        let inner = quoted.strip_prefix('"')?.strip_suffix('"')?;
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            out.push(match chars.next()? {
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                '0' => '\0',
                'u' => {
                    let hex: String = chars.by_ref().skip(1).take_while(|c| *c != '}').collect();
                    char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
                }
                other => other,
            });
        }
        Some(out)
    }
}

/// A fault the gateway or an external system applied, as the history records it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FaultKind {
    /// A drop rule dropped the message (`drop`).
    Drop,
    /// A partition dropped the message (`partition`).
    Partition,
    /// The request took effect and its response was lost (`lose-response`).
    LoseResponse,
    /// A delay rule held the message back (`delay`).
    Delay,
    /// The callee refused the request without acting on it (`refuse:<refusal>`).
    Refuse(String),
    /// The log acknowledged a retried batch without appending it again (`duplicate-sequence`).
    DuplicateSequence,
    /// The log rejected a batch older than its deduplication window (`stale-sequence`).
    StaleSequence,
    /// The log rejected a batch ahead of the next sequence (`out-of-order-sequence`).
    OutOfOrderSequence,
    /// The log aborted a transaction at its timeout (`txn-timeout`).
    TxnTimeout,
    /// A leader crash lost acknowledged records not yet replicated (`unreplicated-lost`).
    UnreplicatedLost,
    /// A crash left a partial append in a file (`torn-append`).
    TornAppend,
    /// The bucket answered `503 SlowDown` (`slow-down`).
    SlowDown,
    /// The bucket answered `500 InternalError` (`internal-error`).
    InternalError,
    /// A lifecycle rule aborted an incomplete upload (`upload-expired`).
    UploadExpired,
    /// A group coordinator removed a member whose session expired (`session-expired`).
    SessionExpired,
    /// A message straggled: late, overtaken by its link's later messages (`straggle`).
    Straggle,
    /// A broker without partition verification wrote a transactional produce its transaction
    /// never added: it hangs (`hanging-transaction`).
    HangingTransaction,
    /// A hold rule kept a message back until its sender's next message of a kind (`hold`).
    Hold,
    /// A held message landed right after its sender's releasing message: the system applies
    /// it after the client's next step (`applied-late`).
    AppliedLate,
}

impl FaultKind {
    const NAMED: [FaultKind; 18] = [
        FaultKind::Drop,
        FaultKind::Partition,
        FaultKind::LoseResponse,
        FaultKind::Delay,
        FaultKind::DuplicateSequence,
        FaultKind::StaleSequence,
        FaultKind::OutOfOrderSequence,
        FaultKind::TxnTimeout,
        FaultKind::UnreplicatedLost,
        FaultKind::TornAppend,
        FaultKind::SlowDown,
        FaultKind::InternalError,
        FaultKind::UploadExpired,
        FaultKind::SessionExpired,
        FaultKind::Straggle,
        FaultKind::HangingTransaction,
        FaultKind::Hold,
        FaultKind::AppliedLate,
    ];

    /// The fault's text in the history.
    pub fn text(&self) -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed(match self {
            FaultKind::Drop => "drop",
            FaultKind::Partition => "partition",
            FaultKind::LoseResponse => "lose-response",
            FaultKind::Delay => "delay",
            FaultKind::Refuse(why) => return std::borrow::Cow::Owned(format!("refuse:{why}")),
            FaultKind::DuplicateSequence => "duplicate-sequence",
            FaultKind::StaleSequence => "stale-sequence",
            FaultKind::OutOfOrderSequence => "out-of-order-sequence",
            FaultKind::TxnTimeout => "txn-timeout",
            FaultKind::UnreplicatedLost => "unreplicated-lost",
            FaultKind::TornAppend => "torn-append",
            FaultKind::SlowDown => "slow-down",
            FaultKind::InternalError => "internal-error",
            FaultKind::UploadExpired => "upload-expired",
            FaultKind::SessionExpired => "session-expired",
            FaultKind::Straggle => "straggle",
            FaultKind::HangingTransaction => "hanging-transaction",
            FaultKind::Hold => "hold",
            FaultKind::AppliedLate => "applied-late",
        })
    }

    /// Reads back what [`FaultKind::text`] wrote.
    pub fn parse(text: &str) -> Option<FaultKind> {
        if let Some(why) = text.strip_prefix("refuse:") {
            return Some(FaultKind::Refuse(why.to_string()));
        }
        FaultKind::NAMED.into_iter().find(|f| f.text() == text)
    }

    /// Whether the message was dropped (by a drop rule or a partition).
    pub fn dropped(&self) -> bool {
        matches!(self, FaultKind::Drop | FaultKind::Partition)
    }
}

/// Why the job master aborted a pending checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbortReason {
    /// A subtask declined it (`declined by subtask <s>: <why>`).
    Declined {
        /// The subtask that declined.
        subtask: usize,
        /// What it said.
        why: String,
    },
    /// It was not complete within the checkpoint timeout (`timed out`).
    TimedOut,
    /// A later checkpoint completed first (`subsumed by checkpoint <c>`).
    SubsumedBy(u64),
    /// A failover gave every pending checkpoint up (`failover`).
    Failover,
    /// A stop-with-savepoint was cancelled (`stop-with-savepoint cancelled`).
    SavepointCancelled,
    /// The job is finishing: its final checkpoint completed (`the job is finishing`).
    JobFinishing,
}

impl AbortReason {
    /// The reason's text in the history.
    pub fn text(&self) -> String {
        match self {
            AbortReason::Declined { subtask, why } => format!("declined by subtask {subtask}: {why}"),
            AbortReason::TimedOut => "timed out".into(),
            AbortReason::SubsumedBy(c) => format!("subsumed by checkpoint {c}"),
            AbortReason::Failover => "failover".into(),
            AbortReason::SavepointCancelled => "stop-with-savepoint cancelled".into(),
            AbortReason::JobFinishing => "the job is finishing".into(),
        }
    }

    /// Reads back what [`AbortReason::text`] wrote.
    pub fn parse(text: &str) -> Option<AbortReason> {
        if let Some(rest) = text.strip_prefix("declined by subtask ") {
            let (subtask, why) = rest.split_once(": ")?;
            return Some(AbortReason::Declined { subtask: subtask.parse().ok()?, why: why.to_string() });
        }
        if let Some(c) = text.strip_prefix("subsumed by checkpoint ") {
            return Some(AbortReason::SubsumedBy(c.parse().ok()?));
        }
        [AbortReason::TimedOut, AbortReason::Failover, AbortReason::SavepointCancelled, AbortReason::JobFinishing]
            .into_iter()
            .find(|r| r.text() == text)
    }
}

/// Display, Serialize and Deserialize for a type recorded as its text: `$text` writes it,
/// `parse` reads it back; the text's bytes are those of the `String` it replaced.
macro_rules! recorded_as_text {
    ($ty:ty, $text:ident, $what:literal) => {
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.$text())
            }
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.$text())
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                <$ty>::parse(&text)
                    .ok_or_else(|| serde::de::Error::custom(format!(concat!("unknown ", $what, " {:?}"), text)))
            }
        }
    };
}

recorded_as_text!(FailoverScope, as_str, "failover scope");
recorded_as_text!(FaultKind, text, "fault");
recorded_as_text!(AbortReason, text, "abort reason");

/// A phase in a history event: recorded as its name (`BeforeBarrier`), as before it was typed.
pub(crate) mod phase_as_text {
    use super::Phase;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(p: &Phase, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{p:?}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Phase, D::Error> {
        let text = String::deserialize(d)?;
        Phase::ALL
            .into_iter()
            .find(|p| format!("{p:?}") == text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown phase {text:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::EventKind;

    #[test]
    fn commit_outcomes_record_as_their_debug_text_and_read_back() {
        let outcomes = [
            CommitOutcome::Committed,
            CommitOutcome::AlreadyCommitted,
            CommitOutcome::RetryLater,
            CommitOutcome::FailedKnown("gone: \"x\"\n\\ \u{1} é".into()),
            CommitOutcome::FailedUnknown(String::new()),
        ];
        for outcome in outcomes {
            let event = EventKind::GlobalCommitOutcome { checkpoint: 2, outcome: outcome.clone() };
            let text = format!("{outcome:?}");
            let json = serde_json::to_string(&event).unwrap();
            assert!(json.contains(&serde_json::to_string(&text).unwrap()), "{json}");
            let back: EventKind = serde_json::from_str(&json).unwrap();
            assert!(matches!(back, EventKind::GlobalCommitOutcome { outcome: o, .. } if o == outcome), "{text}");
            let bytes = bincode::serialize(&event).unwrap();
            let before = bincode::serialize(&(2u64, text)).unwrap();
            assert!(bytes.ends_with(&before), "recorded as the text it replaced");
        }
    }

    #[test]
    fn typed_values_record_as_the_text_they_replaced_and_read_back() {
        // The same bytes as the text (so history hashes stay), the same JSON.
        for scope in FailoverScope::ALL {
            assert_eq!(bincode::serialize(&scope).unwrap(), bincode::serialize(scope.as_str()).unwrap());
            let json = serde_json::to_string(&scope).unwrap();
            assert_eq!(json, format!("\"{scope}\""));
            assert_eq!(serde_json::from_str::<FailoverScope>(&json).unwrap(), scope);
        }
        for phase in Phase::ALL {
            let typed = EventKind::CrashPoint { node: "te-0".into(), subtask: Some(1), phase, checkpoint: 3 };
            let json = serde_json::to_string(&typed).unwrap();
            assert!(json.contains(&format!("\"phase\":\"{phase:?}\"")), "{json}");
            let back: EventKind = serde_json::from_str(&json).unwrap();
            assert!(matches!(back, EventKind::CrashPoint { phase: p, .. } if p == phase));
        }
        let mut faults = FaultKind::NAMED.to_vec();
        faults.push(FaultKind::Refuse("disk full".into()));
        for fault in faults {
            assert_eq!(bincode::serialize(&fault).unwrap(), bincode::serialize(&fault.text()).unwrap());
            assert_eq!(FaultKind::parse(&fault.text()), Some(fault.clone()));
            let json = serde_json::to_string(&fault).unwrap();
            assert_eq!(serde_json::from_str::<FaultKind>(&json).unwrap(), fault);
        }
        let reasons = [
            AbortReason::Declined { subtask: 3, why: "declined by the scenario: a: b".into() },
            AbortReason::TimedOut,
            AbortReason::SubsumedBy(7),
            AbortReason::Failover,
            AbortReason::SavepointCancelled,
            AbortReason::JobFinishing,
        ];
        for reason in reasons {
            assert_eq!(bincode::serialize(&reason).unwrap(), bincode::serialize(&reason.text()).unwrap());
            let json = serde_json::to_string(&reason).unwrap();
            assert_eq!(serde_json::from_str::<AbortReason>(&json).unwrap(), reason);
        }
        assert!(serde_json::from_str::<FailoverScope>("\"regional\"").unwrap_err().to_string().contains("regional"));
    }
}
