//! The bucket's requests and answers, one per S3 operation, as they travel over the gateway.
//!
//! Errors are S3's: an HTTP status and S3's error code (`404 NoSuchKey`, `412
//! PreconditionFailed`, `503 SlowDown`, …), so a client maps them exactly as a real S3 client
//! maps the HTTP response.

use super::super::ModelRequest;
use serde::{Deserialize, Serialize};

/// A condition on a write ([`S3Request::Put`], [`S3Request::Copy`], [`S3Request::Complete`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WriteCondition {
    /// Unconditional: the write replaces whatever is there.
    None,
    /// `If-None-Match: *`: only if no object exists at the key (`412` otherwise).
    IfNoneMatch,
    /// `If-Match: <etag>`: only if the current object has this ETag (`412` otherwise,
    /// `404` if there is none).
    IfMatch(String),
}

/// The conditions of a read (RFC 9110 as S3 evaluates them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadConditions {
    /// `If-Match`: `412` unless the ETag is this one.
    pub if_match: Option<String>,
    /// `If-None-Match`: `304` if the ETag is this one.
    pub if_none_match: Option<String>,
    /// `If-Modified-Since` (ms since the epoch): `304` unless modified after it.
    pub if_modified_since_ms: Option<i64>,
    /// `If-Unmodified-Since` (ms since the epoch): `412` if modified after it.
    pub if_unmodified_since_ms: Option<i64>,
}

/// The bytes of an object a read asks for (`Range:`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ByteRange {
    /// `bytes=start-(end-1)`: an end past the object is cut to its size.
    Bounded(u64, u64),
    /// `bytes=start-`.
    From(u64),
    /// `bytes=-n`: the last `n` bytes (the whole object if it is shorter).
    Suffix(u64),
}

/// One request to the bucket.
#[allow(missing_docs)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum S3Request {
    /// `PutObject`: one atomic write of a whole object.
    Put {
        key: String,
        #[serde(with = "crate::bytes")]
        body: Vec<u8>,
        condition: WriteCondition,
        /// Content type, cache control, user metadata…: kept with the object and returned.
        attributes: Vec<(String, String)>,
    },
    /// `GetObject` (`HeadObject` when `head`: the metadata alone).
    Get { key: String, range: Option<ByteRange>, conditions: ReadConditions, version: Option<String>, head: bool },
    /// `DeleteObject`: answered the same whether or not the key exists.
    Delete { key: String },
    /// `ListObjectsV2`: keys starting with `prefix`, after `start_after`, at most `max_keys`;
    /// with `delimiter`, keys with a `/` past the prefix are folded into common prefixes.
    List { prefix: String, delimiter: bool, start_after: Option<String>, max_keys: usize },
    /// `CopyObject`: the current object at `from` becomes a new object at `to`.
    Copy { from: String, to: String, condition: WriteCondition },
    /// `CreateMultipartUpload`: a new upload id for `key`.
    CreateUpload { key: String, attributes: Vec<(String, String)> },
    /// `UploadPart`: part `part` (1 to 10,000) of an upload; uploading a part again replaces it.
    UploadPart {
        key: String,
        upload: String,
        part: u32,
        #[serde(with = "crate::bytes")]
        body: Vec<u8>,
    },
    /// `CompleteMultipartUpload`: the object becomes the named parts (their ETags, parts
    /// 1, 2, … in order), atomically; the upload id is gone afterwards.
    Complete { key: String, upload: String, parts: Vec<String>, condition: WriteCondition },
    /// `AbortMultipartUpload`: the upload and its parts are gone.
    Abort { key: String, upload: String },
}

/// An object's metadata as S3 returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectInfo {
    /// The key.
    pub key: String,
    /// Its size in bytes.
    pub size: u64,
    /// When it was written, in ms since the epoch.
    pub last_modified_ms: i64,
    /// Its ETag, quoted as S3 sends it.
    pub etag: String,
    /// Its version id (the bucket is versioned).
    pub version: String,
    /// Its attributes as written.
    pub attributes: Vec<(String, String)>,
}

/// S3's error answer: the HTTP status and S3's error code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct S3Error {
    /// 304, 400, 404, 409, 412, 416, 500, 503…
    pub status: u16,
    /// S3's code (`NoSuchKey`, `NoSuchUpload`, `PreconditionFailed`, `SlowDown`, …).
    pub code: String,
    /// What went wrong, for the reader.
    pub message: String,
}

impl S3Error {
    pub(crate) fn new(status: u16, code: &str, message: impl Into<String>) -> Self {
        Self { status, code: code.into(), message: message.into() }
    }
}

impl std::fmt::Display for S3Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status, self.code, self.message)
    }
}

/// The bucket's answers.
#[allow(missing_docs)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum S3Response {
    /// An object was written (`Put`, `Copy`, `Complete`).
    Written { etag: String, version: String },
    /// An object's metadata and the bytes `range` of it (none for a head).
    Object {
        info: ObjectInfo,
        start: u64,
        #[serde(with = "crate::bytes")]
        body: Vec<u8>,
    },
    /// Done (`Delete`, `Abort`).
    Done,
    /// One page of a listing; `truncated`: ask again after the last key or prefix returned.
    Listing { objects: Vec<ObjectInfo>, prefixes: Vec<String>, truncated: bool },
    /// A new upload id.
    UploadCreated { upload: String },
    /// A part was stored; its ETag names it in `Complete`.
    PartUploaded { etag: String },
    /// Refused.
    Error(S3Error),
}

impl ModelRequest for S3Request {
    type Response = S3Response;
    fn kind(&self) -> &'static str {
        match self {
            S3Request::Put { .. } => "s3.put",
            S3Request::Get { head: false, .. } => "s3.get",
            S3Request::Get { head: true, .. } => "s3.head",
            S3Request::Delete { .. } => "s3.delete",
            S3Request::List { .. } => "s3.list",
            S3Request::Copy { .. } => "s3.copy",
            S3Request::CreateUpload { .. } => "s3.create-upload",
            S3Request::UploadPart { .. } => "s3.upload-part",
            S3Request::Complete { .. } => "s3.complete",
            S3Request::Abort { .. } => "s3.abort",
        }
    }
}
