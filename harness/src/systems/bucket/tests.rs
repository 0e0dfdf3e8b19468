//! One test per S3 rule the bucket follows; each fails when its rule breaks.

use super::state::BucketState;
use super::wire::{ByteRange, ReadConditions, S3Request, S3Response, WriteCondition};
use super::{Bucket, Caller, ExternalSystem, Setting, SettingEnv};
use crate::history::History;

fn put(s: &mut BucketState, key: &str, body: &[u8], condition: WriteCondition) -> S3Response {
    s.apply(S3Request::Put { key: key.into(), body: body.to_vec(), condition, attributes: vec![] }, 1)
}

fn get_req(key: &str) -> S3Request {
    S3Request::Get { key: key.into(), range: None, conditions: ReadConditions::default(), version: None, head: false }
}

fn body(r: S3Response) -> Vec<u8> {
    match r {
        S3Response::Object { body, .. } => body,
        other => panic!("not an object: {other:?}"),
    }
}

fn status(r: S3Response) -> (u16, String) {
    match r {
        S3Response::Error(e) => (e.status, e.code),
        other => panic!("not an error: {other:?}"),
    }
}

fn etag(r: S3Response) -> String {
    match r {
        S3Response::Written { etag, .. } => etag,
        S3Response::PartUploaded { etag } => etag,
        other => panic!("nothing written: {other:?}"),
    }
}

fn upload(s: &mut BucketState, key: &str) -> String {
    upload_at(s, key, 1)
}

fn upload_at(s: &mut BucketState, key: &str, now_ms: u64) -> String {
    match s.apply(S3Request::CreateUpload { key: key.into(), attributes: vec![] }, now_ms) {
        S3Response::UploadCreated { upload } => upload,
        other => panic!("{other:?}"),
    }
}

fn part(s: &mut BucketState, key: &str, id: &str, n: u32, bytes: &[u8]) -> String {
    etag(s.apply(S3Request::UploadPart { key: key.into(), upload: id.into(), part: n, body: bytes.to_vec() }, 1))
}

fn complete(s: &mut BucketState, key: &str, id: &str, parts: Vec<String>, condition: WriteCondition) -> S3Response {
    s.apply(S3Request::Complete { key: key.into(), upload: id.into(), parts, condition }, 2)
}

/// PutObject replaces the object whole; the ETag follows the bytes.
#[test]
fn a_put_replaces_the_whole_object_and_its_etag_follows_the_bytes() {
    let mut s = BucketState::default();
    let a = etag(put(&mut s, "k", b"one", WriteCondition::None));
    let b = etag(put(&mut s, "k", b"two", WriteCondition::None));
    assert_eq!(body(s.apply(get_req("k"), 2)), b"two");
    assert_ne!(a, b);
    assert_eq!(etag(put(&mut s, "k", b"one", WriteCondition::None)), a, "same bytes, same ETag");
}

/// The bucket is versioned: an older version stays readable by its id, a delete hides the
/// key, and deleting a missing key is no error.
#[test]
fn versions_stay_readable_and_a_delete_leaves_a_marker() {
    let mut s = BucketState::default();
    let S3Response::Written { version: v1, .. } = put(&mut s, "k", b"one", WriteCondition::None) else { panic!() };
    put(&mut s, "k", b"two", WriteCondition::None);
    let old = S3Request::Get {
        key: "k".into(),
        range: None,
        conditions: ReadConditions::default(),
        version: Some(v1.clone()),
        head: false,
    };
    assert_eq!(body(s.apply(old.clone(), 2)), b"one");
    assert!(matches!(s.apply(S3Request::Delete { key: "k".into() }, 3), S3Response::Done));
    assert_eq!(status(s.apply(get_req("k"), 3)), (404, "NoSuchKey".into()));
    assert_eq!(body(s.apply(old, 3)), b"one", "a delete keeps older versions");
    assert!(matches!(s.apply(S3Request::Delete { key: "missing".into() }, 3), S3Response::Done));
}

/// An upload's parts are invisible until it completes; completion makes the object at once
/// and ends the upload, so completing it again is `404 NoSuchUpload`.
#[test]
fn an_upload_is_invisible_until_completed_and_completes_once() {
    let mut s = BucketState::default();
    s.min_part_size = 2;
    let id = upload(&mut s, "k");
    let p1 = part(&mut s, "k", &id, 1, b"ab");
    let p2 = part(&mut s, "k", &id, 2, b"c");
    assert_eq!(status(s.apply(get_req("k"), 1)), (404, "NoSuchKey".into()), "parts are invisible");
    let parts = vec![p1.clone(), p2.clone()];
    let done = etag(complete(&mut s, "k", &id, parts.clone(), WriteCondition::None));
    assert!(done.ends_with("-2\""), "a multipart ETag counts its parts: {done}");
    assert_eq!(body(s.apply(get_req("k"), 2)), b"abc");
    assert_eq!(status(complete(&mut s, "k", &id, parts, WriteCondition::None)), (404, "NoSuchUpload".into()));
    let again = S3Request::UploadPart { key: "k".into(), upload: id.clone(), part: 3, body: vec![1] };
    assert_eq!(status(s.apply(again, 3)), (404, "NoSuchUpload".into()));
    assert!(s.uploads.is_empty());
}

/// A completion names every part by its ETag, in order; parts but the last hold the minimum
/// size; part numbers run from 1 to 10,000; uploading a part again replaces it.
#[test]
fn a_completion_checks_its_parts() {
    let mut s = BucketState::default();
    s.min_part_size = 3;
    let id = upload(&mut s, "k");
    let small = part(&mut s, "k", &id, 1, b"ab");
    let last = part(&mut s, "k", &id, 2, b"z");
    let refused = complete(&mut s, "k", &id, vec![small, last.clone()], WriteCondition::None);
    assert_eq!(status(refused), (400, "EntityTooSmall".into()));
    let stale = part(&mut s, "k", &id, 1, b"abc");
    let replaced = part(&mut s, "k", &id, 1, b"xyz");
    assert_eq!(status(complete(&mut s, "k", &id, vec![stale, last.clone()], WriteCondition::None)).1, "InvalidPart");
    assert_eq!(status(complete(&mut s, "k", &id, vec![], WriteCondition::None)).1, "MalformedXML");
    let gap = complete(&mut s, "k", &id, vec![replaced.clone(), last.clone(), last.clone()], WriteCondition::None);
    assert_eq!(status(gap).1, "InvalidPart", "part 3 was never uploaded");
    let bad = S3Request::UploadPart { key: "k".into(), upload: id.clone(), part: 10_001, body: vec![] };
    assert_eq!(status(s.apply(bad, 1)).1, "InvalidArgument");
    complete(&mut s, "k", &id, vec![replaced, last], WriteCondition::None);
    assert_eq!(body(s.apply(get_req("k"), 2)), b"xyzz");
}

/// Aborting ends an upload and its parts; an unknown upload is `404 NoSuchUpload`, and an
/// upload id is bound to its key.
#[test]
fn an_abort_ends_an_upload_once() {
    let mut s = BucketState::default();
    let id = upload(&mut s, "k");
    part(&mut s, "k", &id, 1, b"a");
    let other_key = S3Request::Abort { key: "j".into(), upload: id.clone() };
    assert_eq!(status(s.apply(other_key, 1)).1, "NoSuchUpload");
    assert!(matches!(s.apply(S3Request::Abort { key: "k".into(), upload: id.clone() }, 1), S3Response::Done));
    assert_eq!(status(s.apply(S3Request::Abort { key: "k".into(), upload: id.clone() }, 1)).1, "NoSuchUpload");
    assert_eq!(status(complete(&mut s, "k", &id, vec!["x".into()], WriteCondition::None)).1, "NoSuchUpload");
}

/// The lifecycle rule aborts an upload its age after it started, not before.
#[test]
fn the_lifecycle_rule_expires_uploads_at_their_age() {
    let mut s = BucketState::default();
    s.expire_uploads_after_ms = Some(100);
    let id = upload_at(&mut s, "k", 50);
    assert!(s.expire(149).is_empty());
    let expired = s.expire(150);
    assert_eq!(expired.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), [id.as_str()]);
    assert_eq!(status(s.apply(S3Request::Abort { key: "k".into(), upload: id }, 151)).1, "NoSuchUpload");
}

/// `If-None-Match: *` writes only where nothing is; `If-Match` only over the named ETag, and
/// never where nothing is. Completions and copies honour the same conditions.
#[test]
fn conditional_writes_follow_their_condition() {
    let mut s = BucketState::default();
    let a = etag(put(&mut s, "k", b"a", WriteCondition::IfNoneMatch));
    assert_eq!(status(put(&mut s, "k", b"b", WriteCondition::IfNoneMatch)), (412, "PreconditionFailed".into()));
    let b = etag(put(&mut s, "k", b"b", WriteCondition::IfMatch(a.clone())));
    assert_eq!(status(put(&mut s, "k", b"c", WriteCondition::IfMatch(a))).0, 412, "a stale ETag");
    assert_eq!(status(put(&mut s, "new", b"c", WriteCondition::IfMatch(b))).0, 404);
    let id = upload(&mut s, "k");
    let p = part(&mut s, "k", &id, 1, b"z");
    assert_eq!(status(complete(&mut s, "k", &id, vec![p.clone()], WriteCondition::IfNoneMatch)).0, 412);
    assert_eq!(s.uploads.len(), 1, "a refused completion leaves the upload");
    let copy = S3Request::Copy { from: "k".into(), to: "k".into(), condition: WriteCondition::IfNoneMatch };
    assert_eq!(status(s.apply(copy, 2)).0, 412);
    assert_eq!(body(s.apply(get_req("k"), 2)), b"b");
}

/// There is no rename: a copy leaves the source in place (a delete is a second request); a
/// copy of a missing key is `404`.
#[test]
fn a_copy_leaves_its_source() {
    let mut s = BucketState::default();
    let a = etag(put(&mut s, "from", b"x", WriteCondition::None));
    let copy = S3Request::Copy { from: "from".into(), to: "to".into(), condition: WriteCondition::None };
    assert_eq!(etag(s.apply(copy, 2)), a, "a copy keeps the ETag of the same bytes");
    assert_eq!(body(s.apply(get_req("from"), 2)), b"x");
    assert_eq!(body(s.apply(get_req("to"), 2)), b"x");
    let missing = S3Request::Copy { from: "nothing".into(), to: "to".into(), condition: WriteCondition::None };
    assert_eq!(status(s.apply(missing, 2)).0, 404);
}

fn list(s: &mut BucketState, prefix: &str, delimiter: bool, after: Option<&str>, max: usize) -> (Vec<String>, bool) {
    let req = S3Request::List { prefix: prefix.into(), delimiter, start_after: after.map(Into::into), max_keys: max };
    match s.apply(req, 5) {
        S3Response::Listing { objects, prefixes, truncated } => {
            let mut names: Vec<String> = objects.into_iter().map(|o| o.key).collect();
            names.extend(prefixes);
            names.sort();
            (names, truncated)
        }
        other => panic!("{other:?}"),
    }
}

/// A listing sees every answered write at once, in key order, folds keys by `/` when asked,
/// and pages after the last key or prefix it returned.
#[test]
fn listings_are_consistent_ordered_folded_and_paged() {
    let mut s = BucketState::default();
    for k in ["a/1", "a/2", "a/d/3", "a/d/4", "a/e/5", "ab", "b"] {
        put(&mut s, k, b"x", WriteCondition::None);
    }
    assert_eq!(list(&mut s, "a/", false, None, 1000).0, ["a/1", "a/2", "a/d/3", "a/d/4", "a/e/5"]);
    assert_eq!(list(&mut s, "a/", true, None, 1000).0, ["a/1", "a/2", "a/d/", "a/e/"]);
    let (page, truncated) = list(&mut s, "a/", true, None, 3);
    assert_eq!(page, ["a/1", "a/2", "a/d/"]);
    assert!(truncated);
    assert_eq!(list(&mut s, "a/", true, Some("a/d/"), 3), (vec!["a/e/".to_string()], false));
    s.apply(S3Request::Delete { key: "a/1".into() }, 6);
    assert_eq!(list(&mut s, "a/", false, None, 2), (vec!["a/2".to_string(), "a/d/3".to_string()], true));
}

/// Reads honour If-Match / If-Unmodified-Since (412) and If-None-Match / If-Modified-Since
/// (304), and byte ranges, refusing one that starts past the end (416).
#[test]
fn reads_follow_their_conditions_and_ranges() {
    let mut s = BucketState::default();
    let tag = etag(put(&mut s, "k", b"0123456789", WriteCondition::None));
    let at = super::EPOCH_MS + 1;
    let get = |conditions: ReadConditions, range: Option<ByteRange>| S3Request::Get {
        key: "k".into(),
        range,
        conditions,
        version: None,
        head: false,
    };
    let c = |m: Option<&str>, n: Option<&str>, ms: Option<i64>, us: Option<i64>| ReadConditions {
        if_match: m.map(Into::into),
        if_none_match: n.map(Into::into),
        if_modified_since_ms: ms,
        if_unmodified_since_ms: us,
    };
    assert_eq!(status(s.apply(get(c(Some("\"x\""), None, None, None), None), 2)).0, 412);
    assert_eq!(status(s.apply(get(c(None, Some(&tag), None, None), None), 2)).0, 304);
    assert_eq!(status(s.apply(get(c(None, None, Some(at), None), None), 2)).0, 304);
    assert_eq!(status(s.apply(get(c(None, None, None, Some(at - 1)), None), 2)).0, 412);
    assert_eq!(body(s.apply(get(c(Some(&tag), None, Some(at - 1), Some(at)), None), 2)), b"0123456789");
    assert_eq!(body(s.apply(get(c(None, None, None, None), Some(ByteRange::Bounded(2, 5))), 2)), b"234");
    assert_eq!(body(s.apply(get(c(None, None, None, None), Some(ByteRange::Bounded(8, 50))), 2)), b"89");
    assert_eq!(body(s.apply(get(c(None, None, None, None), Some(ByteRange::Suffix(3))), 2)), b"789");
    assert_eq!(body(s.apply(get(c(None, None, None, None), Some(ByteRange::From(7))), 2)), b"789");
    assert_eq!(status(s.apply(get(c(None, None, None, None), Some(ByteRange::From(10))), 2)).0, 416);
}

fn bucket_with(setting: Setting) -> Bucket {
    let b = Bucket::new("s3", "out/", History::new());
    b.configure(&setting, &SettingEnv { seed: 7, history: History::new() }).unwrap();
    b
}

/// `503 SlowDown` refuses a request before it is applied; `500 InternalError` answers
/// requests of which some were applied.
#[test]
fn error_answers_say_nothing_of_what_was_applied() {
    madsim::runtime::Runtime::new().block_on(async { error_answers() });
}

fn error_answers() {
    let caller = Caller { node: "c".into(), call: None, sender: None };
    let slow = bucket_with(Setting::SlowDown(1.0));
    let put = |k: &str| S3Request::Put {
        key: k.into(),
        body: b"x".to_vec(),
        condition: WriteCondition::None,
        attributes: vec![],
    };
    assert_eq!(status(slow.handle(&caller, put("out/a"))), (503, "SlowDown".into()));
    assert!(slow.keys().is_empty(), "a throttled request is not applied");
    let internal = bucket_with(Setting::InternalErrors(1.0));
    let keys: Vec<String> = (0..20).map(|i| format!("out/{i}")).collect();
    for k in &keys {
        assert_eq!(status(internal.handle(&caller, put(k))), (500, "InternalError".into()));
    }
    let applied = internal.keys().len();
    assert!(applied > 0 && applied < keys.len(), "some applied, some not: {applied} of {}", keys.len());
    let refused = Bucket::new("s3", "out/", History::new())
        .configure(&Setting::SlowDown(1.5), &SettingEnv { seed: 7, history: History::new() });
    assert!(refused.unwrap_err().contains("not between 0.0 and 1.0"));
}

/// A crash of the bucket's node loses nothing: objects (a completed multipart one and older
/// versions included) and uploads in progress stay.
#[test]
fn a_crash_loses_nothing() {
    madsim::runtime::Runtime::new().block_on(async { crash_loses_nothing() });
}

fn crash_loses_nothing() {
    let b = Bucket::new("s3", "out/", History::new());
    b.put("out/a", b"x".to_vec());
    let caller = Caller { node: "c".into(), call: None, sender: None };
    let written = |r: S3Response| match r {
        S3Response::Written { version, .. } => version,
        other => panic!("{other:?}"),
    };
    let put = |k: &str, v: &[u8]| S3Request::Put {
        key: k.into(),
        body: v.to_vec(),
        condition: WriteCondition::None,
        attributes: vec![],
    };
    let v1 = written(b.handle(&caller, put("out/v", b"one")));
    b.handle(&caller, put("out/v", b"two"));
    let create = |k: &str| S3Request::CreateUpload { key: k.into(), attributes: vec![] };
    let S3Response::UploadCreated { upload } = b.handle(&caller, create("out/m")) else { panic!() };
    let part = S3Request::UploadPart { key: "out/m".into(), upload: upload.clone(), part: 1, body: b"mp".to_vec() };
    let e = etag(b.handle(&caller, part));
    let done = S3Request::Complete { key: "out/m".into(), upload, parts: vec![e], condition: WriteCondition::None };
    written(b.handle(&caller, done));
    b.handle(&caller, create("out/b"));
    b.crash();
    assert_eq!(b.object("out/a").unwrap(), b"x");
    assert_eq!(b.object("out/m").unwrap(), b"mp", "a completed upload's object");
    assert_eq!(body(b.handle(&caller, get_version("out/v", &v1))), b"one", "an older version");
    assert_eq!(b.inner.lock().unwrap().state.uploads.len(), 1);
}

fn get_version(key: &str, version: &str) -> S3Request {
    S3Request::Get {
        key: key.into(),
        range: None,
        conditions: ReadConditions::default(),
        version: Some(version.into()),
        head: false,
    }
}

/// The lifecycle rule counts an upload's age from its start (`Initiated`), not from its last
/// part: uploading a part does not keep an upload alive.
#[test]
fn the_lifecycle_rule_counts_from_the_start_however_recent_the_last_part() {
    let mut s = BucketState::default();
    s.expire_uploads_after_ms = Some(100);
    let id = upload_at(&mut s, "k", 50);
    let late = S3Request::UploadPart { key: "k".into(), upload: id.clone(), part: 1, body: b"a".to_vec() };
    etag(s.apply(late, 140));
    assert_eq!(s.expire(150).len(), 1, "expired 100 ms after it started, though a part came at 140");
    let after = S3Request::UploadPart { key: "k".into(), upload: id, part: 2, body: b"b".to_vec() };
    assert_eq!(status(s.apply(after, 151)), (404, "NoSuchUpload".into()));
}

/// An upload in progress is invisible to listings too: the key lists its old object (size
/// and ETag) until the completion, then the new one.
#[test]
fn a_listing_shows_the_old_object_until_an_upload_over_it_completes() {
    let mut s = BucketState::default();
    s.min_part_size = 1;
    let old = etag(put(&mut s, "k", b"old", WriteCondition::None));
    let id = upload(&mut s, "k");
    let p = part(&mut s, "k", &id, 1, b"newer");
    let info = |s: &mut BucketState| match s
        .apply(S3Request::List { prefix: String::new(), delimiter: false, start_after: None, max_keys: 10 }, 3)
    {
        S3Response::Listing { objects, .. } => objects.into_iter().map(|o| (o.key, o.size, o.etag)).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(info(&mut s), [("k".to_string(), 3, old.clone())], "the upload is not listed");
    assert_eq!(body(s.apply(get_req("k"), 3)), b"old");
    let new = etag(complete(&mut s, "k", &id, vec![p], WriteCondition::None));
    assert_eq!(info(&mut s), [("k".to_string(), 5, new)]);
}

/// A multipart ETag is a digest of its parts' ETags (with `-N`): other bytes in the same
/// number of parts give another ETag, and `If-Match` on the old one is refused.
#[test]
fn a_multipart_etag_follows_its_parts() {
    let mut s = BucketState::default();
    s.min_part_size = 1;
    let write = |s: &mut BucketState, a: &[u8], b: &[u8]| {
        let id = upload(s, "k");
        let parts = vec![part(s, "k", &id, 1, a), part(s, "k", &id, 2, b)];
        etag(complete(s, "k", &id, parts, WriteCondition::None))
    };
    let first = write(&mut s, b"ab", b"cd");
    let second = write(&mut s, b"ab", b"ce");
    assert_ne!(first, second, "other bytes, another ETag");
    assert!(first.ends_with("-2\"") && second.ends_with("-2\""));
    let stale = put(&mut s, "k", b"x", WriteCondition::IfMatch(first));
    assert_eq!(status(stale).0, 412);
}

/// An upload id is bound to its key for every request: a part or a completion naming another
/// key is `404 NoSuchUpload`, and nothing appears at that key.
#[test]
fn an_upload_answers_only_under_its_own_key() {
    let mut s = BucketState::default();
    s.min_part_size = 1;
    let id = upload(&mut s, "k");
    let p = part(&mut s, "k", &id, 1, b"a");
    let stray = S3Request::UploadPart { key: "j".into(), upload: id.clone(), part: 2, body: b"b".to_vec() };
    assert_eq!(status(s.apply(stray, 1)), (404, "NoSuchUpload".into()));
    let elsewhere = complete(&mut s, "j", &id, vec![p.clone()], WriteCondition::None);
    assert_eq!(status(elsewhere), (404, "NoSuchUpload".into()));
    assert_eq!(status(s.apply(get_req("j"), 2)), (404, "NoSuchKey".into()));
    complete(&mut s, "k", &id, vec![p], WriteCondition::None);
    assert_eq!(body(s.apply(get_req("k"), 2)), b"a");
}

/// A read of a version returns that version's metadata (its ETag and id, not the current
/// one's); a delete marker's version is `405 MethodNotAllowed`.
#[test]
fn a_read_by_version_answers_that_version() {
    let mut s = BucketState::default();
    let S3Response::Written { etag: e1, version: v1 } = put(&mut s, "k", b"one", WriteCondition::None) else {
        panic!()
    };
    put(&mut s, "k", b"two", WriteCondition::None);
    let S3Response::Object { info, body: bytes, .. } = s.apply(get_version("k", &v1), 2) else { panic!() };
    assert_eq!((info.etag, info.version.clone(), bytes), (e1, v1.clone(), b"one".to_vec()));
    assert!(matches!(s.apply(S3Request::Delete { key: "k".into() }, 3), S3Response::Done));
    let marker = s.keys["k"].last().expect("the marker").id.clone();
    assert_eq!(status(s.apply(get_version("k", &marker), 3)), (405, "MethodNotAllowed".into()));
    assert_eq!(body(s.apply(get_version("k", &v1), 3)), b"one", "older versions outlive the marker");
}

/// The lifecycle rule runs on the bucket's clock as it serves: the first request after an
/// upload's age finds it gone, and the expiry is in the history (the `upload-expired` mark).
#[test]
fn a_request_after_an_uploads_age_finds_it_expired_and_recorded() {
    madsim::runtime::Runtime::new().block_on(async {
        use crate::history::{EventKind, FaultKind};
        let history = History::new();
        let b = Bucket::new("s3", "out/", history.clone());
        let env = SettingEnv { seed: 7, history: history.clone() };
        b.configure(&Setting::ExpireIncompleteUploadsAfterMs(Some(100)), &env).unwrap();
        let caller = Caller { node: "c".into(), call: None, sender: None };
        let create = S3Request::CreateUpload { key: "out/k".into(), attributes: vec![] };
        let S3Response::UploadCreated { upload } = b.handle(&caller, create) else { panic!("created") };
        madsim::time::sleep(std::time::Duration::from_millis(100)).await;
        let late = S3Request::Complete {
            key: "out/k".into(),
            upload,
            parts: vec!["x".into()],
            condition: WriteCondition::None,
        };
        assert_eq!(status(b.handle(&caller, late)), (404, "NoSuchUpload".into()));
        let expired =
            |e: &crate::history::Event| matches!(&e.kind, EventKind::Fault { fault: FaultKind::UploadExpired, .. });
        assert_eq!(history.events().iter().filter(|e| expired(e)).count(), 1);
    });
}
