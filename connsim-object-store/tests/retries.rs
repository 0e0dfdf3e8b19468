//! The store retries as object_store's S3 client does (`client/retry.rs`) and reports S3's
//! answers as its S3 client does; each test names the rule it checks.

mod common;

use common::sim;
use connsim::net::FaultRule;
use connsim::systems::{ExternalSystem, Setting, SettingEnv};
use connsim_object_store::{RetryConfig, S3RequestError, SimulatedS3};
use object_store::multipart::MultipartStore;
use object_store::path::Path;
use object_store::{Error, ObjectStore, ObjectStoreExt, PutMode};

fn env() -> SettingEnv {
    SettingEnv { seed: 3, history: connsim::history::History::new() }
}

fn status(e: &Error) -> Option<u16> {
    let source = match e {
        Error::Generic { source, .. } | Error::NotFound { source, .. } | Error::Precondition { source, .. } => source,
        Error::AlreadyExists { source, .. } => source,
        _ => return None,
    };
    source.downcast_ref::<S3RequestError>().and_then(S3RequestError::status)
}

/// Rule: a timeout is retried for a request marked idempotent; an unconditional put is.
#[test]
fn a_lost_answer_to_an_unconditional_put_is_retried() {
    sim(|bucket, s, gw| async move {
        gw.add_rule(FaultRule::lose_response(1.0).kind("s3.put").window(0, 50));
        s.put(&Path::from("out/a"), "x".into()).await.unwrap();
        assert_eq!(bucket.object("out/a").unwrap(), b"x");
    });
}

/// Rule: a conditional put is not idempotent, so its timeout is not retried: the caller gets
/// a generic error though the object was written, and its own retry finds it there.
#[test]
fn a_lost_answer_to_a_conditional_put_is_returned_though_the_put_was_applied() {
    sim(|bucket, s, gw| async move {
        gw.add_rule(FaultRule::lose_response(1.0).kind("s3.put").window(0, 50));
        let path = Path::from("out/a");
        let err = s.put_opts(&path, "x".into(), PutMode::Create.into()).await.unwrap_err();
        assert!(matches!(err, Error::Generic { .. }), "{err}");
        assert_eq!(status(&err), None, "no answer came");
        assert_eq!(bucket.object("out/a").unwrap(), b"x", "applied all the same");
        let again = s.put_opts(&path, "x".into(), PutMode::Create.into()).await.unwrap_err();
        assert!(matches!(again, Error::AlreadyExists { .. }), "{again}");
    });
}

/// Rule: object_store sends an overwriting copy as idempotent (its timeout is retried) and a
/// copy-if-not-exists without the flag (its timeout is returned, though the copy was applied,
/// and the caller's own retry then finds it there).
#[test]
fn a_lost_answer_to_a_copy_is_retried_only_for_an_overwriting_copy() {
    sim(|bucket, s, gw| async move {
        s.put(&Path::from("out/src"), "x".into()).await.unwrap();
        // The first answers of each are lost (the window ends before the overwriting copy's
        // retries do).
        let lost = gw.add_rule(FaultRule::lose_response(1.0).kind("s3.copy").window(0, 150));
        s.copy(&Path::from("out/src"), &Path::from("out/a")).await.unwrap();
        assert_eq!(bucket.object("out/a").unwrap(), b"x");
        gw.remove_rule(lost);
        let lost = gw.add_rule(FaultRule::lose_response(1.0).kind("s3.copy"));
        let (from, to) = (Path::from("out/src"), Path::from("out/b"));
        let sent = madsim::time::Instant::now();
        let err = s.copy_if_not_exists(&from, &to).await.unwrap_err();
        assert!(matches!(err, Error::Generic { .. }), "{err}");
        assert_eq!(status(&err), None, "no answer came");
        let waited = sent.elapsed();
        assert!(waited < RetryConfig::default().request_timeout * 2, "returned, not retried: {waited:?}");
        assert_eq!(bucket.object("out/b").unwrap(), b"x", "applied all the same");
        gw.remove_rule(lost);
        let again = s.copy_if_not_exists(&from, &to).await.unwrap_err();
        assert!(matches!(again, Error::AlreadyExists { .. }), "{again}");
    });
}

/// Rule: a slow request outlives its caller's timeout: a conditional put delayed past
/// `request_timeout` returns its timeout (not retried) and is applied when it arrives, with
/// the time it arrived as its `Last-Modified`; one delayed less is answered.
#[test]
fn a_slow_request_is_applied_when_it_arrives_after_its_timeout() {
    sim(|bucket, s, gw| async move {
        s.put(&Path::from("out/before"), "r".into()).await.unwrap();
        let before = s.head(&Path::from("out/before")).await.unwrap().last_modified;
        let slow = gw.add_rule(FaultRule::delay(300).kind("s3.put"));
        let path = Path::from("out/slow");
        let sent = madsim::time::Instant::now();
        let err = s.put_opts(&path, "x".into(), PutMode::Create.into()).await.unwrap_err();
        assert!(matches!(err, Error::Generic { .. }), "{err}");
        assert!(sent.elapsed() < RetryConfig::default().request_timeout * 2, "returned at its timeout");
        assert!(bucket.object("out/slow").is_none(), "not there yet");
        madsim::time::sleep(std::time::Duration::from_millis(400)).await;
        assert_eq!(bucket.object("out/slow").unwrap(), b"x", "applied when it arrived");
        let modified = s.head(&path).await.unwrap().last_modified;
        assert!(modified - before >= chrono::TimeDelta::milliseconds(300), "{before} then {modified}");
        gw.remove_rule(slow);
        gw.add_rule(FaultRule::delay(30).kind("s3.put")); // each way: answered within the timeout
        s.put_opts(&Path::from("out/quick"), "y".into(), PutMode::Create.into()).await.unwrap();
    });
}

/// Rule: S3 has no rename; object_store's `rename` is a copy, then a delete of the source, not
/// atomic: when the delete is slower than its timeout, `rename` fails though the copy was
/// made, and both keys hold the object until the delete lands.
#[test]
fn a_rename_is_a_copy_and_a_delete_and_can_fail_between_them() {
    sim(|bucket, s, gw| async move {
        s.put(&Path::from("out/a"), "x".into()).await.unwrap();
        let slow = gw.add_rule(FaultRule::delay(300).kind("s3.delete"));
        let err = s.rename(&Path::from("out/a"), &Path::from("out/b")).await.unwrap_err();
        assert!(matches!(err, Error::Generic { .. }), "{err}");
        assert_eq!(bucket.object("out/b").unwrap(), b"x", "the copy was made");
        assert_eq!(bucket.object("out/a").unwrap(), b"x", "the source is still there");
        gw.remove_rule(slow);
        madsim::time::sleep(std::time::Duration::from_millis(400)).await;
        assert!(bucket.object("out/a").is_none(), "the delete landed late");
    });
}

/// Rule: `503` is retried whatever the request, until `max_retries`; then its status is the
/// error's.
#[test]
fn slow_down_is_retried_and_reported_once_retries_run_out() {
    sim(|bucket, s, _| async move {
        bucket.configure(&Setting::SlowDown(0.5), &env()).unwrap();
        for i in 0..20 {
            s.put_opts(&Path::from(format!("out/{i}")), "x".into(), PutMode::Create.into()).await.unwrap();
        }
        bucket.configure(&Setting::SlowDown(1.0), &env()).unwrap();
        let once = s.clone().with_retry(RetryConfig { max_retries: 0, ..RetryConfig::default() });
        let err = once.put(&Path::from("out/b"), "x".into()).await.unwrap_err();
        assert!(matches!(err, Error::Generic { .. }), "{err}");
        assert_eq!(status(&err), Some(503));
        assert!(bucket.object("out/b").is_none(), "a throttled put is not applied");
    });
}

/// Rule: `500` is retried whatever the request, so a conditional put whose first attempt was
/// applied fails its own retry with "already exists".
#[test]
fn a_retried_create_after_an_applied_internal_error_finds_itself() {
    sim(|bucket, s, _| async move {
        bucket.configure(&Setting::InternalErrors(0.3), &env()).unwrap();
        let mut found_itself = 0;
        for i in 0..40 {
            let path = Path::from(format!("out/{i}"));
            match s.put_opts(&path, "mine".into(), PutMode::Create.into()).await {
                Ok(_) => {}
                Err(Error::AlreadyExists { .. }) => {
                    assert_eq!(bucket.object(path.as_ref()).unwrap(), b"mine");
                    found_itself += 1;
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert!(found_itself > 0, "no create was applied before its 500 and retried");
    });
}

/// Rule: a completion is idempotent to the retry rules; retried after its answer was lost, it
/// finds the upload gone (`404`, not found) though the object is there.
#[test]
fn a_retried_completion_finds_its_upload_gone() {
    sim(|bucket, s, gw| async move {
        let path = Path::from("out/m");
        let id = s.create_multipart(&path).await.unwrap();
        let part = s.put_part(&path, &id, 0, "whole".into()).await.unwrap();
        gw.add_rule(FaultRule::lose_response(1.0).kind("s3.complete").window(0, 150));
        let err = s.complete_multipart(&path, &id, vec![part]).await.unwrap_err();
        assert!(matches!(err, Error::NotFound { .. }), "{err}");
        assert_eq!(bucket.object("out/m").unwrap(), b"whole");
    });
}

/// Rule: a delete is not marked idempotent: its timeout is returned, not retried.
#[test]
fn a_lost_answer_to_a_delete_is_returned() {
    sim(|bucket, s, gw| async move {
        s.put(&Path::from("out/a"), "x".into()).await.unwrap();
        gw.add_rule(FaultRule::lose_response(1.0).kind("s3.delete"));
        let err = s.delete(&Path::from("out/a")).await.unwrap_err();
        assert!(matches!(err, Error::Generic { .. }), "{err}");
        assert!(bucket.object("out/a").is_none(), "applied all the same");
    });
}

/// A store called from a task of the connector's own (no connsim node runs it) says where
/// to call it from.
#[test]
fn a_store_called_outside_connector_code_says_where_to_call_it() {
    sim(|_, _, _| async move {
        let s = SimulatedS3::new("s3");
        let err = madsim::task::spawn(async move { s.head(&Path::from("out/a")).await.unwrap_err() }).await.unwrap();
        assert!(err.to_string().contains("call the store from connector code"), "{err}");
    });
}
