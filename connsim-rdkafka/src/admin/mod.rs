//! `rdkafka::admin`: the admin client — topics, partitions, records and configs.
//!
//! Each call checks its arguments as rdkafka and librdkafka do before anything is sent (a bad
//! one is `KafkaError::AdminOpCreation` with librdkafka's message, or `KafkaError::AdminOp`
//! with its code where librdkafka fails the whole operation), then sends one request to the
//! log's broker ([`connsim::systems::AdminRequest`]) and answers per item in the order asked.
//! Like rdkafka's, every call returns a future that borrows neither the client nor the
//! options (the items' iterator is part of its type, as in rdkafka). `delete_groups` is the
//! group coordinator's ([`connsim::systems::GroupRequest`]'s `DeleteGroups`) and answers
//! [`GroupResult`]s.

mod configs;
mod groups;
mod options;
mod records;
mod topics;

pub use configs::{
    AlterConfig, AlterConfigsResult, ConfigEntry, ConfigResource, ConfigResourceResult, ConfigSource,
    OwnedResourceSpecifier, ResourceSpecifier,
};
pub use options::AdminOptions;
pub use topics::{GroupResult, NewPartitions, NewTopic, PartitionAssignment, TopicReplication, TopicResult};

use crate::client::{Client, ClientContext, DefaultClientContext};
use crate::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext, Settings};
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::wire::Wire;
use connsim::systems::{AdminRequest, AdminResponse, KafkaRequest, KafkaResponse, BROKER_ID};
use options::Checked;
use std::fmt;
use std::sync::Arc;

/// A client of Kafka's admin API (`rdkafka::admin::AdminClient`).
pub struct AdminClient<C: ClientContext> {
    wire: Wire,
    client: Client<C>,
}

impl<C: ClientContext> fmt::Debug for AdminClient<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdminClient").finish_non_exhaustive()
    }
}

impl FromClientConfig for AdminClient<DefaultClientContext> {
    fn from_config(config: &ClientConfig) -> KafkaResult<AdminClient<DefaultClientContext>> {
        AdminClient::from_config_and_context(config, DefaultClientContext)
    }
}

impl<C: ClientContext> FromClientConfigAndContext<C> for AdminClient<C> {
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<AdminClient<C>> {
        let wire = Wire::new(&Settings::read(config)?)?;
        Ok(AdminClient { client: Client::new(wire.clone(), Arc::new(context)), wire })
    }
}

impl<C: ClientContext> AdminClient<C> {
    /// The client underneath (`AdminClient::inner`): its context, and the cluster's metadata
    /// (`async`, as every call that waits for the broker).
    pub fn inner(&self) -> &Client<C> {
        &self.client
    }
}

/// One admin request, retried until answered or the call's deadline: to `target` (a config
/// resource's broker), else to the options' broker, else the controller. A broker other than
/// the log's is waited for until the deadline, as librdkafka waits for a broker it does not
/// know.
async fn request(wire: &Wire, req: AdminRequest, target: Option<i32>, opts: &Checked) -> KafkaResult<AdminResponse> {
    let timed_out = KafkaError::AdminOp(RDKafkaErrorCode::OperationTimedOut);
    if target.or(opts.broker).is_some_and(|id| id != BROKER_ID) {
        madsim::time::sleep_until(opts.deadline).await;
        return Err(timed_out);
    }
    match wire.call_until(&KafkaRequest::Admin(req), Some(opts.deadline)).await {
        Some(KafkaResponse::Admin(resp)) => Ok(resp),
        Some(KafkaResponse::Error(code)) => Err(KafkaError::AdminOp(code.into())),
        Some(_) => Err(KafkaError::AdminOp(RDKafkaErrorCode::State)),
        None => Err(timed_out),
    }
}

/// librdkafka's refusal of an operation with nothing to do (`No topics to create`, …).
fn nothing_to_do() -> KafkaError {
    KafkaError::AdminOp(RDKafkaErrorCode::InvalidArgument)
}
