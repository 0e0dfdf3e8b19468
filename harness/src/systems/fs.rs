//! A file system / object store: files with synced and unsynced bytes, append, sync,
//! atomic rename, list, delete. A crash of its node loses every unsynced byte.
//!
//! Files under the visible prefix whose name does not start with `.` are what a downstream
//! reader sees; they hold records in the harness's line format ([`Record::encode_line`]).

use super::{serve_requests, BoxFuture, ExternalSystem, OutputReader};
use crate::error::ConnectorError;
use crate::history::{EventKind, History};
use crate::net::{Endpoint, Inbox};
use crate::record::{Record, RecordId};
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
    Append { path: String, at: u64, bytes: Vec<u8> },
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
    Data(Vec<u8>),
    /// Refused.
    Error(FsError),
}

#[derive(Default, Clone)]
struct File {
    synced: Vec<u8>,
    unsynced: Vec<u8>,
}

/// The file-system model.
#[derive(Clone)]
pub struct FileSystem {
    name: String,
    visible_prefix: String,
    files: Arc<Mutex<BTreeMap<String, File>>>,
    history: History,
}

impl FileSystem {
    /// An empty file system on node `name`; files under `visible_prefix` are downstream-visible.
    pub fn new(name: &str, visible_prefix: &str, history: History) -> Self {
        Self { name: name.into(), visible_prefix: visible_prefix.into(), files: Arc::default(), history }
    }

    fn is_visible(&self, path: &str) -> bool {
        path.strip_prefix(&self.visible_prefix)
            .is_some_and(|rest| !rest.is_empty() && !rest.split('/').any(|c| c.starts_with('.')))
    }

    fn location(&self) -> String {
        format!("{}:{}", self.name, self.visible_prefix)
    }

    fn handle(&self, req: FsRequest) -> FsResponse {
        let mut files = self.files.lock().unwrap();
        match req {
            FsRequest::Create { path } => {
                files.insert(path, File::default());
                FsResponse::Ok
            }
            FsRequest::Append { path, at, bytes } => match files.get_mut(&path) {
                Some(f) => {
                    let len = (f.synced.len() + f.unsynced.len()) as u64;
                    if len == at {
                        f.unsynced.extend_from_slice(&bytes);
                        FsResponse::Ok
                    } else if len == at + bytes.len() as u64 {
                        FsResponse::Ok // a retry of an append that took effect
                    } else {
                        FsResponse::Error(FsError::WrongOffset { len })
                    }
                }
                None => FsResponse::Error(FsError::NotFound(path)),
            },
            FsRequest::Sync { path, len } => match files.get_mut(&path) {
                Some(f) if (f.synced.len() + f.unsynced.len()) as u64 != len => {
                    FsResponse::Error(FsError::WrongOffset { len: (f.synced.len() + f.unsynced.len()) as u64 })
                }
                Some(f) => {
                    let bytes = std::mem::take(&mut f.unsynced);
                    f.synced.extend_from_slice(&bytes);
                    FsResponse::Ok
                }
                None => FsResponse::Error(FsError::NotFound(path)),
            },
            FsRequest::Rename { from, to } => {
                if files.contains_key(&to) {
                    return FsResponse::Error(FsError::AlreadyExists(to));
                }
                let Some(file) = files.remove(&from) else {
                    return FsResponse::Error(FsError::NotFound(from));
                };
                let became_visible = self.is_visible(&to) && !self.is_visible(&from);
                let content = [file.synced.as_slice(), file.unsynced.as_slice()].concat();
                files.insert(to, file);
                drop(files);
                if became_visible {
                    let ids = Record::decode_ids(&content);
                    self.history.record(
                        &self.name,
                        EventKind::Visible { location: self.location(), ids: ids.unwrap_or_default() },
                    );
                }
                FsResponse::Ok
            }
            FsRequest::List { prefix } => {
                FsResponse::Listing(files.keys().filter(|p| p.starts_with(&prefix)).cloned().collect())
            }
            FsRequest::Delete { path } => match files.remove(&path) {
                Some(_) => FsResponse::Ok,
                None => FsResponse::Error(FsError::NotFound(path)),
            },
            FsRequest::Read { path } => match files.get(&path) {
                Some(f) => FsResponse::Data([f.synced.as_slice(), f.unsynced.as_slice()].concat()),
                None => FsResponse::Error(FsError::NotFound(path)),
            },
        }
    }

    /// The output reader for the visible prefix.
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
        Box::pin(serve_requests(inbox, move |req| fs.handle(req)))
    }
    fn crash(&self) {
        for f in self.files.lock().unwrap().values_mut() {
            f.unsynced.clear();
        }
    }
}

impl OutputReader for FileSystem {
    fn location(&self) -> String {
        FileSystem::location(self)
    }
    fn read_visible(&self) -> (Vec<RecordId>, Vec<String>) {
        let files = self.files.lock().unwrap();
        let mut ids = Vec::new();
        let mut corrupt = Vec::new();
        for (path, f) in files.iter().filter(|(p, _)| self.is_visible(p)) {
            match Record::decode_ids(&[f.synced.as_slice(), f.unsynced.as_slice()].concat()) {
                Ok(file_ids) => ids.extend(file_ids),
                Err(e) => corrupt.push(format!("{path}: {e}")),
            }
        }
        (ids, corrupt)
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

    /// Sends one request; a timeout is a retriable error, a refusal comes back as `Err(FsError)` inside `Ok`.
    pub async fn request(&self, req: FsRequest) -> Result<Result<FsResponse, FsError>, ConnectorError> {
        let kind = match &req {
            FsRequest::Create { .. } => "fs.create",
            FsRequest::Append { .. } => "fs.append",
            FsRequest::Sync { .. } => "fs.sync",
            FsRequest::Rename { .. } => "fs.rename",
            FsRequest::List { .. } => "fs.list",
            FsRequest::Delete { .. } => "fs.delete",
            FsRequest::Read { .. } => "fs.read",
        };
        match self.endpoint.call(&self.fs, kind, &req, self.timeout).await? {
            FsResponse::Error(e) => Ok(Err(e)),
            ok => Ok(Ok(ok)),
        }
    }
}
