//! The writer: part files as multipart uploads that span checkpoints, recoverable from
//! the writer's state.

use super::{failed, InProgress, ObjectSink, PartFile, WriterState};
use connsim::api::SinkWriter;
use connsim::history::CheckpointId;
use connsim::{ConnectorError, Record};
use connsim_object_store::SimulatedS3;
use object_store::multipart::MultipartStore;
use object_store::path::Path;
use object_store::ObjectStoreExt;
use std::sync::Arc;

/// The part file a writer is filling.
#[derive(Debug)]
pub struct OpenFile {
    /// Its key, its upload once a part went up, and the parts' ETags.
    pub file: InProgress,
    /// Whether a snapshot recorded its upload: a restore may complete it, so it is never
    /// aborted. A snapshot taken before the upload started records none.
    pub snapshotted: bool,
    /// When it was opened (virtual time).
    pub opened: madsim::time::Instant,
}

/// The writer.
pub struct ObjectWriter {
    /// The store.
    pub store: Arc<SimulatedS3>,
    /// The sink.
    pub sink: ObjectSink,
    /// `<job>-<subtask>-<attempt>`: what names this writer's files.
    pub name: String,
    /// Data not uploaded yet.
    pub buffer: Vec<u8>,
    /// The file being filled.
    pub open: Option<OpenFile>,
    /// Files restored from state: committed as recorded at the next barrier.
    pub recovered: Vec<InProgress>,
    /// The tail object this barrier wrote, for the snapshot that follows.
    pub tail_at_barrier: Option<String>,
    /// The number of this writer's next file.
    pub next: u64,
    /// The input ended: the next barrier rolls everything.
    pub ending: bool,
}

impl ObjectWriter {
    /// A writer named `name`, restored from `restored`: the files they recorded are
    /// committed at the next barrier as recorded (parts and tail).
    pub fn new(store: Arc<SimulatedS3>, sink: ObjectSink, name: String, restored: Vec<WriterState>) -> Self {
        let recovered = restored.into_iter().filter_map(|s| s.file).collect();
        Self {
            store,
            sink,
            name,
            buffer: Vec::new(),
            open: None,
            recovered,
            tail_at_barrier: None,
            next: 0,
            ending: false,
        }
    }

    /// The file being filled, opened if none is.
    fn file(&mut self) -> &mut OpenFile {
        if self.open.is_none() {
            let key = format!("{}part-{}-{}", self.sink.dir, self.name, self.next);
            self.next += 1;
            let file = InProgress { key, ..InProgress::default() };
            self.open = Some(OpenFile { file, snapshotted: false, opened: madsim::time::Instant::now() });
        }
        self.open.as_mut().expect("opened above")
    }

    /// Uploads the first `len` buffered bytes as the next part of the open file, starting
    /// its upload if need be.
    pub async fn upload_part(&mut self, len: usize) -> Result<(), ConnectorError> {
        let store = self.store.clone();
        let data: Vec<u8> = self.buffer.drain(..len).collect();
        let file = &mut self.file().file;
        let path = Path::from(file.key.as_str());
        if file.upload.is_none() {
            file.upload = Some(store.create_multipart(&path).await.map_err(|e| failed("starting an upload", e))?);
        }
        let upload = file.upload.clone().expect("started above");
        let n = data.len() as u64;
        let part = store.put_part(&path, &upload, file.parts.len(), data.into()).await;
        file.parts.push(part.map_err(|e| failed("uploading a part", e))?.content_id);
        file.bytes += n;
        Ok(())
    }

    /// Closes the open file (and the buffer) as a committable.
    pub async fn roll(&mut self) -> Result<Option<PartFile>, ConnectorError> {
        if self.buffer.is_empty() && self.open.is_none() {
            return Ok(None);
        }
        let started = self.open.as_ref().is_some_and(|f| f.file.upload.is_some());
        if started && !self.buffer.is_empty() {
            self.upload_part(self.buffer.len()).await?;
        }
        let file = std::mem::take(&mut self.file().file);
        self.open = None;
        Ok(Some(match file.upload {
            Some(upload) => PartFile::Upload { key: file.key, upload, parts: file.parts },
            None => PartFile::Small { key: file.key, bytes: std::mem::take(&mut self.buffer) },
        }))
    }

    /// Writes what is buffered and not uploaded to a hidden object of checkpoint
    /// `checkpoint`, for the snapshot: a restore makes it visible beside the file.
    pub async fn persist_tail(&mut self, checkpoint: CheckpointId) -> Result<(), ConnectorError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let dir = self.sink.dir.clone();
        let key = self.file().file.key.clone();
        let tail = format!("{dir}.tails/{}-{checkpoint}", &key[dir.len()..]);
        let put = self.store.put(&Path::from(tail.as_str()), self.buffer.clone().into()).await;
        put.map_err(|e| failed("writing a tail", e))?;
        self.tail_at_barrier = Some(tail);
        Ok(())
    }

    /// Whether the open file is rolled at this barrier: it holds enough parts, it is older
    /// than the rollover interval, or the input ended (Flink's default rolling policy,
    /// checked at barriers).
    pub fn rolls_now(&self) -> bool {
        let full = |f: &OpenFile| f.file.parts.len() >= self.sink.parts_per_file;
        let old = |f: &OpenFile| f.opened.elapsed().as_millis() as u64 >= self.sink.rollover_ms;
        self.ending || self.open.as_ref().is_some_and(|f| full(f) || old(f))
    }
}

impl SinkWriter for ObjectWriter {
    type Committable = PartFile;
    type State = WriterState;

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        // A part holds whole records (a file's parts and its recovered tail are read as one
        // file or as two): it goes up once it holds the part size, when the next record comes.
        if self.buffer.len() >= self.sink.part_size {
            Box::pin(self.upload_part(self.buffer.len())).await?;
        }
        record.encode_line_into(&mut self.buffer);
        Ok(())
    }

    /// Data stays buffered until a part is full; what is left at a barrier is state.
    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        self.ending |= end_of_input;
        Ok(())
    }

    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<PartFile>, ConnectorError> {
        let mut out: Vec<PartFile> = std::mem::take(&mut self.recovered).into_iter().map(PartFile::Recovered).collect();
        if self.rolls_now() {
            out.extend(self.roll().await?);
        } else {
            self.persist_tail(checkpoint).await?;
        }
        Ok(out)
    }

    /// The open file: its upload and parts, and the tail this barrier wrote.
    fn snapshot_state(&mut self, _checkpoint: CheckpointId) -> Vec<WriterState> {
        let tail = self.tail_at_barrier.take();
        let file = self.open.as_mut().map(|f| {
            // Recorded with its upload, a restore completes that upload; recorded before its
            // upload started (a tail only), a restore publishes the tail, and the upload the
            // file starts later is in no snapshot until the next one.
            f.snapshotted = f.file.upload.is_some();
            InProgress { tail, ..f.file.clone() }
        });
        vec![WriterState { file }]
    }

    /// Aborts the open upload if no snapshot recorded it (a restore may complete one that
    /// was), best effort.
    async fn close(&mut self) {
        if let Some(OpenFile { file: InProgress { key, upload: Some(upload), .. }, snapshotted: false, .. }) =
            self.open.take()
        {
            let _ = self.store.abort_multipart(&Path::from(key.as_str()), &upload).await;
        }
    }
}
