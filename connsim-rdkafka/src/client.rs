//! `rdkafka::client::Client`: what every client shares, its context and the calls that ask
//! the cluster about itself (`async` here, as the other calls that wait), and its fatal error.

use crate::error::{KafkaResult, RDKafkaErrorCode};
use crate::groups::GroupList;
use crate::metadata::Metadata;
use crate::util::Timeout;
use crate::wire::Wire;
use std::sync::{Arc, Mutex};

pub use crate::client_context::{ClientContext, DefaultClientContext};

/// Where a client keeps the error that finished it.
pub(crate) type FatalError = Arc<Mutex<Option<(RDKafkaErrorCode, String)>>>;

/// The client under a producer or consumer (`rdkafka::client::Client`).
pub struct Client<C = DefaultClientContext> {
    wire: Wire,
    context: Arc<C>,
    fatal: FatalError,
}

impl<C> Client<C> {
    pub(crate) fn new(wire: Wire, context: Arc<C>) -> Self {
        Client { wire, context, fatal: Arc::default() }
    }

    /// Shares the fatal-error slot of the producer or consumer it stands for.
    pub(crate) fn with_fatal(mut self, fatal: FatalError) -> Self {
        self.fatal = fatal;
        self
    }

    /// The client's context.
    pub fn context(&self) -> &Arc<C> {
        &self.context
    }

    /// Topics and their partitions (`async`: it waits for the broker).
    pub async fn fetch_metadata<T: Into<Timeout>>(&self, topic: Option<&str>, timeout: T) -> KafkaResult<Metadata> {
        crate::metadata::fetch(&self.wire, topic, timeout.into()).await
    }

    /// A partition's low and high watermarks (`async`).
    pub async fn fetch_watermarks<T: Into<Timeout>>(
        &self,
        topic: &str,
        partition: i32,
        timeout: T,
    ) -> KafkaResult<(i64, i64)> {
        crate::metadata::watermarks(&self.wire, topic, partition, false, timeout.into()).await
    }

    /// The cluster's consumer groups, or one (`async`).
    pub async fn fetch_group_list<T: Into<Timeout>>(&self, group: Option<&str>, timeout: T) -> KafkaResult<GroupList> {
        crate::groups::fetch(&self.wire, group, timeout.into()).await
    }

    /// The error that finished the client, if one did (a fenced transactional producer, a
    /// fenced static consumer): its code and description.
    pub fn fatal_error(&self) -> Option<(RDKafkaErrorCode, String)> {
        self.fatal.lock().unwrap().clone()
    }
}
