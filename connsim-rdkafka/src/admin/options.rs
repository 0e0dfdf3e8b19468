//! [`AdminOptions`], checked as librdkafka checks them when a call is made
//! (`rd_kafka_AdminOptions_set_*`: each value in its range, else `KafkaError::AdminOpCreation`
//! with librdkafka's message).

use crate::error::{KafkaError, KafkaResult};
use crate::util::Timeout;
use std::time::Duration;

/// Options of an admin call (`rdkafka::admin::AdminOptions`).
#[derive(Default)]
pub struct AdminOptions {
    request_timeout: Option<Timeout>,
    operation_timeout: Option<Timeout>,
    validate_only: bool,
    broker_id: Option<i32>,
}

impl AdminOptions {
    /// Default options.
    pub fn new() -> AdminOptions {
        AdminOptions::default()
    }

    /// How long the whole call may take, broker lookup and answer included (librdkafka's
    /// default: `socket.timeout.ms`, 60 s). At most an hour; [`Timeout::Never`] is refused.
    pub fn request_timeout<T: Into<Timeout>>(mut self, timeout: Option<T>) -> Self {
        self.request_timeout = timeout.map(Into::into);
        self
    }

    /// How long the broker may take to complete `CreateTopics`, `DeleteTopics` or
    /// `CreatePartitions` before answering (the simulated broker completes them at once).
    pub fn operation_timeout<T: Into<Timeout>>(mut self, timeout: Option<T>) -> Self {
        self.operation_timeout = timeout.map(Into::into);
        self
    }

    /// The broker only checks the request and changes nothing. librdkafka sends it with
    /// `CreateTopics`, `CreatePartitions` and `AlterConfigs` only: `delete_topics` and
    /// `delete_records` delete whatever this says.
    pub fn validate_only(mut self, validate_only: bool) -> Self {
        self.validate_only = validate_only;
        self
    }

    /// The broker the request goes to (by default the controller, here the log's one broker
    /// [`connsim::systems::BROKER_ID`]); a call to any other waits for it until the request
    /// timeout, as librdkafka waits for a broker it does not know.
    pub fn broker_id<T: Into<Option<i32>>>(mut self, broker_id: T) -> Self {
        self.broker_id = broker_id.into();
        self
    }

    /// The options as a call uses them, or librdkafka's refusal of one.
    pub(super) fn check(&self) -> KafkaResult<Checked> {
        let millis = |t: Timeout| match t {
            Timeout::After(d) => i32::try_from(d.as_millis()).unwrap_or(i32::MAX),
            Timeout::Never => -1,
        };
        let range = |name: &str, v: i64, min: i64, max: i64| match (min..=max).contains(&v) {
            true => Ok(()),
            false => Err(KafkaError::AdminOpCreation(format!(
                "Invalid value type for \"{name}\": expecting integer in range {min}..{max}"
            ))),
        };
        let request = self.request_timeout.map_or(DEFAULT_REQUEST_TIMEOUT_MS, millis);
        range("request_timeout", request as i64, 0, MAX_TIMEOUT_MS)?;
        if let Some(t) = self.operation_timeout {
            range("operation_timeout", millis(t) as i64, -1, MAX_TIMEOUT_MS)?;
        }
        if let Some(id) = self.broker_id {
            range("broker", id as i64, 0, i32::MAX as i64)?;
        }
        let deadline = madsim::time::Instant::now() + Duration::from_millis(request as u64);
        Ok(Checked { deadline, broker: self.broker_id, validate_only: self.validate_only })
    }
}

/// librdkafka's limit on both timeouts: an hour.
const MAX_TIMEOUT_MS: i64 = 3_600_000;
/// `socket.timeout.ms`' default, the request timeout unless set.
const DEFAULT_REQUEST_TIMEOUT_MS: i32 = 60_000;

/// Options checked for one call.
pub(super) struct Checked {
    /// When the call gives up.
    pub(super) deadline: madsim::time::Instant,
    /// The broker asked, if not the controller.
    pub(super) broker: Option<i32>,
    /// `validate_only`.
    pub(super) validate_only: bool,
}
