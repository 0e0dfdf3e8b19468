//! **Writer state not restored**: a writer that keeps buffered records in its state ignores
//! that state when it is restored.
//!
//! Story: Flink's `StatefulSinkWriter` contract — a writer restored from a checkpoint must
//! pick up the state it snapshotted (for an async sink, the requests still buffered); one
//! that starts empty loses whatever was in flight at the checkpoint.
//!
//! Caught by: `no-loss` after any restore from a checkpoint taken while records were
//! buffered.

use crate::log_sink::{BarrierMode, LogSink, LogSinkSetup, LogWriter, NothingToCommit};
use connsim::api::{CommitterContext, DeliveryGuarantee, NoGlobalCommitter, Sink, WriterContext};
use connsim::run::{SinkSetup, World};
use connsim::{ConnectorError, Record};

/// The log sink (state mode), with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct IgnoresStateSink(pub LogSink);

impl Sink for IgnoresStateSink {
    type Committable = ();
    type WriterState = Vec<Record>;
    type Writer = LogWriter;
    type Committer = NothingToCommit;
    type GlobalCommitter = NoGlobalCommitter<()>;
    fn delivery_guarantee(&self) -> DeliveryGuarantee {
        DeliveryGuarantee::AtLeastOnce
    }
    async fn create_writer(
        &self,
        ctx: WriterContext,
        _restored: Vec<Vec<Record>>,
    ) -> Result<LogWriter, ConnectorError> {
        self.0.new_writer(&ctx).await // the bug: the restored buffers are ignored
    }
    fn create_committer(&self, _ctx: CommitterContext) -> NothingToCommit {
        NothingToCommit
    }
}

/// Sets up the buggy sink like [`LogSinkSetup`] in state mode.
#[derive(Clone, Debug, Default)]
pub struct IgnoresStateSetup;

impl SinkSetup for IgnoresStateSetup {
    type Sink = IgnoresStateSink;
    fn name(&self) -> String {
        "mutant:ignores-writer-state(log-sink)".into()
    }
    fn build(&self, world: &mut World) -> IgnoresStateSink {
        IgnoresStateSink(LogSinkSetup { partitions: 4, mode: BarrierMode::BufferInState }.build(world))
    }
}
