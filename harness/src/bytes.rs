//! Byte vectors on the wire: `#[serde(with = "connsim::bytes")]` on a `Vec<u8>` field.
//!
//! Serde treats a plain `Vec<u8>` as a sequence, so bincode writes and reads it one byte
//! at a time; as bytes it is one copy. The encodings do not change: bincode writes the same
//! length and the same bytes, JSON the same array of numbers, so histories, hashes and saved
//! files stay as they were. Reading also accepts what a sequence deserializer offers.
//!
//! ```
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Chunk {
//!     #[serde(with = "connsim::bytes")]
//!     data: Vec<u8>,
//! }
//! let chunk = Chunk { data: b"abc".to_vec() };
//! let plain = bincode::serialize(&b"abc".to_vec()).unwrap();
//! assert_eq!(bincode::serialize(&chunk).unwrap(), plain);
//! ```

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::Serializer;
use std::fmt;

/// Writes `bytes` as one byte string.
pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_bytes(bytes)
}

/// Reads a byte string, or a sequence of bytes.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
    deserializer.deserialize_byte_buf(ByteBuf)
}

/// `bincode::deserialize`, with one wording for input that ends early. bincode words that
/// error differently when the input runs out inside a byte string (read at once) than
/// inside anything else (read piece by piece); the harness's decode errors end up in
/// histories and reports, so they say "unexpected end of file" either way.
pub(crate) fn decode<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> bincode::Result<T> {
    bincode::deserialize(bytes).map_err(|e| match *e {
        bincode::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            Box::new(bincode::ErrorKind::Io(std::io::Error::new(io.kind(), "unexpected end of file")))
        }
        other => Box::new(other),
    })
}

/// `Option<Vec<u8>>` on the wire: `#[serde(with = "connsim::bytes::option")]`. `None` and
/// `Some` encode as serde's option does; the bytes inside as one byte string.
pub mod option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    struct Borrowed<'a>(&'a [u8]);

    impl Serialize for Borrowed<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_bytes(self.0)
        }
    }

    #[derive(Deserialize)]
    #[serde(transparent)]
    struct Owned(#[serde(with = "super")] Vec<u8>);

    /// Writes `None`, or `Some` and the bytes as one byte string.
    pub fn serialize<S: Serializer>(bytes: &Option<Vec<u8>>, serializer: S) -> Result<S::Ok, S::Error> {
        match bytes {
            Some(b) => serializer.serialize_some(&Borrowed(b)),
            None => serializer.serialize_none(),
        }
    }

    /// Reads what [`serialize`] wrote.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<u8>>, D::Error> {
        Ok(Option::<Owned>::deserialize(deserializer)?.map(|o| o.0))
    }
}

struct ByteBuf;

impl<'de> Visitor<'de> for ByteBuf {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a byte string or a sequence of bytes")
    }
    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }
    fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(b) = seq.next_element()? {
            out.push(b);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Plain {
        data: Vec<u8>,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct AsBytes {
        #[serde(with = "crate::bytes")]
        data: Vec<u8>,
    }

    #[test]
    fn bincode_and_json_encode_exactly_as_a_plain_vector_and_read_each_other() {
        for data in [vec![], vec![0u8], (0..=255u8).collect::<Vec<_>>()] {
            let plain = Plain { data: data.clone() };
            let bytes = AsBytes { data: data.clone() };
            let (pb, bb) = (bincode::serialize(&plain).unwrap(), bincode::serialize(&bytes).unwrap());
            assert_eq!(pb, bb);
            assert_eq!(bincode::deserialize::<AsBytes>(&pb).unwrap(), bytes);
            let (pj, bj) = (serde_json::to_string(&plain).unwrap(), serde_json::to_string(&bytes).unwrap());
            assert_eq!(pj, bj);
            assert_eq!(serde_json::from_str::<AsBytes>(&pj).unwrap(), bytes);
            assert_eq!(serde_json::from_str::<Plain>(&bj).unwrap(), plain);
        }
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct MaybeBytes {
        #[serde(with = "crate::bytes::option")]
        data: Option<Vec<u8>>,
    }

    #[test]
    fn optional_bytes_encode_as_a_plain_optional_vector() {
        for data in [None, Some(vec![]), Some(vec![1u8, 2, 255])] {
            let plain = bincode::serialize(&data).unwrap();
            let wrapped = MaybeBytes { data: data.clone() };
            assert_eq!(bincode::serialize(&wrapped).unwrap(), plain);
            assert_eq!(bincode::deserialize::<MaybeBytes>(&plain).unwrap(), wrapped);
            let json = serde_json::to_string(&wrapped).unwrap();
            assert_eq!(serde_json::from_str::<MaybeBytes>(&json).unwrap(), wrapped);
        }
    }

    #[test]
    fn input_ending_early_reads_alike_inside_a_byte_string_and_outside() {
        let mut plain = bincode::serialize(&Plain { data: vec![1, 2, 3] }).unwrap();
        plain.pop();
        let old = bincode::deserialize::<Plain>(&plain).unwrap_err().to_string();
        assert_eq!(old, "io error: unexpected end of file");
        let mut bytes = bincode::serialize(&AsBytes { data: vec![1, 2, 3] }).unwrap();
        bytes.pop();
        assert_eq!(super::decode::<AsBytes>(&bytes).unwrap_err().to_string(), old);
        assert_eq!(super::decode::<Plain>(&plain).unwrap_err().to_string(), old);
        assert_eq!(super::decode::<u64>(&[1, 2]).unwrap_err().to_string(), old);
        // Other errors keep their own words.
        let bad_bool = super::decode::<bool>(&[7]).unwrap_err().to_string();
        assert_eq!(bad_bool, bincode::deserialize::<bool>(&[7]).unwrap_err().to_string());
    }
}
