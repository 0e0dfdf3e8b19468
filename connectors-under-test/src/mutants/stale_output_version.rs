//! **An output reader whose version misses appends**: a model's output reader says its
//! output changed only when a partition is added, not when records are appended, so the
//! harness's incremental reads skip every write (a reader written for a transactional output
//! and reused for a plain one). It is a bug in a test's model, not in a connector: the kind
//! a connector author writing a model of their own store can make.
//!
//! Story: an oracle that trusts what a model says about itself is only as good as the model.
//! connsim reads outputs incrementally, guided by `OutputReader::version`, and reconciles
//! with a full read at the end of every run, so a version that lies is found, not trusted.
//!
//! Caught by: `no-unobserved-visibility`: the final read finds records that no observation
//! during the run saw appear.

use crate::log_sink::{BarrierMode, LogSink};
use connsim::run::{SinkSetup, World};
use connsim::systems::{Entry, OutputReader, Part, PartitionedLog};
use std::sync::Arc;

/// The log's output, with a version that only counts partitions.
struct CountsPartitions(Arc<dyn OutputReader>);

impl OutputReader for CountsPartitions {
    fn location(&self) -> String {
        self.0.location()
    }
    fn version(&self) -> Option<u64> {
        Some(self.0.parts().len() as u64) // the bug: appends do not change it
    }
    fn parts(&self) -> Vec<Part> {
        self.0.parts()
    }
    fn read(&self, part: &str, from: u64) -> Vec<Entry> {
        self.0.read(part, from)
    }
}

/// Sets up the at-least-once log sink (flush mode) as `LogSinkSetup` does, with the lying
/// reader.
#[derive(Clone, Debug, Default)]
pub struct StaleOutputVersionSetup;

impl SinkSetup for StaleOutputVersionSetup {
    type Sink = LogSink;
    fn name(&self) -> String {
        "mutant:stale-output-version(log-sink)".into()
    }
    fn build(&self, world: &mut World) -> LogSink {
        let log = PartitionedLog::new("sink-log", world.history().clone());
        log.create_topic("output", 4);
        world.set_output(Arc::new(CountsPartitions(log.output("output"))));
        world.add_system(Arc::new(log));
        LogSink { log: "sink-log".into(), topic: "output".into(), mode: BarrierMode::Flush }
    }
}
