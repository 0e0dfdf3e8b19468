//! The bucket's state and S3's rules for each request: a pure state machine, told the time.
//!
//! - A `PutObject` is atomic: a reader sees the old object or the new one, never a part.
//! - The bucket is versioned: every write is a new version with its own id, a delete hides
//!   the key behind a delete marker, and a read may name an older version.
//! - An object's ETag is a digest of its bytes (a single put or a copy: the same bytes, the
//!   same ETag; a completed multipart upload: a digest of its parts' ETags, `-N` appended),
//!   so an `If-Match` with an old ETag passes again once the same bytes are back.
//! - A multipart upload and its parts are invisible until `CompleteMultipartUpload`, which
//!   makes the object from the named parts in one step and ends the upload: completing it
//!   again, uploading to it or aborting it answers `404 NoSuchUpload`. Every part but the
//!   last must hold at least the minimum part size (5 MiB on S3), or the completion is
//!   refused `400 EntityTooSmall`.
//! - A lifecycle rule (`AbortIncompleteMultipartUpload`) may abort uploads a given time after
//!   they were started.
//! - Reads and listings are strongly consistent: they see every write that was answered.
//! - There is no rename: a copy, then a delete, two requests.

use super::wire::{ByteRange, ObjectInfo, ReadConditions, S3Error, S3Request, S3Response, WriteCondition};
use std::collections::BTreeMap;
use std::sync::Arc;

/// S3's minimum size of every part of a multipart upload but the last.
pub const MIN_PART_SIZE: u64 = 5 * 1024 * 1024;
/// S3's highest part number.
pub const MAX_PARTS: u32 = 10_000;
/// S3's largest page of a listing.
pub const MAX_KEYS: usize = 1_000;
/// The bucket's clock starts at 2026-01-01T00:00:00Z: virtual time 0 is this many ms after
/// the epoch, so `Last-Modified` reads as a date.
pub const EPOCH_MS: i64 = 1_767_225_600_000;

/// One version of a key: an object, or a delete marker.
#[derive(Clone, Debug)]
pub(crate) struct Version {
    pub(crate) id: String,
    pub(crate) last_modified_ms: i64,
    /// `None`: a delete marker.
    pub(crate) object: Option<Object>,
}

/// An object's bytes and what S3 keeps with them.
#[derive(Clone, Debug)]
pub(crate) struct Object {
    pub(crate) data: Arc<Vec<u8>>,
    pub(crate) etag: String,
    pub(crate) attributes: Vec<(String, String)>,
}

/// An upload in progress.
#[derive(Clone, Debug)]
pub(crate) struct Upload {
    pub(crate) key: String,
    pub(crate) started_ms: u64,
    pub(crate) attributes: Vec<(String, String)>,
    /// Part number → (bytes, ETag).
    pub(crate) parts: BTreeMap<u32, (Vec<u8>, String)>,
}

/// The bucket: every version of every key, and the uploads in progress.
#[derive(Debug)]
pub(crate) struct BucketState {
    pub(crate) keys: BTreeMap<String, Vec<Version>>,
    pub(crate) uploads: BTreeMap<String, Upload>,
    /// Changes whenever an object appears, changes or goes.
    pub(crate) generation: u64,
    /// The generation at which each key last changed.
    pub(crate) changed: BTreeMap<String, u64>,
    next_version: u64,
    next_upload: u64,
    /// Every part but the last of a completed upload must hold this many bytes.
    pub(crate) min_part_size: u64,
    /// Incomplete uploads are aborted this long after they started (a lifecycle rule).
    pub(crate) expire_uploads_after_ms: Option<u64>,
}

impl Default for BucketState {
    fn default() -> Self {
        Self {
            keys: BTreeMap::new(),
            uploads: BTreeMap::new(),
            generation: 0,
            changed: BTreeMap::new(),
            next_version: 0,
            next_upload: 0,
            min_part_size: MIN_PART_SIZE,
            expire_uploads_after_ms: None,
        }
    }
}

/// A quoted hex digest, as S3 writes ETags (FNV-1a, 128 bits from two lanes: stable across
/// builds, unlike the standard library's hasher).
pub(crate) fn etag_of(bytes: &[u8]) -> String {
    let lane = |mut h: u64| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    };
    format!("\"{:016x}{:016x}\"", lane(0xcbf2_9ce4_8422_2325), lane(0x6c62_272e_07bb_0142))
}

fn no_such_key(key: &str) -> S3Error {
    S3Error::new(404, "NoSuchKey", format!("the key {key:?} does not exist"))
}

fn no_such_upload(upload: &str) -> S3Error {
    S3Error::new(
        404,
        "NoSuchUpload",
        format!("the upload {upload:?} does not exist: it was completed, aborted or expired, or never started"),
    )
}

fn precondition(what: &str) -> S3Error {
    S3Error::new(412, "PreconditionFailed", what.to_string())
}

impl BucketState {
    /// The current object at `key` and its version, if there is one (not a delete marker).
    pub(crate) fn current(&self, key: &str) -> Option<(&Version, &Object)> {
        let v = self.keys.get(key)?.last()?;
        v.object.as_ref().map(|o| (v, o))
    }

    fn info(key: &str, v: &Version, o: &Object) -> ObjectInfo {
        ObjectInfo {
            key: key.to_string(),
            size: o.data.len() as u64,
            last_modified_ms: v.last_modified_ms,
            etag: o.etag.clone(),
            version: v.id.clone(),
            attributes: o.attributes.clone(),
        }
    }

    /// Adds a version at `key` (an object, or a delete marker for `None`).
    fn push(&mut self, key: &str, object: Option<Object>, now_ms: u64) -> String {
        self.next_version += 1;
        let id = format!("v{}", self.next_version);
        let version = Version { id: id.clone(), last_modified_ms: EPOCH_MS + now_ms as i64, object };
        self.keys.entry(key.to_string()).or_default().push(version);
        self.generation += 1;
        self.changed.insert(key.to_string(), self.generation);
        id
    }

    /// Whether a write under `condition` may replace what is at `key` now.
    fn check_write(&self, key: &str, condition: &WriteCondition) -> Result<(), S3Error> {
        let current = self.current(key).map(|(_, o)| o.etag.as_str());
        match (condition, current) {
            (WriteCondition::None, _) => Ok(()),
            (WriteCondition::IfNoneMatch, None) => Ok(()),
            (WriteCondition::IfNoneMatch, Some(_)) => Err(precondition(&format!("an object exists at {key:?}"))),
            (WriteCondition::IfMatch(_), None) => Err(no_such_key(key)),
            (WriteCondition::IfMatch(want), Some(etag)) if want == etag => Ok(()),
            (WriteCondition::IfMatch(want), Some(etag)) => {
                Err(precondition(&format!("the object at {key:?} has ETag {etag}, not {want}")))
            }
        }
    }

    /// Aborts the uploads the lifecycle rule expires by `now_ms`; returns them.
    pub(crate) fn expire(&mut self, now_ms: u64) -> Vec<(String, Upload)> {
        let Some(age) = self.expire_uploads_after_ms else { return Vec::new() };
        let due: Vec<String> =
            self.uploads.iter().filter(|(_, u)| u.started_ms + age <= now_ms).map(|(id, _)| id.clone()).collect();
        due.into_iter().map(|id| (id.clone(), self.uploads.remove(&id).expect("listed"))).collect()
    }

    /// Serves one request at virtual time `now_ms`.
    pub(crate) fn apply(&mut self, req: S3Request, now_ms: u64) -> S3Response {
        self.serve(req, now_ms).unwrap_or_else(S3Response::Error)
    }

    fn serve(&mut self, req: S3Request, now_ms: u64) -> Result<S3Response, S3Error> {
        match req {
            S3Request::Put { key, body, condition, attributes } => {
                self.check_write(&key, &condition)?;
                let object = Object { etag: etag_of(&body), data: Arc::new(body), attributes };
                let etag = object.etag.clone();
                let version = self.push(&key, Some(object), now_ms);
                Ok(S3Response::Written { etag, version })
            }
            S3Request::Get { key, range, conditions, version, head } => {
                self.get(&key, range, &conditions, version.as_deref(), head)
            }
            S3Request::Delete { key } => {
                if self.current(&key).is_some() {
                    self.push(&key, None, now_ms);
                }
                Ok(S3Response::Done)
            }
            S3Request::List { prefix, delimiter, start_after, max_keys } => {
                Ok(self.list(&prefix, delimiter, start_after.as_deref(), max_keys))
            }
            S3Request::Copy { from, to, condition } => {
                let (_, source) = self.current(&from).ok_or_else(|| no_such_key(&from))?;
                let object = source.clone();
                self.check_write(&to, &condition)?;
                let etag = object.etag.clone();
                let version = self.push(&to, Some(object), now_ms);
                Ok(S3Response::Written { etag, version })
            }
            S3Request::CreateUpload { key, attributes } => {
                self.next_upload += 1;
                let upload = format!("upload-{}", self.next_upload);
                let started = Upload { key, started_ms: now_ms, attributes, parts: BTreeMap::new() };
                self.uploads.insert(upload.clone(), started);
                Ok(S3Response::UploadCreated { upload })
            }
            S3Request::UploadPart { key, upload, part, body } => {
                if !(1..=MAX_PARTS).contains(&part) {
                    let why = format!("part number {part} is not between 1 and {MAX_PARTS}");
                    return Err(S3Error::new(400, "InvalidArgument", why));
                }
                let u =
                    self.uploads.get_mut(&upload).filter(|u| u.key == key).ok_or_else(|| no_such_upload(&upload))?;
                let etag = etag_of(&body);
                u.parts.insert(part, (body, etag.clone()));
                Ok(S3Response::PartUploaded { etag })
            }
            S3Request::Complete { key, upload, parts, condition } => {
                self.complete(&key, &upload, &parts, &condition, now_ms)
            }
            S3Request::Abort { key, upload } => {
                self.uploads.get(&upload).filter(|u| u.key == key).ok_or_else(|| no_such_upload(&upload))?;
                self.uploads.remove(&upload);
                Ok(S3Response::Done)
            }
        }
    }

    fn get(
        &self,
        key: &str,
        range: Option<ByteRange>,
        conditions: &ReadConditions,
        version: Option<&str>,
        head: bool,
    ) -> Result<S3Response, S3Error> {
        let (v, o) = match version {
            None => self.current(key).ok_or_else(|| no_such_key(key))?,
            Some(id) => {
                let v = self.keys.get(key).and_then(|vs| vs.iter().find(|v| v.id == id));
                let v =
                    v.ok_or_else(|| S3Error::new(404, "NoSuchVersion", format!("{key:?} has no version {id:?}")))?;
                let o = v.object.as_ref().ok_or_else(|| {
                    S3Error::new(405, "MethodNotAllowed", format!("version {id:?} of {key:?} is a delete marker"))
                })?;
                (v, o)
            }
        };
        let modified = v.last_modified_ms;
        // RFC 9110 §13.2.2, as S3 applies it: If-Match, else If-Unmodified-Since; then
        // If-None-Match, else If-Modified-Since.
        match (&conditions.if_match, conditions.if_unmodified_since_ms) {
            (Some(tag), _) if *tag != o.etag => return Err(precondition(&format!("{key:?} has ETag {}", o.etag))),
            (None, Some(since)) if modified > since => return Err(precondition(&format!("{key:?} was modified"))),
            _ => {}
        }
        match (&conditions.if_none_match, conditions.if_modified_since_ms) {
            (Some(tag), _) if *tag == o.etag => return Err(S3Error::new(304, "NotModified", "the ETag matches")),
            (None, Some(since)) if modified <= since => {
                return Err(S3Error::new(304, "NotModified", "not modified since"))
            }
            _ => {}
        }
        let size = o.data.len() as u64;
        let (start, end) = match range {
            None => (0, size),
            Some(ByteRange::Bounded(s, e)) => (s, e.min(size)),
            Some(ByteRange::From(s)) => (s, size),
            Some(ByteRange::Suffix(n)) => (size.saturating_sub(n), size),
        };
        if start >= end && range.is_some() && !(start == 0 && size == 0) {
            let why = format!("bytes {start}..{end} are not within the {size} bytes of {key:?}");
            return Err(S3Error::new(416, "InvalidRange", why));
        }
        let body = if head { Vec::new() } else { o.data[start as usize..end.max(start) as usize].to_vec() };
        Ok(S3Response::Object { info: Self::info(key, v, o), start, body })
    }

    fn list(&self, prefix: &str, delimiter: bool, start_after: Option<&str>, max_keys: usize) -> S3Response {
        let max_keys = max_keys.clamp(1, MAX_KEYS);
        let mut objects = Vec::new();
        let mut prefixes: Vec<String> = Vec::new();
        let from = start_after.map_or(prefix.to_string(), str::to_string);
        let mut truncated = false;
        for (key, versions) in self.keys.range(from..) {
            if !key.starts_with(prefix) {
                if key.as_str() > prefix {
                    break;
                }
                continue;
            }
            if start_after
                .is_some_and(|after| key.as_str() <= after || (after.ends_with('/') && key.starts_with(after)))
            {
                continue;
            }
            let Some(o) = versions.last().and_then(|v| v.object.as_ref().map(|o| (v, o))) else { continue };
            let folded = delimiter.then(|| key[prefix.len()..].find('/')).flatten();
            if objects.len() + prefixes.len() == max_keys {
                let repeats =
                    folded.is_some_and(|i| prefixes.last().map(String::as_str) == Some(&key[..prefix.len() + i + 1]));
                if !repeats {
                    truncated = true;
                    break;
                }
            }
            match folded {
                Some(i) => {
                    let common = &key[..prefix.len() + i + 1];
                    if prefixes.last().map(String::as_str) != Some(common) {
                        prefixes.push(common.to_string());
                    }
                }
                None => objects.push(Self::info(key, o.0, o.1)),
            }
        }
        S3Response::Listing { objects, prefixes, truncated }
    }

    fn complete(
        &mut self,
        key: &str,
        upload: &str,
        parts: &[String],
        condition: &WriteCondition,
        now_ms: u64,
    ) -> Result<S3Response, S3Error> {
        let u = self.uploads.get(upload).filter(|u| u.key == key).ok_or_else(|| no_such_upload(upload))?;
        if parts.is_empty() {
            return Err(S3Error::new(400, "MalformedXML", "a completion must name at least one part"));
        }
        // Every part is checked to be there as named before any size is.
        let mut named = Vec::with_capacity(parts.len());
        for (i, etag) in parts.iter().enumerate() {
            let number = i as u32 + 1;
            let Some((bytes, stored)) = u.parts.get(&number) else {
                return Err(S3Error::new(
                    400,
                    "InvalidPart",
                    format!("part {number} of {upload:?} was never uploaded"),
                ));
            };
            if stored != etag {
                let why = format!("part {number} of {upload:?} has ETag {stored}, not {etag}");
                return Err(S3Error::new(400, "InvalidPart", why));
            }
            named.push(bytes);
        }
        if let Some((i, small)) =
            named.iter().enumerate().take(named.len() - 1).find(|(_, b)| (b.len() as u64) < self.min_part_size)
        {
            let why = format!(
                "part {} of {upload:?} holds {} bytes: every part but the last needs at least {}",
                i + 1,
                small.len(),
                self.min_part_size
            );
            return Err(S3Error::new(400, "EntityTooSmall", why));
        }
        let data: Vec<u8> = named.iter().flat_map(|b| b.iter().copied()).collect();
        let digests: Vec<u8> = parts.concat().into_bytes();
        self.check_write(key, condition)?;
        let etag = format!("{}-{}\"", etag_of(&digests).trim_end_matches('"'), parts.len());
        let attributes = u.attributes.clone();
        self.uploads.remove(upload);
        let version = self.push(key, Some(Object { data: Arc::new(data), etag: etag.clone(), attributes }), now_ms);
        Ok(S3Response::Written { etag, version })
    }
}
