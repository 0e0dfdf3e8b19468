//! The feed's model: partitions of messages (bytes: headers and a value, as the upstream
//! producer wrote them) that arrive over time (each has a release time; a read returns only
//! what has arrived). Its state lives outside the node (in an `Arc`), so
//! a crash of its node loses nothing but requests in flight; it is served over the gateway,
//! so network faults reach the source's reads.

use crate::event::{Event, EventCodec, FeedMessage};
use connsim::api::ElementCodec;
use connsim::history::History;
use connsim::net::Inbox;
use connsim::systems::{serve_model, BoxFuture, ExternalSystem, ModelRequest};
use connsim::Record;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A request to the feed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum FeedRequest {
    /// Up to `max` records of `partition` from position `from`, of those arrived by now.
    Read {
        /// Which partition.
        partition: u32,
        /// First position wanted.
        from: u64,
        /// At most this many.
        max: usize,
    },
}

/// The feed's answer to a read.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FeedBatch {
    /// The messages with their positions.
    pub records: Vec<(u64, FeedMessage)>,
    /// The partition holds no records past these (all of it has arrived and been read).
    pub end: bool,
}

impl ModelRequest for FeedRequest {
    type Response = FeedBatch;
    fn kind(&self) -> &'static str {
        "feed.read"
    }
}

/// The split id of partition `p`: what the source's splits are called, and what the
/// feed records produced records under.
pub fn split_id(p: u32) -> String {
    format!("feed-{p}")
}

/// A partition: messages in order, each with the time it arrives.
type Partition = Vec<(FeedMessage, Duration)>;

/// The feed.
#[derive(Clone)]
pub struct Feed {
    name: String,
    partitions: Arc<Mutex<Vec<Partition>>>,
}

impl Feed {
    /// An empty feed of `partitions` partitions on node `name`.
    pub fn new(name: &str, partitions: u32) -> Self {
        Self { name: name.to_string(), partitions: Arc::new(Mutex::new(vec![Vec::new(); partitions as usize])) }
    }

    /// Appends `record` to `partition` as the upstream producer writes its event
    /// ([`FeedMessage::produce`]), arriving `at` after the start of the run, and records it as
    /// produced: split [`split_id`], position its place in the partition.
    pub fn append(&self, history: &History, partition: u32, record: Record, at: Duration) {
        let mut parts = self.partitions.lock().unwrap();
        let part = &mut parts[partition as usize];
        history.record_produced(&self.name, &record, &split_id(partition), part.len() as u64);
        let event: Event = EventCodec::element(&record);
        part.push((FeedMessage::produce(&event), at));
    }

    fn read(&self, partition: u32, from: u64, max: usize) -> FeedBatch {
        let now = connsim::net::now();
        let parts = self.partitions.lock().unwrap();
        let Some(part) = parts.get(partition as usize) else { return FeedBatch { records: Vec::new(), end: true } };
        let records: Vec<(u64, FeedMessage)> = (from..part.len() as u64)
            .take(max)
            .map_while(|pos| part.get(pos as usize).filter(|(_, at)| *at <= now).map(|(r, _)| (pos, r.clone())))
            .collect();
        let end = from + records.len() as u64 >= part.len() as u64;
        FeedBatch { records, end }
    }
}

impl ExternalSystem for Feed {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn serve(&self, inbox: Inbox) -> BoxFuture {
        let feed = self.clone();
        Box::pin(serve_model(inbox, move |_caller, FeedRequest::Read { partition, from, max }| {
            feed.read(partition, from, max)
        }))
    }
}
