//! The exchange between readers and writers, when the job is not chained
//! ([`Exchange`](super::Exchange) rebalance or key-by).
//!
//! ```text
//!  subtask i: reader ─▶ Outbox ══ channel i→j (Data: records, watermarks, barriers) ══▶ InputGate ─▶ writer : subtask j
//!                             ◀═════════════ Credit (received up to, room for) ══════════
//! ```
//!
//! A channel is a FIFO link over the gateway, made reliable as TCP is: messages are numbered,
//! the receiver keeps only the next one in order and answers with credit (what it holds and
//! how much more it has room for), and the sender resends what is not acknowledged. A
//! sender holds at most a few messages per channel: a slow or blocked receiver stops the
//! reader (backpressure). The receiver aligns barriers: a channel that delivered barrier `c`
//! is held back until every channel has, then the writer snapshots.
//!
//! Both ends are fenced by the wiring the job master sends after every deployment: a
//! message from or to any other attempt is dropped.

mod gate;
mod outbox;

pub(crate) use gate::{GateEvent, InputGate};
pub(crate) use outbox::Outbox;

/// Messages a receiver has room for on each channel (Flink's exclusive buffers per channel).
pub(crate) const WINDOW: u64 = 4;
/// Records a sender collects for one channel before it sends them (one network buffer).
pub(crate) const BUFFER_RECORDS: usize = 16;
/// A sender sends collected records at least this often (virtual ms) while its reader
/// keeps producing (Flink's buffer timeout).
pub(crate) const FLUSH_MS: u64 = 10;
/// A sender with unacknowledged messages and no progress for this long sends again.
pub(crate) const RESEND_AFTER_MS: u64 = 20;
/// A reader held back by full channels this long or longer is recorded as held
/// ([`EventKind::BackpressureHeld`](crate::history::EventKind::BackpressureHeld)): a writer
/// slower than its input, not the short waits of a busy exchange.
pub const HELD_MS: u64 = 100;
