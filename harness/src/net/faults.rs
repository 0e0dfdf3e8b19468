//! Fault rules: which messages the gateway drops, delays or whose responses it loses.
//!
//! A rule matches by message kind, link (sender and receiver name prefixes) and a
//! virtual-time window. One verb per fault: drop, delay, straggle, hold, lose-response, refuse; a partition
//! is a drop with probability 1 on a link, and heal removes rules.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Handle to an installed rule, for removing it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RuleId(pub u64);

/// What a matching rule does to a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FaultAction {
    /// The message never arrives (requests and one-way messages, and responses).
    Drop {
        /// Chance per message, 0.0..=1.0.
        probability: f64,
    },
    /// The message arrives `delay_ms` later (FIFO per link still holds).
    Delay {
        /// Extra latency in milliseconds.
        delay_ms: u64,
    },
    /// The message arrives `delay_ms` later and the link's later messages do not wait for it:
    /// a request that timed out on a connection the client abandoned, reaching the server
    /// after what the client sent next on a new one (`straggle`). Order per connection
    /// holds, order across connections does not.
    Straggle {
        /// Extra latency in milliseconds.
        delay_ms: u64,
    },
    /// The message is held until its sender (the same subtask, or the same node for code
    /// outside a subtask) sends the receiver a message whose kind starts with `until`, and
    /// lands right after that one; at most `max_ms` late otherwise (`hold`). A request
    /// the system applies late, after the client gave up on it and took its next step: an
    /// older attempt's commit landing between a newer attempt's first read and its fencing
    /// call, or a put landing after the client looked for it once and cleaned up. Like a
    /// straggler, it is off its link's order.
    Hold {
        /// Kind prefix of the message that releases it.
        until: String,
        /// Latest extra latency, in milliseconds, if no such message comes.
        max_ms: u64,
    },
    /// The request takes effect, but its response is lost: the caller sees a timeout.
    LoseResponse {
        /// Chance per response, 0.0..=1.0.
        probability: f64,
    },
    /// The callee refuses the request without acting on it: the caller gets
    /// [`RpcError::Refused`](super::RpcError::Refused) at once (an error reply such as
    /// HTTP 503, a throttled request or a full disk). One-way messages are unaffected.
    Refuse {
        /// Chance per request, 0.0..=1.0.
        probability: f64,
        /// The error the caller sees.
        refusal: Refusal,
    },
}

/// An error reply from an external system: the request did not take effect, and retrying
/// later may succeed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Refusal {
    /// The service is unavailable (HTTP 503, a broker without a leader).
    Unavailable,
    /// The request was throttled (HTTP 429, S3 SlowDown, a quota).
    Throttled,
    /// No space left on the device.
    DiskFull,
}

impl Refusal {
    /// Every refusal, for generators and docs.
    pub const ALL: [Refusal; 3] = [Refusal::Unavailable, Refusal::Throttled, Refusal::DiskFull];
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::Unavailable => "unavailable",
            Refusal::Throttled => "throttled",
            Refusal::DiskFull => "disk full",
        })
    }
}

/// A fault rule. `None` in a filter matches everything.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FaultRule {
    /// What happens to matching messages.
    pub action: FaultAction,
    /// Message-kind prefix, e.g. `"log."` or `"AddSplits"`.
    pub kind: Option<String>,
    /// Sender-name prefix (for lose-response: the caller).
    pub from: Option<String>,
    /// Receiver-name prefix (for lose-response: the callee).
    pub to: Option<String>,
    /// Active from this virtual time, in milliseconds.
    pub start_ms: u64,
    /// Active until this virtual time, in milliseconds (exclusive); `u64::MAX` for ever.
    pub end_ms: u64,
}

impl FaultRule {
    /// A rule with `action` on every message, for ever.
    pub fn new(action: FaultAction) -> Self {
        Self { action, kind: None, from: None, to: None, start_ms: 0, end_ms: u64::MAX }
    }
    /// Drop messages with the given probability.
    pub fn drop(probability: f64) -> Self {
        Self::new(FaultAction::Drop { probability })
    }
    /// Delay messages.
    pub fn delay(delay_ms: u64) -> Self {
        Self::new(FaultAction::Delay { delay_ms })
    }
    /// Let messages straggle: `delay_ms` late, overtaken by the link's later ones.
    pub fn straggle(delay_ms: u64) -> Self {
        Self::new(FaultAction::Straggle { delay_ms })
    }
    /// Hold messages until their sender's next message of a kind starting with `until`
    /// reaches the same receiver, at most `max_ms`.
    pub fn hold(until: &str, max_ms: u64) -> Self {
        Self::new(FaultAction::Hold { until: until.to_string(), max_ms })
    }
    /// Lose responses with the given probability.
    pub fn lose_response(probability: f64) -> Self {
        Self::new(FaultAction::LoseResponse { probability })
    }
    /// Refuse requests with the given probability: the caller gets `refusal` at once.
    pub fn refuse(probability: f64, refusal: Refusal) -> Self {
        Self::new(FaultAction::Refuse { probability, refusal })
    }
    /// A one-way partition: nothing from `from` reaches `to`.
    pub fn partition(from: &str, to: &str) -> Self {
        Self::drop(1.0).from(from).to(to)
    }
    /// Whether the rule is a partition: it drops every message, of every kind, on a link
    /// between named nodes (and its drops are recorded as `partition` faults).
    pub fn is_partition(&self) -> bool {
        matches!(self.action, FaultAction::Drop { probability } if probability >= 1.0)
            && self.kind.is_none()
            && self.from.is_some()
            && self.to.is_some()
    }
    /// Restricts the rule to message kinds starting with `kind`.
    pub fn kind(mut self, kind: &str) -> Self {
        self.kind = Some(kind.to_string());
        self
    }
    /// Restricts the rule to senders whose name starts with `from`.
    pub fn from(mut self, from: &str) -> Self {
        self.from = Some(from.to_string());
        self
    }
    /// Restricts the rule to receivers whose name starts with `to`.
    pub fn to(mut self, to: &str) -> Self {
        self.to = Some(to.to_string());
        self
    }
    /// Restricts the rule to a virtual-time window `[start_ms, end_ms)`.
    pub fn window(mut self, start_ms: u64, end_ms: u64) -> Self {
        self.start_ms = start_ms;
        self.end_ms = end_ms;
        self
    }

    /// Whether the rule applies to a message from `from` to `to` of `kind` at `now_ms`.
    pub(crate) fn matches(&self, from: &str, to: &str, kind: &str, now_ms: u64) -> bool {
        let prefix = |p: &Option<String>, s: &str| p.as_deref().is_none_or(|p| s.starts_with(p));
        now_ms >= self.start_ms
            && now_ms < self.end_ms
            && prefix(&self.kind, kind)
            && prefix(&self.from, from)
            && prefix(&self.to, to)
    }
}

impl fmt::Display for FaultRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let any = |o: &Option<String>| o.clone().unwrap_or_else(|| "*".into());
        write!(
            f,
            "{:?} kind={} {}->{} [{}ms, {})",
            self.action,
            any(&self.kind),
            any(&self.from),
            any(&self.to),
            self.start_ms,
            if self.end_ms == u64::MAX { "inf".to_string() } else { format!("{}ms", self.end_ms) }
        )
    }
}
