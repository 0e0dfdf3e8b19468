//! `ObjectStore` on the simulated bucket, request by request as object_store's S3 client
//! (`AmazonS3`) sends them, with conditional puts (`If-None-Match`, `If-Match`) and
//! `copy_if_not_exists` by `If-None-Match` on the copy enabled.

use crate::config::RetryConfig;
use crate::convert::{attributes_from_wire, attributes_to_wire, bytes, list_prefix, meta, read_options};
use crate::upload::SimulatedUpload;
use crate::wire::{endpoint, Failure, Wire, STORE};
use async_trait::async_trait;
use bytes::Bytes;
use connsim::net::Endpoint;
use connsim::systems::{S3Request, S3Response, WriteCondition, MAX_KEYS};
use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};
use object_store::path::Path;
use object_store::{
    CopyMode, CopyOptions, Error, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, PutMode, PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};

/// An `object_store::ObjectStore` (and `MultipartStore`) on connsim's S3 bucket model on
/// node `bucket` ([`connsim::systems::Bucket`]). Every request goes through connsim's
/// gateway from the connector code that makes it, so RPC faults, crashes and partitions
/// apply; call it from connector code.
#[derive(Clone, Debug)]
pub struct SimulatedS3 {
    pub(crate) wire: Wire,
}

impl SimulatedS3 {
    /// The store of the bucket on node `bucket`, retrying as object_store does by default
    /// (scaled to the simulated network: [`RetryConfig::default`]).
    pub fn new(bucket: &str) -> Self {
        Self { wire: Wire { node: bucket.to_string(), retry: RetryConfig::default() } }
    }

    /// The same store with other retries (object_store's `with_retry`).
    pub fn with_retry(mut self, retry: RetryConfig) -> Self {
        self.wire.retry = retry;
        self
    }

    /// Sends one request from the connector code running now.
    pub(crate) async fn call(&self, req: &S3Request, idempotent: bool) -> Result<S3Response, Failure> {
        let endpoint = endpoint()?;
        self.wire.call(&endpoint, req, idempotent).await
    }
}

impl std::fmt::Display for SimulatedS3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SimulatedS3({})", self.wire.node)
    }
}

/// An answer the request cannot have: the bucket and the store disagree.
pub(crate) fn unexpected(what: &str, resp: S3Response) -> Error {
    Error::Generic { store: STORE, source: format!("unexpected answer to {what}: {resp:?}").into() }
}

pub(crate) fn written(what: &str, resp: S3Response) -> Result<PutResult> {
    match resp {
        S3Response::Written { etag, version } => {
            Ok(PutResult { e_tag: Some(etag), version: Some(version), extensions: Default::default() })
        }
        other => Err(unexpected(what, other)),
    }
}

/// One page of a listing after `after`.
async fn page(
    wire: &Wire,
    endpoint: &Endpoint,
    prefix: &str,
    delimiter: bool,
    after: Option<String>,
) -> Result<(Vec<ObjectMeta>, Vec<String>, bool)> {
    let req = S3Request::List { prefix: prefix.to_string(), delimiter, start_after: after, max_keys: MAX_KEYS };
    match wire.call(endpoint, &req, true).await.map_err(|e| e.into_error(prefix))? {
        S3Response::Listing { objects, prefixes, truncated } => {
            Ok((objects.iter().map(meta).collect(), prefixes, truncated))
        }
        other => Err(unexpected("a listing", other)),
    }
}

impl SimulatedS3 {
    /// Every object under `prefix` after `offset`, page by page.
    fn list_after(&self, prefix: Option<&Path>, offset: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        let wire = self.wire.clone();
        let prefix = list_prefix(prefix);
        let Ok(endpoint) = endpoint() else {
            return stream::once(async { Err(Failure::NoNode.into_error("")) }).boxed();
        };
        let start = offset.map(|o| o.as_ref().to_string());
        // (where the next page starts, whether one is left)
        let pages = stream::try_unfold((start, true), move |(after, more)| {
            let (wire, endpoint, prefix) = (wire.clone(), endpoint.clone(), prefix.clone());
            async move {
                if !more {
                    return Ok::<_, Error>(None);
                }
                let (objects, _, truncated) = page(&wire, &endpoint, &prefix, false, after).await?;
                let next = objects.last().map(|o| o.location.as_ref().to_string());
                Ok(Some((stream::iter(objects.into_iter().map(Ok)), (next, truncated))))
            }
        });
        pages.try_flatten().boxed()
    }
}

#[async_trait]
impl ObjectStore for SimulatedS3 {
    async fn put_opts(&self, location: &Path, payload: PutPayload, opts: PutOptions) -> Result<PutResult> {
        let key = location.as_ref();
        let attributes = attributes_to_wire(&opts.attributes);
        let body = bytes(payload);
        let (condition, idempotent) = match opts.mode {
            PutMode::Overwrite => (WriteCondition::None, true),
            PutMode::Create => (WriteCondition::IfNoneMatch, false),
            PutMode::Update(v) => {
                let Some(etag) = v.e_tag else {
                    return Err(Error::Generic { store: STORE, source: "ETag required for conditional put".into() });
                };
                (WriteCondition::IfMatch(etag), false)
            }
        };
        let create = condition == WriteCondition::IfNoneMatch;
        let req = S3Request::Put { key: key.to_string(), body, condition, attributes };
        match self.call(&req, idempotent).await {
            Ok(resp) => written("a put", resp),
            // S3 answers `412` to `If-None-Match: *` over an object: object_store calls that
            // "already exists"; `404` to `If-Match` where nothing is: object_store calls that
            // a failed precondition.
            Err(e) if create && matches!(e.status(), Some(412 | 304)) => {
                Err(Error::AlreadyExists { path: key.to_string(), source: Box::new(e.into_error(key)) })
            }
            Err(e) if !create && e.status() == Some(404) => {
                Err(Error::Precondition { path: key.to_string(), source: Box::new(e.into_error(key)) })
            }
            Err(e) => Err(e.into_error(key)),
        }
    }

    async fn put_multipart_opts(&self, location: &Path, opts: PutMultipartOptions) -> Result<Box<dyn MultipartUpload>> {
        let upload = self.create_upload(location, &opts).await?;
        let endpoint = endpoint().map_err(|e| e.into_error(location.as_ref()))?;
        Ok(Box::new(SimulatedUpload::new(self.wire.clone(), endpoint, location.as_ref(), upload)))
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let key = location.as_ref();
        let (conditions, range) = read_options(&options);
        let head = options.head;
        let req = S3Request::Get { key: key.to_string(), range, conditions, version: options.version.clone(), head };
        match self.call(&req, true).await.map_err(|e| e.into_error(key))? {
            S3Response::Object { info, start, body } => {
                let end = if head { info.size } else { start + body.len() as u64 };
                let attributes = attributes_from_wire(&info.attributes);
                let payload = stream::once(async move { Ok(Bytes::from(body)) }).boxed();
                Ok(GetResult {
                    payload: GetResultPayload::Stream(payload),
                    meta: meta(&info),
                    range: if head { 0..info.size } else { start..end },
                    attributes,
                    extensions: Default::default(),
                })
            }
            other => Err(unexpected("a get", other)),
        }
    }

    fn delete_stream(&self, locations: BoxStream<'static, Result<Path>>) -> BoxStream<'static, Result<Path>> {
        let store = self.clone();
        // One `DeleteObject` per path, as object_store's S3 client sends without bulk
        // delete; a delete is not idempotent to its retry rules (a timeout is returned).
        locations
            .and_then(move |path| {
                let store = store.clone();
                async move {
                    let req = S3Request::Delete { key: path.as_ref().to_string() };
                    match store.call(&req, false).await.map_err(|e| e.into_error(path.as_ref()))? {
                        S3Response::Done => Ok(path),
                        other => Err(unexpected("a delete", other)),
                    }
                }
            })
            .boxed()
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.list_after(prefix, None)
    }

    fn list_with_offset(&self, prefix: Option<&Path>, offset: &Path) -> BoxStream<'static, Result<ObjectMeta>> {
        self.list_after(prefix, Some(offset))
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        let prefix = list_prefix(prefix);
        let endpoint = endpoint().map_err(|e| e.into_error(&prefix))?;
        let (mut objects, mut common_prefixes) = (Vec::new(), Vec::new());
        let mut after = None;
        loop {
            let (page_objects, prefixes, truncated) = page(&self.wire, &endpoint, &prefix, true, after).await?;
            after = match (page_objects.last(), prefixes.last()) {
                (Some(o), Some(p)) => Some(o.location.as_ref().to_string().max(p.clone())),
                (Some(o), None) => Some(o.location.as_ref().to_string()),
                (None, p) => p.cloned(),
            };
            objects.extend(page_objects);
            common_prefixes.extend(prefixes.iter().map(|p| crate::convert::path(p.trim_end_matches('/'))));
            if !truncated {
                break;
            }
        }
        Ok(ListResult { common_prefixes, objects, extensions: Default::default() })
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        let create = matches!(options.mode, CopyMode::Create);
        let condition = if create { WriteCondition::IfNoneMatch } else { WriteCondition::None };
        let req = S3Request::Copy { from: from.as_ref().to_string(), to: to.as_ref().to_string(), condition };
        // object_store sends an overwriting copy as idempotent and a copy-if-not-exists
        // without the flag (`aws/mod.rs`, `copy_opts`): a timeout of the latter is returned.
        match self.call(&req, !create).await {
            Ok(S3Response::Written { .. }) => Ok(()),
            Ok(other) => Err(unexpected("a copy", other)),
            Err(e) if create && e.status() == Some(412) => {
                Err(Error::AlreadyExists { path: to.to_string(), source: Box::new(e.into_error(to.as_ref())) })
            }
            Err(e) => Err(e.into_error(from.as_ref())),
        }
    }
}
