//! The transactional producer's calls, as librdkafka makes them: `init_transactions`,
//! `begin_transaction`, `send_offsets_to_transaction`, `commit_transaction` and
//! `abort_transaction`, the partitions a transaction adds at the coordinator, and the epoch
//! bump (KIP-360) that aborts a transaction whose message failed.

use super::core::{txn_error, Core, Phase, Sends};
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::util::Timeout;
use crate::wire::deadline;
use connsim::systems::{KafkaCode, KafkaRequest, KafkaResponse, ProducerIdentity};

/// librdkafka's answer to a transactional call while a commit (`commit`) or an abort that
/// timed out is still under way: retriable, naming that call.
fn conflict(commit: bool) -> KafkaError {
    let pending = if commit { "commit_transaction" } else { "abort_transaction" };
    let why = format!("Conflicting {pending} API call is already in progress");
    KafkaError::Transaction(txn_error(RDKafkaErrorCode::Conflict, why).retriable())
}

impl Core {
    /// A `commit_transaction` whose flush timed out is under way: only it resumes.
    pub(crate) fn commit_under_way(&self) {
        let mut phase = self.phase.lock().unwrap();
        if matches!(*phase, Phase::InTransaction) {
            *phase = Phase::Ending { commit: true };
        }
    }

    /// librdkafka registers a partition with the transaction (`AddPartitionsToTxn`) before
    /// its first produce to it in each transaction, retrying until the messages time out. A
    /// partition that cannot join leaves the transaction to abort; a fenced producer is done.
    pub(super) async fn add_partition(
        &self,
        sends: &mut Sends,
        id: &str,
        producer: ProducerIdentity,
        topic: &str,
        partition: u32,
        until: Option<madsim::time::Instant>,
    ) -> Result<(), RDKafkaErrorCode> {
        let key = (topic.to_string(), partition);
        if sends.added.contains(&key) {
            return Ok(());
        }
        // From here on the coordinator may know the transaction: ending it takes an EndTxn.
        sends.txn_work = true;
        let req = KafkaRequest::AddPartitionsToTxn {
            transactional_id: id.to_string(),
            producer,
            topic: key.0.clone(),
            partition,
        };
        let code = match self.wire.call_until(&req, until).await {
            Some(KafkaResponse::Ok) => {
                sends.added.insert(key);
                return Ok(());
            }
            Some(KafkaResponse::Error(code)) => RDKafkaErrorCode::from(code),
            Some(_) => RDKafkaErrorCode::State,
            None => RDKafkaErrorCode::MessageTimedOut,
        };
        let fatal = matches!(
            code,
            RDKafkaErrorCode::ProducerFenced
                | RDKafkaErrorCode::InvalidProducerEpoch
                | RDKafkaErrorCode::InvalidProducerIdMapping
        );
        let e = txn_error(code, format!("a partition could not join the transaction: {code}"));
        self.fail(if fatal { e.fatal() } else { e.abortable() });
        Err(code)
    }

    /// librdkafka's end of an abort whose transaction lost a message after it took its
    /// sequence (KIP-360): once the EndTxn went through, `InitProducerId` with the
    /// producer's own id and epoch bumps the epoch, so the next transaction starts its
    /// sequences at 0 (the partition's sequence may have a gap).
    async fn bump_epoch(&self, sends: &mut Sends, id: String, until: Option<madsim::time::Instant>) -> KafkaResult<()> {
        let producer = sends.identity;
        let transaction_timeout_ms = self.settings.transaction_timeout_ms;
        let req = KafkaRequest::InitProducerId { transactional_id: Some(id), transaction_timeout_ms, producer };
        match self.wire.call_until(&req, until).await {
            Some(KafkaResponse::Producer(p)) => {
                sends.new_epoch(p);
                *self.phase.lock().unwrap() = Phase::Ready;
                Ok(())
            }
            Some(KafkaResponse::Error(code)) => {
                Err(self.fail(txn_error(code.into(), "abort_transaction: the epoch bump was refused").fatal()))
            }
            _ => {
                *self.phase.lock().unwrap() = Phase::Ending { commit: false };
                let why = "abort_transaction timed out bumping the epoch: call it again to resume it";
                Err(KafkaError::Transaction(txn_error(RDKafkaErrorCode::OperationTimedOut, why).retriable()))
            }
        }
    }

    pub(crate) async fn init_transactions(&self, timeout: Timeout) -> KafkaResult<()> {
        let id = self.transactional()?.to_string();
        match &*self.phase.lock().unwrap() {
            Phase::Init => {}
            Phase::Fatal(e) | Phase::Abortable(e) => return Err(KafkaError::Transaction(e.clone())),
            Phase::Ending { commit } => return Err(conflict(*commit)),
            // librdkafka: once a producer id is acquired, init_transactions is a state error.
            other => {
                let why = format!("init_transactions is not valid in state {other:?}: call it once per producer");
                return Err(KafkaError::Transaction(txn_error(RDKafkaErrorCode::State, why)));
            }
        }
        let req = KafkaRequest::InitProducerId {
            transactional_id: Some(id),
            transaction_timeout_ms: self.settings.transaction_timeout_ms,
            producer: None,
        };
        let mut sends = self.sends.lock().await;
        match self.wire.call_until(&req, deadline(timeout)).await {
            Some(KafkaResponse::Producer(p)) => {
                sends.new_epoch(p);
                *self.phase.lock().unwrap() = Phase::Ready;
                Ok(())
            }
            // librdkafka: a refused InitProducerId (a transaction timeout above the broker's
            // maximum, say) is a fatal error.
            Some(KafkaResponse::Error(code)) => {
                Err(self.fail(txn_error(code.into(), "init_transactions refused").fatal()))
            }
            Some(other) => Err(KafkaError::Transaction(txn_error(RDKafkaErrorCode::State, format!("{other:?}")))),
            None => Err(KafkaError::Transaction(
                txn_error(RDKafkaErrorCode::OperationTimedOut, "init_transactions timed out").retriable(),
            )),
        }
    }

    pub(crate) fn begin_transaction(&self) -> KafkaResult<()> {
        self.transactional()?;
        let mut phase = self.phase.lock().unwrap();
        match &*phase {
            Phase::Ready => {
                *phase = Phase::InTransaction;
                Ok(())
            }
            Phase::Fatal(e) => Err(KafkaError::Transaction(e.clone())),
            Phase::Ending { commit } => Err(conflict(*commit)),
            other => Err(KafkaError::Transaction(txn_error(
                RDKafkaErrorCode::State,
                format!("begin_transaction is not valid in state {other:?}"),
            ))),
        }
    }

    pub(crate) async fn send_offsets(
        &self,
        offsets: Vec<(String, u32, u64)>,
        group: String,
        member: Option<connsim::systems::MemberIdentity>,
        timeout: Timeout,
    ) -> KafkaResult<()> {
        let id = self.transactional()?.to_string();
        match &mut *self.phase.lock().unwrap() {
            Phase::InTransaction => {}
            Phase::Fatal(e) | Phase::Abortable(e) => return Err(KafkaError::Transaction(e.clone())),
            Phase::Ending { commit } => return Err(conflict(*commit)),
            other => {
                let why = format!("send_offsets_to_transaction is not valid in state {other:?}");
                return Err(KafkaError::Transaction(txn_error(RDKafkaErrorCode::State, why)));
            }
        }
        let mut sends = self.sends.lock().await;
        sends.txn_work = true;
        let producer = sends.identity.expect("initialised");
        let req = KafkaRequest::TxnOffsetCommit { transactional_id: id, producer, group, member, offsets };
        match self.wire.call_until(&req, deadline(timeout)).await {
            Some(KafkaResponse::Ok) => Ok(()),
            Some(KafkaResponse::Error(code)) => {
                let e = txn_error(code.into(), "send_offsets_to_transaction refused");
                Err(self.fail(if code == KafkaCode::ProducerFenced { e.fatal() } else { e.abortable() }))
            }
            _ => Err(KafkaError::Transaction(
                txn_error(RDKafkaErrorCode::OperationTimedOut, "send_offsets_to_transaction timed out").retriable(),
            )),
        }
    }

    /// `commit_transaction` (`commit`) or `abort_transaction`.
    pub(crate) async fn end(&self, commit: bool, timeout: Timeout) -> KafkaResult<()> {
        // One deadline for the call, its EndTxn and the epoch bump after it.
        let until = deadline(timeout);
        let id = self.transactional()?.to_string();
        let what = if commit { "commit_transaction" } else { "abort_transaction" };
        match &*self.phase.lock().unwrap() {
            Phase::InTransaction => {}
            // librdkafka: a call that timed out goes on in the background, and calling it
            // again resumes it; the other one conflicts with it meanwhile.
            Phase::Ending { commit: c } if *c == commit => {}
            Phase::Ending { commit: c } => return Err(conflict(*c)),
            Phase::Abortable(_) if !commit => {}
            Phase::Abortable(e) | Phase::Fatal(e) => return Err(KafkaError::Transaction(e.clone())),
            other => {
                let why = format!("{what} is not valid in state {other:?}");
                return Err(KafkaError::Transaction(txn_error(RDKafkaErrorCode::State, why)));
            }
        };
        let mut sends = self.sends.lock().await;
        if !commit && sends.needs_bump && !sends.txn_work {
            // The EndTxn went through before this call timed out: the bump is what is left.
            return self.bump_epoch(&mut sends, id, until).await;
        }
        if !sends.txn_work {
            // The broker never heard of the transaction: librdkafka ends it locally.
            *self.phase.lock().unwrap() = Phase::Ready;
            return Ok(());
        }
        let producer = sends.identity.expect("initialised");
        let req = KafkaRequest::EndTxn { transactional_id: id.clone(), producer, commit };
        match self.wire.call_until(&req, until).await {
            Some(KafkaResponse::Producer(p)) => {
                if p.epoch != producer.epoch {
                    // KIP-890: the next transaction runs under the new epoch, sequences from 0.
                    sends.sequences.clear();
                }
                sends.identity = Some(p);
                sends.transaction_ended();
                if !commit && sends.needs_bump {
                    return self.bump_epoch(&mut sends, id, until).await;
                }
                *self.phase.lock().unwrap() = Phase::Ready;
                Ok(())
            }
            // librdkafka's EndTxn handler: a fenced epoch and a transaction the coordinator
            // no longer has in the state asked for (`INVALID_TXN_STATE`) are fatal; what else
            // the broker refuses leaves the transaction to abort.
            Some(KafkaResponse::Error(code)) => {
                let e = txn_error(code.into(), format!("{what} refused"));
                let fatal = matches!(
                    code,
                    KafkaCode::ProducerFenced | KafkaCode::InvalidProducerEpoch | KafkaCode::InvalidTxnState
                );
                Err(self.fail(if fatal { e.fatal() } else { e.abortable() }))
            }
            // librdkafka: the call timed out, its EndTxn goes on (and may take effect); the
            // same call again resumes it.
            _ => {
                *self.phase.lock().unwrap() = Phase::Ending { commit };
                let why = format!("{what} timed out: call it again to resume it");
                Err(KafkaError::Transaction(txn_error(RDKafkaErrorCode::OperationTimedOut, why).retriable()))
            }
        }
    }
}
