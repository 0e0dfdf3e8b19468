//! The sink's global committer behind a trait object.

use super::sink::typed_requests;
use super::value::{ErasedCommittable, ErasedGlobal};
use crate::api::{CommitOutcome, CommitRequest, GlobalCommitter, Sink};
use crate::error::ConnectorError;
use crate::history::{local_checkpoint, CheckpointId};
use futures::future::BoxFuture;
use std::future::Future;

/// The global committable of sink `K`.
pub(crate) type GlobalOf<K> = <<K as Sink>::GlobalCommitter as GlobalCommitter>::GlobalCommittable;

type Recovered = Vec<(CheckpointId, ErasedGlobal)>;

/// A global committer behind a trait object.
trait DynGlobal: Send + 'static {
    fn combine(&mut self, checkpoint: CheckpointId, committables: Vec<ErasedCommittable>) -> ErasedGlobal;
    fn commit(&mut self, requests: Vec<CommitRequest<ErasedGlobal>>) -> BoxFuture<'_, Vec<CommitOutcome>>;
    fn filter_recovered(&mut self, recovered: Recovered) -> BoxFuture<'_, Result<Recovered, ConnectorError>>;
    fn end_of_input(&mut self) -> BoxFuture<'_, Result<(), ConnectorError>>;
}

impl<G> DynGlobal for G
where
    G: GlobalCommitter,
    G::Committable: Clone + 'static,
{
    fn combine(&mut self, checkpoint: CheckpointId, committables: Vec<ErasedCommittable>) -> ErasedGlobal {
        let typed = committables.iter().map(ErasedCommittable::typed).collect();
        ErasedGlobal::data(GlobalCommitter::combine(self, local_checkpoint(checkpoint), typed))
    }
    fn commit(&mut self, requests: Vec<CommitRequest<ErasedGlobal>>) -> BoxFuture<'_, Vec<CommitOutcome>> {
        Box::pin(GlobalCommitter::commit(self, typed_requests(requests)))
    }
    fn filter_recovered(&mut self, recovered: Recovered) -> BoxFuture<'_, Result<Recovered, ConnectorError>> {
        let typed = recovered.iter().map(|(c, g)| (local_checkpoint(*c), g.typed::<G::GlobalCommittable>())).collect();
        Box::pin(async move {
            let kept = GlobalCommitter::filter_recovered(self, typed).await?;
            // Back to the history's ids: within one restored checkpoint, each local id names
            // one checkpoint (a job's numbering only grows along what it restored).
            let history_id = |local: CheckpointId| {
                recovered.iter().map(|(c, _)| *c).find(|c| local_checkpoint(*c) == local).ok_or_else(|| {
                    ConnectorError::fail_job(format!(
                        "GlobalCommitter::filter_recovered returned checkpoint {local}, which is not among the \
                         recovered ones: return a subset of what it was given"
                    ))
                })
            };
            kept.into_iter().map(|(c, g)| Ok((history_id(c)?, ErasedGlobal::data(g)))).collect()
        })
    }
    fn end_of_input(&mut self) -> BoxFuture<'_, Result<(), ConnectorError>> {
        Box::pin(GlobalCommitter::end_of_input(self))
    }
}

/// The run's global committer, as its task sees it.
pub(crate) struct ErasedGlobalCommitter(Box<dyn DynGlobal>);

impl ErasedGlobalCommitter {
    /// Erases a global committer.
    pub fn new<G>(committer: G) -> Self
    where
        G: GlobalCommitter,
        G::Committable: Clone + 'static,
    {
        Self(Box::new(committer))
    }
}

impl GlobalCommitter for ErasedGlobalCommitter {
    type Committable = ErasedCommittable;
    type GlobalCommittable = ErasedGlobal;

    fn combine(&mut self, checkpoint: CheckpointId, committables: Vec<ErasedCommittable>) -> ErasedGlobal {
        self.0.combine(checkpoint, committables)
    }
    fn commit(
        &mut self,
        requests: Vec<CommitRequest<ErasedGlobal>>,
    ) -> impl Future<Output = Vec<CommitOutcome>> + Send {
        self.0.commit(requests)
    }
    fn filter_recovered(
        &mut self,
        recovered: Recovered,
    ) -> impl Future<Output = Result<Recovered, ConnectorError>> + Send {
        self.0.filter_recovered(recovered)
    }
    fn end_of_input(&mut self) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.0.end_of_input()
    }
}
