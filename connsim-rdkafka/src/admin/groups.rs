//! `AdminClient::delete_groups` (`DeleteGroups`): an empty consumer group and its committed
//! offsets go; a group with members is refused `NON_EMPTY_GROUP`, an unknown one
//! `GROUP_ID_NOT_FOUND`.

use super::{nothing_to_do, AdminClient, AdminOptions, GroupResult};
use crate::client::ClientContext;
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use connsim::systems::{GroupRequest, GroupResponse, KafkaRequest, KafkaResponse};
use std::future::Future;

impl<C: ClientContext> AdminClient<C> {
    /// Deletes consumer groups, each on its own.
    pub fn delete_groups(
        &self,
        group_names: &[&str],
        opts: &AdminOptions,
    ) -> impl Future<Output = KafkaResult<Vec<GroupResult>>> {
        let groups: Vec<String> = group_names.iter().map(|g| g.to_string()).collect();
        let checked = opts.check();
        let wire = self.wire.clone();
        async move {
            let opts = checked?;
            if groups.is_empty() {
                return Err(nothing_to_do());
            }
            let req = KafkaRequest::Group(GroupRequest::Delete { groups });
            match wire.call_until(&req, Some(opts.deadline)).await {
                Some(KafkaResponse::Group(GroupResponse::Deleted(results))) => Ok(results
                    .into_iter()
                    .map(|(name, code)| match code {
                        None => Ok(name),
                        Some(code) => Err((name, code.into())),
                    })
                    .collect()),
                Some(KafkaResponse::Error(code)) => Err(KafkaError::AdminOp(code.into())),
                _ => Err(KafkaError::AdminOp(RDKafkaErrorCode::OperationTimedOut)),
            }
        }
    }
}
