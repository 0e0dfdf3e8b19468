//! Multipart uploads: `MultipartUpload` (what `put_multipart` returns) and `MultipartStore`
//! (upload ids and parts in the caller's hands, as a recoverable writer needs them).
//!
//! As object_store's S3 client: parts are numbered from 1 in the order `put_part` is called,
//! may be uploaded concurrently and finish in any order; completing an upload with no part
//! first uploads an empty one; every multipart request is idempotent to the retry rules (a
//! completion retried after its answer was lost finds the upload gone: `404`, not found).

use crate::convert::{attributes_to_wire, bytes};
use crate::store::{unexpected, written, SimulatedS3};
use crate::wire::{endpoint, Wire, STORE};
use async_trait::async_trait;
use connsim::net::Endpoint;
use connsim::systems::{S3Request, S3Response, WriteCondition};
use futures::FutureExt;
use object_store::multipart::{MultipartStore, PartId};
use object_store::path::Path;
use object_store::{
    Error, MultipartId, MultipartUpload, PutMultipartOptions, PutPayload, PutResult, Result, UploadPart,
};
use std::sync::{Arc, Mutex};

/// Uploads part `idx` (numbered `idx + 1`); its ETag.
async fn put_part(
    wire: &Wire,
    endpoint: &Endpoint,
    key: &str,
    upload: &str,
    idx: usize,
    body: Vec<u8>,
) -> Result<String> {
    let part = u32::try_from(idx + 1).unwrap_or(u32::MAX);
    let req = S3Request::UploadPart { key: key.to_string(), upload: upload.to_string(), part, body };
    match wire.call(endpoint, &req, true).await.map_err(|e| e.into_error(key))? {
        S3Response::PartUploaded { etag } => Ok(etag),
        other => Err(unexpected("a part upload", other)),
    }
}

/// Completes `upload` from the parts' ETags, in part order.
async fn complete(
    wire: &Wire,
    endpoint: &Endpoint,
    key: &str,
    upload: &str,
    mut parts: Vec<String>,
) -> Result<PutResult> {
    if parts.is_empty() {
        parts.push(put_part(wire, endpoint, key, upload, 0, Vec::new()).await?);
    }
    let req = S3Request::Complete {
        key: key.to_string(),
        upload: upload.to_string(),
        parts,
        condition: WriteCondition::None,
    };
    written("a completion", wire.call(endpoint, &req, true).await.map_err(|e| e.into_error(key))?)
}

async fn abort(wire: &Wire, endpoint: &Endpoint, key: &str, upload: &str) -> Result<()> {
    let req = S3Request::Abort { key: key.to_string(), upload: upload.to_string() };
    match wire.call(endpoint, &req, true).await.map_err(|e| e.into_error(key))? {
        S3Response::Done => Ok(()),
        other => Err(unexpected("an abort", other)),
    }
}

impl SimulatedS3 {
    /// `CreateMultipartUpload`: a new upload id.
    pub(crate) async fn create_upload(&self, location: &Path, opts: &PutMultipartOptions) -> Result<String> {
        let key = location.as_ref();
        let req = S3Request::CreateUpload { key: key.to_string(), attributes: attributes_to_wire(&opts.attributes) };
        match self.call(&req, true).await.map_err(|e| e.into_error(key))? {
            S3Response::UploadCreated { upload } => Ok(upload),
            other => Err(unexpected("an upload's creation", other)),
        }
    }
}

/// An upload in progress, as `put_multipart` returns it.
pub struct SimulatedUpload {
    wire: Wire,
    endpoint: Endpoint,
    key: String,
    upload: String,
    /// Each part's ETag once it is uploaded, by part index.
    parts: Arc<Mutex<Vec<Option<String>>>>,
}

impl std::fmt::Debug for SimulatedUpload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimulatedUpload").field("key", &self.key).field("upload", &self.upload).finish()
    }
}

impl SimulatedUpload {
    pub(crate) fn new(wire: Wire, endpoint: Endpoint, key: &str, upload: String) -> Self {
        Self { wire, endpoint, key: key.to_string(), upload, parts: Arc::default() }
    }
}

#[async_trait]
impl MultipartUpload for SimulatedUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        let idx = {
            let mut parts = self.parts.lock().unwrap();
            parts.push(None);
            parts.len() - 1
        };
        let (wire, endpoint, key, upload) =
            (self.wire.clone(), self.endpoint.clone(), self.key.clone(), self.upload.clone());
        let parts = self.parts.clone();
        async move {
            let etag = put_part(&wire, &endpoint, &key, &upload, idx, bytes(data)).await?;
            parts.lock().unwrap()[idx] = Some(etag);
            Ok(())
        }
        .boxed()
    }

    async fn complete(&mut self) -> Result<PutResult> {
        let parts: Option<Vec<String>> = self.parts.lock().unwrap().iter().cloned().collect();
        let Some(parts) = parts else {
            let why = "a part was not uploaded: await every put_part before completing";
            return Err(Error::Generic { store: STORE, source: why.into() });
        };
        complete(&self.wire, &self.endpoint, &self.key, &self.upload, parts).await
    }

    async fn abort(&mut self) -> Result<()> {
        abort(&self.wire, &self.endpoint, &self.key, &self.upload).await
    }
}

#[async_trait]
impl MultipartStore for SimulatedS3 {
    async fn create_multipart(&self, path: &Path) -> Result<MultipartId> {
        self.create_upload(path, &PutMultipartOptions::default()).await
    }

    async fn create_multipart_opts(&self, path: &Path, opts: PutMultipartOptions) -> Result<MultipartId> {
        self.create_upload(path, &opts).await
    }

    async fn put_part(&self, path: &Path, id: &MultipartId, part_idx: usize, data: PutPayload) -> Result<PartId> {
        let endpoint = endpoint().map_err(|e| e.into_error(path.as_ref()))?;
        let content_id = put_part(&self.wire, &endpoint, path.as_ref(), id, part_idx, bytes(data)).await?;
        Ok(PartId { content_id })
    }

    async fn complete_multipart(&self, path: &Path, id: &MultipartId, parts: Vec<PartId>) -> Result<PutResult> {
        let endpoint = endpoint().map_err(|e| e.into_error(path.as_ref()))?;
        let parts = parts.into_iter().map(|p| p.content_id).collect();
        complete(&self.wire, &endpoint, path.as_ref(), id, parts).await
    }

    async fn abort_multipart(&self, path: &Path, id: &MultipartId) -> Result<()> {
        let endpoint = endpoint().map_err(|e| e.into_error(path.as_ref()))?;
        abort(&self.wire, &endpoint, path.as_ref(), id).await
    }
}
