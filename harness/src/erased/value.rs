//! Erased values (splits, enumerator states, writer states, committables, global
//! committables) and the run's decoders that turn their bytes into the connector's types.

use super::sink::DynSink;
use super::source::DynSource;
use crate::api::{EnumeratorState, Sink, Source, Split, SplitId};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::any::Any;
use std::cell::Cell;
use std::fmt::{self, Debug};
use std::marker::PhantomData;
use std::sync::Arc;

/// A connector's value behind a trait object.
pub(crate) trait Value: erased_serde::Serialize + Send + Sync + 'static {
    /// The connector's own value.
    fn as_any(&self) -> &dyn Any;
    /// Its `Debug`.
    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// Its split id (splits only).
    fn split_id(&self) -> SplitId {
        unreachable!("only a split has a split id")
    }
    /// Its position (splits only).
    fn split_position(&self) -> Option<u64> {
        unreachable!("only a split has a position")
    }
    /// The splits it holds back (enumerator states only).
    fn pending_splits(&self) -> Vec<SplitId> {
        unreachable!("only an enumerator state holds splits back")
    }
}

/// A split.
struct SplitValue<S>(S);
/// An enumerator state.
struct StateValue<E>(E);
/// A writer state, committable or global committable.
struct DataValue<V>(V);

macro_rules! forward_serialize {
    ($($wrapper:ident),*) => {$(
        impl<V: Serialize> Serialize for $wrapper<V> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.0.serialize(s)
            }
        }
    )*};
}
forward_serialize!(SplitValue, StateValue, DataValue);

impl<S: Split> Value for SplitValue<S> {
    fn as_any(&self) -> &dyn Any {
        &self.0
    }
    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
    fn split_id(&self) -> SplitId {
        self.0.id()
    }
    fn split_position(&self) -> Option<u64> {
        self.0.position()
    }
}

impl<E: EnumeratorState> Value for StateValue<E> {
    fn as_any(&self) -> &dyn Any {
        &self.0
    }
    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
    fn pending_splits(&self) -> Vec<SplitId> {
        self.0.pending_splits()
    }
}

impl<V: Serialize + Debug + Send + Sync + 'static> Value for DataValue<V> {
    fn as_any(&self) -> &dyn Any {
        &self.0
    }
    fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What an erased value is, for its decoder and for messages.
pub(crate) trait Kind: 'static {
    /// Named in messages.
    const WHAT: &'static str;
    /// The run's decoder for this kind.
    fn decoder(codecs: &Codecs) -> DecodeValue;
}

macro_rules! kinds {
    ($($kind:ident: $what:literal, $field:ident;)*) => {$(
        #[doc = concat!("Marks an erased ", $what, ".")]
        pub(crate) struct $kind;
        impl Kind for $kind {
            const WHAT: &'static str = $what;
            fn decoder(codecs: &Codecs) -> DecodeValue {
                codecs.$field
            }
        }
    )*};
}
kinds! {
    SplitKind: "split", split;
    EnumStateKind: "enumerator state", enum_state;
    WriterStateKind: "writer state", writer_state;
    CommittableKind: "committable", committable;
    GlobalKind: "global committable", global;
}

/// A connector's value of kind `K`; clones share it (values are never changed in place).
pub(crate) struct Erased<K> {
    value: Arc<dyn Value>,
    kind: PhantomData<fn() -> K>,
}

/// An erased split.
pub(crate) type ErasedSplit = Erased<SplitKind>;
/// An erased enumerator state.
pub(crate) type ErasedEnumState = Erased<EnumStateKind>;
/// An erased writer state.
pub(crate) type ErasedWriterState = Erased<WriterStateKind>;
/// An erased committable.
pub(crate) type ErasedCommittable = Erased<CommittableKind>;
/// An erased global committable.
pub(crate) type ErasedGlobal = Erased<GlobalKind>;

impl<K> Erased<K> {
    fn wrap(value: Arc<dyn Value>) -> Self {
        Self { value, kind: PhantomData }
    }
}

impl<K: Kind> Erased<K> {
    /// The connector's own value.
    pub fn get<V: 'static>(&self) -> &V {
        self.value.as_any().downcast_ref::<V>().unwrap_or_else(|| {
            panic!("connsim: an erased {} does not hold a {} (a bug in connsim)", K::WHAT, std::any::type_name::<V>())
        })
    }

    /// A copy of the connector's own value.
    pub fn typed<V: Clone + 'static>(&self) -> V {
        self.get::<V>().clone()
    }
}

impl ErasedSplit {
    /// Erases a split.
    pub fn new<S: Split>(split: S) -> Self {
        Self::wrap(Arc::new(SplitValue(split)))
    }
}

impl ErasedEnumState {
    /// Erases an enumerator state.
    pub fn new<E: EnumeratorState>(state: E) -> Self {
        Self::wrap(Arc::new(StateValue(state)))
    }
}

impl<K: Kind> Erased<K> {
    /// Erases a writer state, committable or global committable.
    pub fn data<V: Serialize + Debug + Send + Sync + 'static>(value: V) -> Self {
        Self::wrap(Arc::new(DataValue(value)))
    }
}

impl<K> Clone for Erased<K> {
    fn clone(&self) -> Self {
        Self::wrap(self.value.clone())
    }
}

impl<K> Debug for Erased<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt_debug(f)
    }
}

impl<K> Serialize for Erased<K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        erased_serde::serialize(&*self.value, s)
    }
}

impl<'de, K: Kind> Deserialize<'de> for Erased<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let decode = K::decoder(&Codecs::current(K::WHAT));
        let mut d = <dyn erased_serde::Deserializer>::erase(d);
        decode(&mut d).map(Self::wrap).map_err(D::Error::custom)
    }
}

impl Split for ErasedSplit {
    fn id(&self) -> SplitId {
        self.value.split_id()
    }
    fn position(&self) -> Option<u64> {
        self.value.split_position()
    }
}

impl EnumeratorState for ErasedEnumState {
    fn pending_splits(&self) -> Vec<SplitId> {
        self.value.pending_splits()
    }
}

/// Decodes one erased value of a kind.
pub(crate) type DecodeValue =
    for<'a, 'de> fn(&'a mut dyn erased_serde::Deserializer<'de>) -> Result<Arc<dyn Value>, erased_serde::Error>;
/// Decodes the source.
pub(crate) type DecodeSource =
    for<'a, 'de> fn(&'a mut dyn erased_serde::Deserializer<'de>) -> Result<Arc<dyn DynSource>, erased_serde::Error>;
/// Decodes the sink.
pub(crate) type DecodeSink =
    for<'a, 'de> fn(&'a mut dyn erased_serde::Deserializer<'de>) -> Result<Arc<dyn DynSink>, erased_serde::Error>;

fn decode_split<S: Split>(d: &mut dyn erased_serde::Deserializer<'_>) -> Result<Arc<dyn Value>, erased_serde::Error> {
    Ok(Arc::new(SplitValue(erased_serde::deserialize::<S>(d)?)))
}

fn decode_state<E: EnumeratorState>(
    d: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<Arc<dyn Value>, erased_serde::Error> {
    Ok(Arc::new(StateValue(erased_serde::deserialize::<E>(d)?)))
}

fn decode_data<V: DeserializeOwned + Serialize + Debug + Send + Sync + 'static>(
    d: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<Arc<dyn Value>, erased_serde::Error> {
    Ok(Arc::new(DataValue(erased_serde::deserialize::<V>(d)?)))
}

/// The decoders of one run's connectors: how the bytes of each erased kind become the
/// connector's own types again.
#[derive(Clone, Copy)]
pub(crate) struct Codecs {
    split: DecodeValue,
    enum_state: DecodeValue,
    writer_state: DecodeValue,
    committable: DecodeValue,
    global: DecodeValue,
    pub(super) source: DecodeSource,
    pub(super) sink: DecodeSink,
}

thread_local! {
    /// The decoders of the run on this thread (a run is one thread: madsim's executor).
    static CURRENT: Cell<Option<Codecs>> = const { Cell::new(None) };
}

/// Puts back the decoders that were installed before, when dropped.
pub(crate) struct Installed(Option<Codecs>);

impl Drop for Installed {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0.take()));
    }
}

impl Codecs {
    /// The decoders for source `Src` and sink `Snk`.
    pub fn of<Src: Source, Snk: Sink>() -> Self {
        Self {
            split: decode_split::<Src::Split>,
            enum_state: decode_state::<Src::EnumState>,
            writer_state: decode_data::<Snk::WriterState>,
            committable: decode_data::<Snk::Committable>,
            global: decode_data::<super::global::GlobalOf<Snk>>,
            source: super::source::decode_source::<Src>,
            sink: super::sink::decode_sink::<Snk>,
        }
    }

    /// Installs these decoders on this thread until the guard is dropped.
    pub fn install(self) -> Installed {
        Installed(CURRENT.with(|c| c.replace(Some(self))))
    }

    /// The decoders installed on this thread.
    pub(super) fn current(what: &str) -> Codecs {
        CURRENT.with(|c| c.get()).unwrap_or_else(|| {
            panic!("connsim: an erased {what} was decoded outside a run (a bug in connsim: no decoders installed)")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probes::{GeneratorSource, ProbeSink};

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Part {
        name: String,
        offset: u64,
    }
    impl Split for Part {
        fn id(&self) -> SplitId {
            self.name.clone()
        }
    }

    fn codecs() -> Codecs {
        let mut codecs = Codecs::of::<GeneratorSource, ProbeSink>();
        codecs.split = decode_split::<Part>;
        codecs
    }

    #[test]
    fn an_erased_value_has_the_bytes_and_debug_of_the_typed_one_and_decodes_back() {
        let part = Part { name: "p-3".into(), offset: 17 };
        let erased = ErasedSplit::new(part.clone());
        let bytes = bincode::serialize(&vec![erased.clone()]).unwrap();
        assert_eq!(bytes, bincode::serialize(&vec![part.clone()]).unwrap());
        assert_eq!(format!("{erased:?}"), format!("{part:?}"));
        assert_eq!(erased.id(), "p-3");
        let _installed = codecs().install();
        let back: Vec<ErasedSplit> = bincode::deserialize(&bytes).unwrap();
        assert_eq!(back[0].get::<Part>(), &part);
        let wrong: Result<Vec<ErasedSplit>, _> = bincode::deserialize(&bytes[..bytes.len() - 3]);
        assert!(wrong.is_err(), "truncated bytes must not decode");
    }

    #[test]
    fn decoders_are_put_back_when_the_guard_drops() {
        let bytes = bincode::serialize(&Part { name: "a".into(), offset: 1 }).unwrap();
        {
            let _installed = codecs().install();
            assert!(bincode::deserialize::<ErasedSplit>(&bytes).is_ok());
        }
        let outside = std::panic::catch_unwind(|| bincode::deserialize::<ErasedSplit>(&bytes));
        let message = *outside.unwrap_err().downcast::<String>().unwrap();
        assert!(message.contains("decoded outside a run"), "{message}");
    }
}
