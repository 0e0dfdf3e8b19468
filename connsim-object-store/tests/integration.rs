//! object_store's own test suite for stores (`object_store::integration`), every function
//! that applies to S3, run against the simulated bucket through [`SimulatedS3`].
//!
//! Not run: `list_paginated` (it tests `PaginatedListStore`, a trait apart from
//! `ObjectStore` that this store does not implement) and `response_extensions` (it needs
//! object_store's HTTP connector, which a store without HTTP does not have), and `stream_get`
//! (it writes through object_store's `WriteMultipart`, which spawns each part's upload on a
//! tokio runtime of its own: inside the simulation no such runtime runs, and it panics
//! "there is no reactor running". A connector uploads parts with `MultipartUpload::put_part`
//! or `MultipartStore`, awaiting them itself).

mod common;

use common::sim;
use object_store::integration;

#[test]
fn put_get_delete_list() {
    sim(|_, s, _| async move { integration::put_get_delete_list(&s).await });
}

#[test]
fn put_get_attributes() {
    sim(|_, s, _| async move { integration::put_get_attributes(&s).await });
}

#[test]
fn get_opts() {
    sim(|_, s, _| async move { integration::get_opts(&s).await });
}

#[test]
fn put_opts() {
    sim(|_, s, _| async move { integration::put_opts(&s, true).await });
}

#[test]
fn list_uses_directories_correctly() {
    sim(|_, s, _| async move { integration::list_uses_directories_correctly(&s).await });
}

#[test]
fn list_with_delimiter() {
    sim(|_, s, _| async move { integration::list_with_delimiter(&s).await });
}

#[test]
fn get_nonexistent_object() {
    sim(|_, s, _| async move {
        let err = integration::get_nonexistent_object(&s, None).await.unwrap_err();
        assert!(matches!(err, object_store::Error::NotFound { .. }), "{err}");
    });
}

#[test]
fn rename_and_copy() {
    sim(|_, s, _| async move { integration::rename_and_copy(&s).await });
}

#[test]
fn copy_if_not_exists() {
    sim(|_, s, _| async move { integration::copy_if_not_exists(&s).await });
}

#[test]
fn copy_rename_nonexistent_object() {
    sim(|_, s, _| async move { integration::copy_rename_nonexistent_object(&s).await });
}

#[test]
fn multipart() {
    sim(|_, s, _| async move { integration::multipart(&s, &s).await });
}

#[test]
fn multipart_with_opts() {
    sim(|_, s, _| async move { integration::multipart_with_opts(&s, &s).await });
}

#[test]
fn multipart_put_part_out_of_order() {
    sim(|_, s, _| async move { integration::multipart_put_part_out_of_order(&s, &s).await });
}

/// S3: the upload completed last wins.
#[test]
fn multipart_race_condition() {
    sim(|_, s, _| async move { integration::multipart_race_condition(&s, true).await });
}

#[test]
fn multipart_out_of_order() {
    sim(|_, s, _| async move { integration::multipart_out_of_order(&s).await });
}

#[test]
fn list_with_offset_exclusivity() {
    sim(|_, s, _| async move { integration::list_with_offset_exclusivity(&s).await });
}
