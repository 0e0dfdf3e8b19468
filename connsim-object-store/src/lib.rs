//! object_store's `ObjectStore` and `MultipartStore` on connsim's simulated S3 bucket.
//!
//! A connector that writes to object storage through the `object_store` crate takes an
//! `Arc<dyn ObjectStore>`: in production an `AmazonS3`, under connsim a [`SimulatedS3`] on a
//! [`connsim::systems::Bucket`] node. The connector's code is the same.
//!
//! ```no_run
//! use connsim_object_store::SimulatedS3;
//! use object_store::{ObjectStore, ObjectStoreExt, path::Path};
//! use std::sync::Arc;
//!
//! # async fn run() -> object_store::Result<()> {
//! // In connector code (a writer, a committer): requests go from the node running it.
//! let store: Arc<dyn ObjectStore> = Arc::new(SimulatedS3::new("bucket"));
//! store.put(&Path::from("out/part-0"), "a line\n".into()).await?;
//! # Ok(())
//! # }
//! ```
//!
//! Every request goes through connsim's gateway to the bucket's node, so RPC faults, crashes
//! and partitions apply, and the bucket answers with S3's semantics (atomic puts, multipart
//! uploads invisible until completed, conditional writes, versions, no rename, `503
//! SlowDown` and `500 InternalError` when a scenario turns them on). The store retries as
//! object_store's S3 client does ([`RetryConfig`]), and turns S3's answers into the same
//! `object_store::Error`s. object_store's own test suite for stores
//! (`object_store::integration`) runs against it in this crate's tests.
//!
//! Create it, and call it, from connector code: that is how it finds the node it runs on.
#![deny(missing_docs)]

#[cfg(not(madsim))]
compile_error!(
    "connsim-object-store only runs inside connsim's simulation: build with `--cfg madsim` (the \
     workspace's .cargo/config.toml sets it in rustflags; a RUSTFLAGS variable overrides that \
     file, so include `--cfg madsim` in it). A connector's production build depends on \
     `object_store` alone."
);

#[cfg(madsim)]
mod config;
#[cfg(madsim)]
mod convert;
#[cfg(madsim)]
mod store;
#[cfg(madsim)]
mod upload;
#[cfg(madsim)]
mod wire;

#[cfg(madsim)]
pub use config::{BackoffConfig, RetryConfig};
#[cfg(madsim)]
pub use store::SimulatedS3;
#[cfg(madsim)]
pub use upload::SimulatedUpload;
#[cfg(madsim)]
pub use wire::S3RequestError;
