//! An S3 bucket: objects written whole, multipart uploads, conditional writes, versions,
//! listings, and the faults S3 answers with.
//!
//! S3's rules, one per request, are in [`state`](self) (the bucket's state machine). The
//! bucket is durable: a crash of its node loses nothing, uploads in progress included, as S3
//! loses nothing. What the bucket adds around the rules, each a [`Setting`]:
//!
//! - [`Setting::SlowDown`]: a request is refused `503 SlowDown` (throttled) before it is
//!   applied.
//! - [`Setting::InternalErrors`]: a request is answered `500 InternalError`, and half of those
//!   were applied anyway (S3 does not say which: a retry must find out).
//! - [`Setting::ExpireIncompleteUploadsAfterMs`]: a lifecycle rule aborts an upload that long
//!   after it started, at its deadline, whether or not anyone calls.
//! - [`Setting::MinPartSize`]: the smallest part but the last a completion accepts (5 MiB
//!   on S3; smaller lets a test with little data upload many parts).
//!
//! Slow requests and a request applied whose answer is lost are the gateway's faults, as for
//! every system. Objects under the visible prefix whose key has no component starting with
//! `.` are what a downstream reader lists and gets: its output ([`Bucket::output`]).

mod output;
mod state;
#[cfg(test)]
mod tests;
mod wire;

pub use state::{EPOCH_MS, MAX_KEYS, MAX_PARTS, MIN_PART_SIZE};
pub use wire::{ByteRange, ObjectInfo, ReadConditions, S3Error, S3Request, S3Response, WriteCondition};

use super::{BoxFuture, Caller, ExternalSystem, FileFormat, ModelRequest, Setting, SettingEnv};
use crate::history::{EventKind, FaultKind, History, LeftUpload, Leftovers};
use crate::net::Inbox;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use state::BucketState;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The bucket model on node `name`.
#[derive(Clone)]
pub struct Bucket {
    name: String,
    visible_prefix: String,
    history: History,
    inner: Arc<Mutex<Inner>>,
}

struct Inner {
    state: BucketState,
    faults: Faults,
    /// How the output reader decodes an object; `None`: connsim's line format.
    format: Option<Arc<dyn FileFormat>>,
}

/// The error answers the bucket gives now and then.
struct Faults {
    slow_down: f64,
    internal: f64,
    rng: ChaCha8Rng,
}

impl Bucket {
    /// An empty bucket on node `name`; objects under `visible_prefix` are downstream-visible.
    pub fn new(name: &str, visible_prefix: &str, history: History) -> Self {
        let faults = Faults { slow_down: 0.0, internal: 0.0, rng: ChaCha8Rng::seed_from_u64(0) };
        let inner = Inner { state: BucketState::default(), faults, format: None };
        Self { name: name.into(), visible_prefix: visible_prefix.into(), history, inner: Arc::new(Mutex::new(inner)) }
    }

    /// This bucket, its output reader decoding each visible object by `format`.
    pub fn reading_with(self, format: Arc<dyn FileFormat>) -> Self {
        self.inner.lock().unwrap().format = Some(format);
        self
    }

    /// Writes an object before the run (input for a source).
    pub fn put(&self, key: &str, bytes: Vec<u8>) {
        let req = S3Request::Put { key: key.into(), body: bytes, condition: WriteCondition::None, attributes: vec![] };
        self.inner.lock().unwrap().state.apply(req, 0);
    }

    /// The current bytes at `key`, if an object is there.
    pub fn object(&self, key: &str) -> Option<Vec<u8>> {
        let inner = self.inner.lock().unwrap();
        inner.state.current(key).map(|(_, o)| o.data.to_vec())
    }

    /// The keys of the current objects, in order.
    pub fn keys(&self) -> Vec<String> {
        let inner = self.inner.lock().unwrap();
        inner.state.keys.keys().filter(|k| inner.state.current(k).is_some()).cloned().collect()
    }

    /// The uploads in progress now (after the lifecycle rule ran): upload id and key.
    pub fn incomplete_uploads(&self) -> Vec<(String, String)> {
        let now_ms = crate::net::now().as_millis() as u64;
        let mut inner = self.inner.lock().unwrap();
        let format = inner.format.clone();
        for expired in inner.state.expire(now_ms) {
            self.record_expiry(&expired.0, &expired.1, format.as_ref());
        }
        inner.state.uploads.iter().map(|(id, u)| (id.clone(), u.key.clone())).collect()
    }

    fn is_visible(&self, key: &str) -> bool {
        key.strip_prefix(&self.visible_prefix)
            .is_some_and(|rest| !rest.is_empty() && !rest.split('/').any(|c| c.starts_with('.')))
    }

    fn record_expiry(&self, upload: &str, u: &state::Upload, format: Option<&Arc<dyn FileFormat>>) {
        let key = &u.key;
        let event = EventKind::Fault {
            fault: crate::history::FaultKind::UploadExpired,
            from: self.name.clone(),
            to: key.to_string(),
            kind: format!("s3.lifecycle: {upload}"),
            call: None,
        };
        self.history.record(&self.name, event);
        // What the parts held, as a downstream reader would have decoded the object.
        let bytes: Vec<u8> = u.parts.values().flat_map(|(b, _)| b.iter().copied()).collect();
        let entries = match format {
            None => super::fs::line_entries(key, &bytes),
            Some(f) => {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f.entries(key, &bytes))).unwrap_or_default()
            }
        };
        let records: Vec<_> = entries
            .into_iter()
            .filter_map(|e| match e {
                super::Entry::Record(s) => Some(s.id),
                super::Entry::Garbage(_) => None,
            })
            .collect();
        if !records.is_empty() {
            let event = EventKind::DataDestroyed { key: key.clone(), upload: upload.to_string(), records };
            self.history.record(&self.name, event);
        }
    }

    /// An upload the bucket started (`upload-started`): what a lifecycle rule may expire.
    fn record_upload_start(&self, key: &str, resp: &S3Response, caller: &Caller) {
        if let S3Response::UploadCreated { upload } = resp {
            let event = EventKind::UploadStarted { key: key.to_string(), upload: upload.clone(), by: caller.sender };
            self.history.record(&self.name, event);
        }
    }

    /// Serves one request, or answers it with an error fault.
    fn handle(&self, caller: &Caller, req: S3Request) -> S3Response {
        let now_ms = crate::net::now().as_millis() as u64;
        let kind = req.kind();
        let key = match &req {
            S3Request::Put { key, .. }
            | S3Request::Get { key, .. }
            | S3Request::Delete { key }
            | S3Request::CreateUpload { key, .. }
            | S3Request::UploadPart { key, .. }
            | S3Request::Complete { key, .. }
            | S3Request::Abort { key, .. } => key.clone(),
            S3Request::List { prefix, .. } => prefix.clone(),
            S3Request::Copy { to, .. } => to.clone(),
        };
        let mut inner = self.inner.lock().unwrap();
        let format = inner.format.clone();
        for (upload, u) in inner.state.expire(now_ms) {
            self.record_expiry(&upload, &u, format.as_ref());
        }
        let f = &mut inner.faults;
        let fault = if f.slow_down > 0.0 && f.rng.gen_bool(f.slow_down) {
            Some((FaultKind::SlowDown, false, S3Error::new(503, "SlowDown", "please reduce your request rate")))
        } else if f.internal > 0.0 && f.rng.gen_bool(f.internal) {
            let applied = f.rng.gen_bool(0.5);
            Some((
                FaultKind::InternalError,
                applied,
                S3Error::new(500, "InternalError", "we encountered an internal error"),
            ))
        } else {
            None
        };
        let Some((name, applied, error)) = fault else {
            let resp = inner.state.apply(req, now_ms);
            drop(inner);
            self.record_upload_start(&key, &resp, caller);
            return resp;
        };
        if applied {
            let resp = inner.state.apply(req, now_ms);
            self.record_upload_start(&key, &resp, caller);
        }
        let what = if applied { "applied" } else { "not applied" };
        let event = EventKind::Fault {
            fault: name,
            from: self.name.clone(),
            to: key,
            kind: format!("{kind} from {}: {what}", caller.node),
            call: caller.call,
        };
        self.history.record(&self.name, event);
        S3Response::Error(error)
    }

    /// Serves `inbox` until the node goes down, running the lifecycle rule at its deadlines.
    async fn serve_loop(self, mut inbox: Inbox) {
        loop {
            let due = {
                let inner = self.inner.lock().unwrap();
                let age = inner.state.expire_uploads_after_ms;
                age.and_then(|age| inner.state.uploads.values().map(|u| u.started_ms + age).min())
            };
            let now_ms = crate::net::now().as_millis() as u64;
            let msg = match due {
                Some(at) if at <= now_ms => {
                    let mut inner = self.inner.lock().unwrap();
                    let format = inner.format.clone();
                    for (upload, u) in inner.state.expire(now_ms) {
                        self.record_expiry(&upload, &u, format.as_ref());
                    }
                    drop(inner);
                    inbox.observe_internal("s3.lifecycle");
                    continue;
                }
                Some(at) => tokio::select! {
                    biased;
                    msg = inbox.recv() => msg,
                    _ = madsim::time::sleep(Duration::from_millis(at - now_ms)) => continue,
                },
                None => inbox.recv().await,
            };
            let Some(msg) = msg else { return };
            let caller = Caller::of(&msg);
            let Ok(req) = msg.decode::<S3Request>() else { continue };
            let resp = self.handle(&caller, req);
            if let Some(replier) = msg.replier {
                replier.reply(&resp);
            }
        }
    }
}

fn probability(p: f64, what: &str) -> Result<f64, String> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{what} probability {p} is not between 0.0 and 1.0"))
    }
}

impl ExternalSystem for Bucket {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn serve(&self, inbox: Inbox) -> BoxFuture {
        Box::pin(self.clone().serve_loop(inbox))
    }
    fn configure(&self, setting: &Setting, env: &SettingEnv) -> Result<(), String> {
        let mut inner = self.inner.lock().unwrap();
        match setting {
            Setting::SlowDown(p) => inner.faults.slow_down = probability(*p, "slow-down")?,
            Setting::InternalErrors(p) => inner.faults.internal = probability(*p, "internal-error")?,
            Setting::ExpireIncompleteUploadsAfterMs(age) => inner.state.expire_uploads_after_ms = *age,
            Setting::MinPartSize(0) => return Err("a minimum part size of 0 bytes: use 1 or more".into()),
            Setting::MinPartSize(n) => inner.state.min_part_size = *n,
            other => return Err(format!("the bucket {} has no setting {other:?}", self.name)),
        }
        if matches!(setting, Setting::SlowDown(_) | Setting::InternalErrors(_)) {
            inner.faults.rng = ChaCha8Rng::seed_from_u64(env.seed);
        }
        Ok(())
    }
    /// The uploads in progress (after the lifecycle rule ran); who started each, its
    /// `UploadStarted` says.
    fn leftovers(&self) -> Leftovers {
        let now_ms = crate::net::now().as_millis() as u64;
        let mut inner = self.inner.lock().unwrap();
        let format = inner.format.clone();
        for (upload, u) in inner.state.expire(now_ms) {
            self.record_expiry(&upload, &u, format.as_ref());
        }
        let uploads =
            inner.state.uploads.iter().map(|(id, u)| LeftUpload { key: u.key.clone(), upload: id.clone() }).collect();
        Leftovers { uploads, ..Leftovers::default() }
    }
}
