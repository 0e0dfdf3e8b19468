//! The connector's own serializer and deserializer: bugs a downstream reader's decoder or
//! the trace back to the test records shows.

use connsim::api::{
    CommitterContext, ElementSink, ElementSource, NoGlobalCommitter, Sink, SourceReaderBase, WriterContext,
};
use connsim::run::{SinkSetup, SourceSetup, World};
use connsim::ConnectorError;
use connsim_scenarios::suites::{self, sink_from_setup, source_from_setup};
use example_connector::event::{Event, EventCodec, FeedMessage};
use example_connector::sink::{encode_event, Staged, StagingCommitter, StagingSink, StagingSinkSetup, StagingWriter};
use example_connector::source::{decode_message, FeedEmitter, FeedSource, FeedSourceSetup, FeedSplitReader};

use super::{caught, feed};

/// The staging sink with another serializer.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Reserialized(StagingSink, Encoding);

/// Which serializer.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
enum Encoding {
    /// Writes the user id's low byte only, as if the schema's user id were one byte wide: the
    /// layout stays valid, and users from 256 on are written as someone else.
    UserAsByte,
    /// Writes the body's length in characters counted one short (an off-by-one in a length
    /// prefix): a downstream reader finds a byte more than it was told, for every event.
    LengthOneShort,
}

fn encode_with(encoding: Encoding) -> fn(&Event) -> Vec<u8> {
    match encoding {
        Encoding::UserAsByte => |e| encode_event(&Event { user: e.user & 0xff, ..e.clone() }), // the bug
        Encoding::LengthOneShort => |e| {
            let mut bytes = encode_event(e);
            let len = (e.body.len() as u32).saturating_sub(1); // the bug
            bytes[24..28].copy_from_slice(&len.to_le_bytes());
            bytes
        },
    }
}

impl Sink<Event> for Reserialized {
    type Committable = Staged;
    type WriterState = ();
    type Writer = StagingWriter;
    type Committer = StagingCommitter;
    type GlobalCommitter = NoGlobalCommitter<Staged>;
    async fn create_writer(&self, ctx: WriterContext, restored: Vec<()>) -> Result<StagingWriter, ConnectorError> {
        let mut writer = self.0.create_writer(ctx, restored).await?;
        writer.encode = encode_with(self.1);
        Ok(writer)
    }
    fn create_committer(&self, ctx: CommitterContext) -> StagingCommitter {
        self.0.create_committer(ctx)
    }
}

struct ReserializedSetup(Encoding);

impl SinkSetup for ReserializedSetup {
    type Sink = ElementSink<Reserialized, EventCodec>;
    fn name(&self) -> String {
        format!("staging-sink({:?})", self.0)
    }
    fn build(&self, world: &mut World) -> Self::Sink {
        ElementSink::new(Reserialized(StagingSinkSetup.build(world).inner().clone(), self.0))
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
    }
}

/// The feed source with another deserializer: the event id from the first header, whatever
/// its name (written for a producer that only ever wrote `event-id`). A traced producer
/// writes `trace-id` first: every tenth event is read as an event nobody produced.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct FirstHeaderSource(FeedSource);

fn first_header_id(message: &FeedMessage) -> Result<Event, String> {
    let event = decode_message(message)?;
    let (_, first) = message.headers.first().ok_or("no headers")?;
    let id = std::str::from_utf8(first).ok().and_then(|s| s.parse().ok()).ok_or("an id that is no number")?;
    Ok(Event { id, ..event }) // the bug: the first header, not the one named event-id
}

feed_source_variant!(FirstHeaderSource, SourceReaderBase<FeedSplitReader, FeedEmitter, Event>, |this, ctx| this.0.reader_with(ctx, FeedEmitter { decode: first_header_id }));

struct FirstHeaderSetup(FeedSourceSetup);

impl SourceSetup for FirstHeaderSetup {
    type Source = ElementSource<FirstHeaderSource, EventCodec>;
    fn name(&self) -> String {
        format!("first-header-id({})", self.0.name())
    }
    fn build(&self, world: &mut World) -> Self::Source {
        ElementSource::new(FirstHeaderSource(self.0.build(world).inner().clone()))
    }
    /// Its element type holds no null key or value, no headers, and text payloads only.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries::PLAIN
    }
}

#[test]
fn a_serializer_that_writes_the_user_id_as_one_byte_is_caught_by_what_a_downstream_reader_decodes() {
    let suite = suites::sink(sink_from_setup(ReserializedSetup(Encoding::UserAsByte), &["store"]));
    let reference = suites::sink(sink_from_setup(StagingSinkSetup, &["store"]));
    let verdict = caught(suite, reference, "no-corruption");
    assert!(verdict.summary.contains("records became visible with changed content"), "{verdict:?}");
}

#[test]
fn bytes_a_downstream_reader_cannot_decode_are_named_by_output_part_and_offset() {
    let suite = suites::sink(sink_from_setup(ReserializedSetup(Encoding::LengthOneShort), &["store"]));
    let reference = suites::sink(sink_from_setup(StagingSinkSetup, &["store"]));
    let verdict = caught(suite, reference, "no-corruption");
    let evidence = verdict.evidence.join("\n");
    assert!(evidence.contains("store/committed offset "), "{evidence}");
    assert!(evidence.contains("the body should be"), "{evidence}");
}

#[test]
fn a_deserializer_that_takes_the_first_header_for_the_event_id_is_caught_inventing_events() {
    let suite = suites::source(source_from_setup("feed-source", &["feed"], |d| FirstHeaderSetup(feed(d))));
    let reference = suites::source(source_from_setup("feed-source", &["feed"], feed));
    let verdict = caught(suite, reference, "no-phantoms");
    assert!(verdict.evidence.iter().any(|e| e.contains("r10000000")), "{verdict:?}");
}
