//! The state each operator of a subtask's chain owns: the source operator (the reader, its
//! input, event time and alignment) and the sink operators (the writer, the committer, and
//! the committables between them). A subtask hosts a reader, a writer, or both (chained).

use super::super::exchange::Outbox;
use super::super::reader_alignment::ReaderAlignment;
use crate::api::{PauseLedger, ReaderRequest, Sink, Source, SplitId, WatermarkTracker};
use crate::history::CheckpointId;
use crate::record::Record;
use tokio::sync::mpsc;

/// The source operator's state.
pub(super) struct SourceOperator<Src: Source> {
    /// Created for every subtask, but started, given splits and polled only where the
    /// subtask hosts a reader (`has_reader`).
    pub reader: Src::Reader,
    pub has_reader: bool,
    pub ended: bool,
    /// Stopped at a savepoint barrier: the reader is not polled any more.
    pub stopped: bool,
    pub requests: mpsc::UnboundedReceiver<ReaderRequest>,
    pub requests_open: bool,
    /// Per-split watermark generation, when the job reads its source with a strategy.
    pub watermarks: Option<WatermarkTracker>,
    /// The split the reader last said its records belong to ([`crate::api::ReaderOutput::for_split`]).
    pub current_split: Option<SplitId>,
    /// The records vector of the last poll, emptied: the next poll collects into it, so a
    /// poll of one record allocates nothing.
    pub spare_records: Vec<Record>,
    /// Watermark alignment, when the strategy asks for it.
    pub alignment: Option<ReaderAlignment>,
    /// The reader tells which fetch its records came from (`ReaderOutput`'s `tells_fetches`).
    pub tells_fetches: bool,
    /// What the reader holds paused, if it is built on the reader base.
    pub pauses: PauseLedger,
}

/// The writer and committer operators' state.
pub(super) struct SinkOperator<Snk: Sink> {
    /// The writer and committer, where the subtask hosts a writer.
    pub writer: Option<Snk::Writer>,
    pub committer: Option<Snk::Committer>,
    /// Committables not yet committed, with the checkpoint that prepared them and retry counts.
    pub pending: Vec<(CheckpointId, Snk::Committable, u32)>,
    pub last_completed: CheckpointId,
    /// The newest checkpoint this attempt's writer prepared (0: none yet).
    pub last_prepared: CheckpointId,
    /// Whether this attempt's writer got the end of its input.
    pub input_ended: bool,
    /// When the writer last snapshotted its state (virtual µs).
    pub snapshot_us: Option<u64>,
    /// With a global committer, or committers apart from the writers: the channels to them.
    /// Committables go there (to one of them), through their serializer, ahead of the
    /// barrier of the checkpoint that prepared them (to all of them), and are not kept or
    /// committed here.
    pub downstream: Option<Outbox>,
}
