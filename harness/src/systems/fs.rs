//! A file system / object store: files with synced and unsynced bytes, append, sync,
//! atomic rename, list, delete. A crash of its node loses every unsynced byte.
//!
//! Files under the visible prefix whose name does not start with `.` are what a downstream
//! reader sees; they hold the bytes the writer wrote, which the output reader decodes as the
//! harness's line format ([`Record::encode_line`]) or a declared [`FileFormat`].

use super::output::{Entry, OutputReader, Part};
use super::{serve_requests_or_drop, BoxFuture, ExternalSystem, Setting, SettingEnv};
use crate::error::ConnectorError;
use crate::history::{EventKind, History};
use crate::net::{Endpoint, Inbox, RpcError};
use crate::record::Record;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Requests the file system serves; paths are `/`-separated strings.
#[allow(missing_docs)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum FsRequest {
    /// Creates an empty file, replacing any old one.
    Create { path: String },
    /// Appends bytes (unsynced until `Sync`) at offset `at`, which must be the file's length.
    /// Retrying an append that already took effect succeeds without writing twice.
    Append {
        path: String,
        at: u64,
        #[serde(with = "crate::bytes")]
        bytes: Vec<u8>,
    },
    /// Makes the file's bytes durable, if it holds `len` bytes; otherwise fails with
    /// `WrongOffset` (bytes the writer appended were lost in a crash, as a failed fsync
    /// reports).
    Sync { path: String, len: u64 },
    /// Atomically renames; fails if `to` exists.
    Rename { from: String, to: String },
    /// Paths starting with `prefix`.
    List { prefix: String },
    /// Removes a file.
    Delete { path: String },
    /// Reads a whole file.
    Read { path: String },
}

/// Why a request failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FsError {
    /// No such file.
    NotFound(String),
    /// The target already exists.
    AlreadyExists(String),
    /// An append named an offset that is not the file's end.
    WrongOffset {
        /// The file's length.
        len: u64,
    },
}

/// The file system's answers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum FsResponse {
    /// Done.
    Ok,
    /// Paths.
    Listing(Vec<String>),
    /// File contents.
    Data(#[serde(with = "crate::bytes")] Vec<u8>),
    /// Refused.
    Error(FsError),
}

#[derive(Default, Clone)]
struct File {
    synced: Vec<u8>,
    unsynced: Vec<u8>,
    /// Changes with every change of the file's bytes (for output readers).
    generation: u64,
}

impl File {
    fn len(&self) -> u64 {
        (self.synced.len() + self.unsynced.len()) as u64
    }
    fn bytes(&self) -> Vec<u8> {
        [self.synced.as_slice(), self.unsynced.as_slice()].concat()
    }
}

#[derive(Default)]
struct State {
    files: BTreeMap<String, File>,
    /// Source of file generations.
    generations: u64,
    /// Changes whenever a downstream-visible file changes.
    visible_version: u64,
    /// Appends are torn now and then ([`Setting::TornAppends`]).
    torn: Option<Torn>,
    /// The last whole-file read of each visible file: its bytes and what they decoded to.
    /// A whole-file read of the same bytes returns the same entries again (decoding is a
    /// function of the path, the bytes and the file system's format alone), so the observer's
    /// final reread compares bytes instead of decoding every line twice.
    read_memo: BTreeMap<String, (Vec<u8>, Vec<Entry>)>,
    /// How the output reader decodes a file ([`FileSystem::reading_with`]); `None`: connsim's
    /// line format.
    format: Option<Arc<dyn FileFormat>>,
}

/// How appends are torn: the chance, the random stream, and where the tears are recorded.
struct Torn {
    probability: f64,
    rng: ChaCha8Rng,
    history: History,
}

impl State {
    fn touch(&mut self, path: &str, visible: bool) {
        self.generations += 1;
        let g = self.generations;
        if let Some(f) = self.files.get_mut(path) {
            f.generation = g;
        }
        if visible {
            self.visible_version += 1;
        }
    }
}

/// How a downstream reader decodes one visible file of your own format (see
/// [`FileSystem::reading_with`]).
pub trait FileFormat: Send + Sync + 'static {
    /// The entries of the file at `path`, whole, in reading order: each record's id and
    /// content digest, and garbage naming the path and the place for bytes that are no record.
    fn entries(&self, path: &str, bytes: &[u8]) -> Vec<Entry>;
}

/// The file-system model.
#[derive(Clone)]
pub struct FileSystem {
    name: String,
    visible_prefix: String,
    state: Arc<Mutex<State>>,
}

impl FileSystem {
    /// An empty file system on node `name`; files under `visible_prefix` are downstream-visible.
    pub fn new(name: &str, visible_prefix: &str) -> Self {
        Self { name: name.into(), visible_prefix: visible_prefix.into(), state: Arc::default() }
    }

    /// This file system (and every handle of it), its output reader decoding every visible
    /// file by `format`: your writer's file format. Each change to a file is a new version
    /// of it, reread whole (a format may decode earlier bytes differently once more are
    /// appended, as a footer does).
    pub fn reading_with(self, format: Arc<dyn FileFormat>) -> Self {
        self.state.lock().unwrap().format = Some(format);
        self
    }

    /// Writes a durable (synced) file before the run, e.g. input for a source.
    pub fn put(&self, path: &str, bytes: Vec<u8>) {
        let mut s = self.state.lock().unwrap();
        s.files.insert(path.to_string(), File { synced: bytes, ..File::default() });
        let visible = self.is_visible(path);
        s.touch(path, visible);
    }

    /// A file's bytes (synced and not), if it exists.
    pub fn read_file(&self, path: &str) -> Option<Vec<u8>> {
        self.state.lock().unwrap().files.get(path).map(File::bytes)
    }

    fn is_visible(&self, path: &str) -> bool {
        path.strip_prefix(&self.visible_prefix)
            .is_some_and(|rest| !rest.is_empty() && !rest.split('/').any(|c| c.starts_with('.')))
    }

    fn location(&self) -> String {
        format!("{}:{}", self.name, self.visible_prefix)
    }

    /// Serves one request; `None`: no answer (a torn append).
    fn serve_one(&self, req: FsRequest) -> Option<FsResponse> {
        if let FsRequest::Append { path, at, bytes } = &req {
            if let Some(k) = self.tear(path, *at, bytes.len()) {
                let mut s = self.state.lock().unwrap();
                s.files
                    .get_mut(path)
                    .expect("torn appends go to files that exist")
                    .unsynced
                    .extend_from_slice(&bytes[..k]);
                s.touch(path, self.is_visible(path));
                return None;
            }
        }
        Some(self.handle(req))
    }

    /// Whether this append is torn, and after how many of its `n` bytes: only a fresh append
    /// (at the file's end) of two bytes or more, with the configured chance.
    fn tear(&self, path: &str, at: u64, n: usize) -> Option<usize> {
        let mut s = self.state.lock().unwrap();
        let fresh = s.files.get(path).is_some_and(|f| f.len() == at);
        let torn = s.torn.as_mut().filter(|_| fresh && n >= 2)?;
        if !torn.rng.gen_bool(torn.probability) {
            return None;
        }
        let k = torn.rng.gen_range(1..n);
        let event = EventKind::Fault {
            fault: crate::history::FaultKind::TornAppend,
            from: self.name.clone(),
            to: path.to_string(),
            kind: format!("fs.append: {k} of {n} bytes at {at}"),
            call: None,
        };
        torn.history.record(&self.name, event);
        Some(k)
    }

    fn handle(&self, req: FsRequest) -> FsResponse {
        let mut s = self.state.lock().unwrap();
        match req {
            FsRequest::Create { path } => {
                s.files.insert(path.clone(), File::default());
                s.touch(&path, self.is_visible(&path));
                FsResponse::Ok
            }
            FsRequest::Append { path, at, bytes } => {
                let Some(f) = s.files.get_mut(&path) else { return FsResponse::Error(FsError::NotFound(path)) };
                let len = f.len();
                if len == at {
                    f.unsynced.extend_from_slice(&bytes);
                    s.touch(&path, self.is_visible(&path));
                    FsResponse::Ok
                } else if len == at + bytes.len() as u64 {
                    FsResponse::Ok // a retry of an append that took effect
                } else {
                    FsResponse::Error(FsError::WrongOffset { len })
                }
            }
            FsRequest::Sync { path, len } => match s.files.get_mut(&path) {
                Some(f) if f.len() != len => FsResponse::Error(FsError::WrongOffset { len: f.len() }),
                Some(f) => {
                    let bytes = std::mem::take(&mut f.unsynced);
                    f.synced.extend_from_slice(&bytes);
                    FsResponse::Ok
                }
                None => FsResponse::Error(FsError::NotFound(path)),
            },
            FsRequest::Rename { from, to } => {
                if s.files.contains_key(&to) {
                    return FsResponse::Error(FsError::AlreadyExists(to));
                }
                let Some(file) = s.files.remove(&from) else {
                    return FsResponse::Error(FsError::NotFound(from));
                };
                s.files.insert(to.clone(), file);
                s.read_memo.remove(&from);
                let visible = self.is_visible(&to) || self.is_visible(&from);
                s.touch(&to, visible);
                FsResponse::Ok
            }
            FsRequest::List { prefix } => {
                FsResponse::Listing(s.files.keys().filter(|p| p.starts_with(&prefix)).cloned().collect())
            }
            FsRequest::Delete { path } => match s.files.remove(&path) {
                Some(_) => {
                    s.read_memo.remove(&path);
                    if self.is_visible(&path) {
                        s.visible_version += 1;
                    }
                    FsResponse::Ok
                }
                None => FsResponse::Error(FsError::NotFound(path)),
            },
            FsRequest::Read { path } => match s.files.get(&path) {
                Some(f) => FsResponse::Data(f.bytes()),
                None => FsResponse::Error(FsError::NotFound(path)),
            },
        }
    }

    /// The output reader for the visible prefix: exactly the files under it (no component
    /// starting with `.`), in path order, with the bytes they hold now, synced or not, as a
    /// downstream job listing the directory would read them. Each line is a record in the
    /// harness's line format ([`Record::encode_line`]); a line that does not decode, or a
    /// last line without its newline (a torn write), is visible garbage. With
    /// [`FileSystem::reading_with`], the format decodes each file instead.
    pub fn output(&self) -> Arc<dyn OutputReader> {
        Arc::new(self.clone())
    }
}

impl ExternalSystem for FileSystem {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn serve(&self, inbox: Inbox) -> BoxFuture {
        let fs = self.clone();
        Box::pin(serve_requests_or_drop(inbox, move |req| fs.serve_one(req)))
    }
    fn configure(&self, setting: &Setting, env: &SettingEnv) -> Result<(), String> {
        match setting {
            Setting::TornAppends(p) if !(0.0..=1.0).contains(p) => {
                Err(format!("torn-append probability {p} is not between 0.0 and 1.0"))
            }
            Setting::TornAppends(p) => {
                let torn =
                    Torn { probability: *p, rng: ChaCha8Rng::seed_from_u64(env.seed), history: env.history.clone() };
                self.state.lock().unwrap().torn = (*p > 0.0).then_some(torn);
                Ok(())
            }
            other => Err(format!("the file system {} has no setting {other:?}", self.name)),
        }
    }
    fn crash(&self) {
        let mut s = self.state.lock().unwrap();
        let lost: Vec<String> =
            s.files.iter().filter(|(_, f)| !f.unsynced.is_empty()).map(|(p, _)| p.clone()).collect();
        for path in lost {
            s.files.get_mut(&path).expect("listed").unsynced.clear();
            s.touch(&path, self.is_visible(&path));
        }
    }
}

/// Decodes `bytes` of the file or object `path`, in connsim's line format, into the entries a
/// downstream reader sees: a record per line, garbage for a line that does not decode or has
/// no newline (for an output reader of one's own over files connsim's systems hold).
pub fn line_entries(path: &str, bytes: &[u8]) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut line_no = 0;
    while !rest.is_empty() {
        let (line, next) = match rest.iter().position(|b| *b == b'\n') {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        match next {
            None => out.push(Entry::Garbage(format!(
                "{path}: line {line_no} has no newline (a torn write): {} bytes",
                line.len()
            ))),
            Some(_) if line.is_empty() => {}
            Some(_) => match Record::digest_line(line) {
                Some((id, digest)) => out.push(Entry::record(id, digest)),
                None => out.push(Entry::Garbage(format!("{path}: line {line_no} is not a record"))),
            },
        }
        line_no += 1;
        rest = next.unwrap_or_default();
    }
    out
}

impl OutputReader for FileSystem {
    fn location(&self) -> String {
        FileSystem::location(self)
    }
    fn version(&self) -> Option<u64> {
        Some(self.state.lock().unwrap().visible_version)
    }
    fn parts(&self) -> Vec<Part> {
        let s = self.state.lock().unwrap();
        let visible = s.files.iter().filter(|(p, _)| self.is_visible(p));
        // Every change to a file gives it a new generation: the observer rereads it whole.
        visible.map(|(p, f)| Part { name: p.clone(), version: f.generation, end: f.len() }).collect()
    }
    fn read(&self, part: &str, from: u64) -> Vec<Entry> {
        let (bytes, format) = {
            let s = self.state.lock().unwrap();
            let Some(f) = s.files.get(part).filter(|_| self.is_visible(part)) else { return Vec::new() };
            if from > 0 && s.format.is_none() {
                return line_entries(part, &f.bytes()[(from as usize).min(f.len() as usize)..]);
            }
            if let Some((bytes, entries)) = s.read_memo.get(part) {
                let (synced, unsynced) = bytes.split_at(f.synced.len().min(bytes.len()));
                if synced == f.synced.as_slice() && unsynced == f.unsynced.as_slice() {
                    return entries.clone();
                }
            }
            (f.bytes(), s.format.clone())
        };
        // A format of the user's decodes with the file system unlocked: a decoder that panics
        // leaves it usable (the observer reports the panic), never a poisoned lock.
        let entries = match &format {
            None => line_entries(part, &bytes),
            Some(format) => format.entries(part, &bytes),
        };
        self.state.lock().unwrap().read_memo.insert(part.to_string(), (bytes, entries.clone()));
        entries
    }
}

/// A connector's client for the file system, over the gateway.
#[derive(Clone)]
pub struct FsClient {
    endpoint: Endpoint,
    fs: String,
    timeout: Duration,
}

impl FsClient {
    /// A client of the file system named `fs`, with a 50 ms call timeout.
    pub fn new(endpoint: Endpoint, fs: &str) -> Self {
        Self { endpoint, fs: fs.into(), timeout: Duration::from_millis(50) }
    }

    /// Sends one request; a timeout or an error reply ([`RpcError::Refused`]) is a retriable
    /// error, a refusal by the file system comes back as `Err(FsError)` inside `Ok`.
    pub async fn request(&self, req: FsRequest) -> Result<Result<FsResponse, FsError>, ConnectorError> {
        match self.send(req).await? {
            FsResponse::Error(e) => Ok(Err(e)),
            ok => Ok(Ok(ok)),
        }
    }

    /// Sends one request and tells a timeout (the request may have taken effect) from an
    /// error reply (it did not) in the `RpcError`.
    pub async fn send(&self, req: FsRequest) -> Result<FsResponse, RpcError> {
        let kind = match &req {
            FsRequest::Create { .. } => "fs.create",
            FsRequest::Append { .. } => "fs.append",
            FsRequest::Sync { .. } => "fs.sync",
            FsRequest::Rename { .. } => "fs.rename",
            FsRequest::List { .. } => "fs.list",
            FsRequest::Delete { .. } => "fs.delete",
            FsRequest::Read { .. } => "fs.read",
        };
        self.endpoint.call(&self.fs, kind, &req, self.timeout).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: u64, payload: &[u8]) -> Vec<u8> {
        Record { id: crate::record::RecordId(id), key: 1, event_time_ms: 0, payload: payload.to_vec(), extras: None }
            .encode_line()
    }

    fn ids(entries: &[Entry]) -> Vec<Option<u64>> {
        entries
            .iter()
            .map(|e| match e {
                Entry::Record(s) => Some(s.id.0),
                Entry::Garbage(_) => None,
            })
            .collect()
    }

    /// A whole-file read that finds the same bytes answers from its memo; bytes that changed
    /// in place (same length, same generation seen by nobody) are decoded again.
    #[test]
    fn a_whole_file_read_decodes_again_whatever_changed_in_the_bytes() {
        let fs = FileSystem::new("fs", "out/");
        fs.put("out/a", [line(1, b"x"), line(2, b"y")].concat());
        assert_eq!(ids(&fs.read("out/a", 0)), [Some(1), Some(2)]);
        assert_eq!(ids(&fs.read("out/a", 0)), [Some(1), Some(2)], "memo hit");
        // Same length, one digit changed, behind the memo's back.
        fs.state.lock().unwrap().files.get_mut("out/a").unwrap().synced[0] = b'3';
        assert_eq!(ids(&fs.read("out/a", 0)), [Some(3), Some(2)]);
        // Bytes moved from synced to unsynced: same bytes, same entries.
        {
            let mut s = fs.state.lock().unwrap();
            let f = s.files.get_mut("out/a").unwrap();
            f.unsynced = f.synced.split_off(3);
        }
        assert_eq!(ids(&fs.read("out/a", 0)), [Some(3), Some(2)]);
        // A torn tail: garbage, then a rewrite with the same length again is decoded anew.
        fs.state.lock().unwrap().files.get_mut("out/a").unwrap().unsynced.pop();
        assert_eq!(ids(&fs.read("out/a", 0)), [Some(3), None]);
        fs.state.lock().unwrap().files.get_mut("out/a").unwrap().unsynced.push(b'\n');
        assert_eq!(ids(&fs.read("out/a", 0)), [Some(3), Some(2)]);
        // A file renamed onto the memo's path decodes as itself.
        fs.put("out/.b", line(9, b"z"));
        assert!(matches!(fs.handle(FsRequest::Delete { path: "out/a".into() }), FsResponse::Ok));
        assert!(matches!(fs.handle(FsRequest::Rename { from: "out/.b".into(), to: "out/a".into() }), FsResponse::Ok));
        assert_eq!(ids(&fs.read("out/a", 0)), [Some(9)]);
    }
}
