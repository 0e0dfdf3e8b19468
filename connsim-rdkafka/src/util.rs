//! `rdkafka::util`: timeouts and delivery opaques.

use std::time::Duration;

/// How long a call may wait (`rdkafka::util::Timeout`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Timeout {
    /// Time out after the duration.
    After(Duration),
    /// Wait forever.
    Never,
}

impl Timeout {
    /// The duration, `None` for [`Timeout::Never`].
    pub(crate) fn duration(self) -> Option<Duration> {
        match self {
            Timeout::After(d) => Some(d),
            Timeout::Never => None,
        }
    }
}

impl From<Duration> for Timeout {
    fn from(d: Duration) -> Timeout {
        Timeout::After(d)
    }
}

impl From<Option<Duration>> for Timeout {
    fn from(d: Option<Duration>) -> Timeout {
        d.map_or(Timeout::Never, Timeout::After)
    }
}

/// rdkafka's runtime parameter of async clients; the simulation has one runtime.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultRuntime;

/// What a [`BaseRecord`](crate::producer::BaseRecord)'s delivery opaque can be
/// (`rdkafka::util::IntoOpaque`): it comes back with the message's delivery report. Implemented
/// for the types rdkafka implements it for; librdkafka's pointer conversions are not needed
/// here, so a type of your own that implements rdkafka's trait needs this marker impl instead.
pub trait IntoOpaque: Send + Sync + Sized {}

impl IntoOpaque for () {}
impl IntoOpaque for usize {}
impl<T: Send + Sync> IntoOpaque for Box<T> {}
impl<T: Send + Sync> IntoOpaque for std::sync::Arc<T> {}
