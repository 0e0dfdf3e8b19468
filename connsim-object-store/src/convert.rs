//! object_store's types to the bucket's wire types and back.

use bytes::Bytes;
use chrono::{DateTime, Utc};
use connsim::systems::{ByteRange, ObjectInfo, ReadConditions};
use object_store::path::Path;
use object_store::{Attribute, AttributeValue, Attributes, GetOptions, GetRange, ObjectMeta, PutPayload};

/// The attributes as S3 keeps them: HTTP headers, user metadata as `x-amz-meta-…`.
pub(crate) fn attributes_to_wire(attributes: &Attributes) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = attributes
        .iter()
        .filter_map(|(k, v)| {
            let name = match k {
                Attribute::ContentDisposition => "Content-Disposition".to_string(),
                Attribute::ContentEncoding => "Content-Encoding".to_string(),
                Attribute::ContentLanguage => "Content-Language".to_string(),
                Attribute::ContentType => "Content-Type".to_string(),
                Attribute::CacheControl => "Cache-Control".to_string(),
                Attribute::StorageClass => "x-amz-storage-class".to_string(),
                Attribute::Metadata(m) => format!("x-amz-meta-{m}"),
                // An attribute S3 has no header for is not sent, as object_store's S3
                // client does not send it.
                _ => return None,
            };
            Some((name, v.as_ref().to_string()))
        })
        .collect();
    out.sort();
    out
}

/// The attributes S3 returned.
pub(crate) fn attributes_from_wire(wire: &[(String, String)]) -> Attributes {
    let mut out = Attributes::new();
    for (k, v) in wire {
        let key = match k.as_str() {
            "Content-Disposition" => Attribute::ContentDisposition,
            "Content-Encoding" => Attribute::ContentEncoding,
            "Content-Language" => Attribute::ContentLanguage,
            "Content-Type" => Attribute::ContentType,
            "Cache-Control" => Attribute::CacheControl,
            "x-amz-storage-class" => Attribute::StorageClass,
            other => match other.strip_prefix("x-amz-meta-") {
                Some(m) => Attribute::Metadata(m.to_string().into()),
                None => continue,
            },
        };
        out.insert(key, AttributeValue::from(v.clone()));
    }
    out
}

/// A time in ms since the epoch.
pub(crate) fn time(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).expect("the bucket's clock is within chrono's range")
}

/// The metadata object_store reports for an object.
pub(crate) fn meta(info: &ObjectInfo) -> ObjectMeta {
    ObjectMeta {
        location: path(&info.key),
        last_modified: time(info.last_modified_ms),
        size: info.size,
        e_tag: Some(info.etag.clone()),
        version: Some(info.version.clone()),
    }
}

/// The path of a key (keys are written from paths, so they parse; any other is taken as
/// one raw path).
pub(crate) fn path(key: &str) -> Path {
    Path::parse(key).unwrap_or_else(|_| Path::from(key))
}

/// The key prefix of a listing under `prefix`: its segments and a `/`.
pub(crate) fn list_prefix(prefix: Option<&Path>) -> String {
    match prefix.map(Path::as_ref) {
        None | Some("") => String::new(),
        Some(p) => format!("{p}/"),
    }
}

/// The read conditions and range of a get.
pub(crate) fn read_options(options: &GetOptions) -> (ReadConditions, Option<ByteRange>) {
    let conditions = ReadConditions {
        if_match: options.if_match.clone(),
        if_none_match: options.if_none_match.clone(),
        if_modified_since_ms: options.if_modified_since.map(|t| t.timestamp_millis()),
        if_unmodified_since_ms: options.if_unmodified_since.map(|t| t.timestamp_millis()),
    };
    let range = options.range.as_ref().map(|r| match r {
        GetRange::Bounded(r) => ByteRange::Bounded(r.start, r.end),
        GetRange::Offset(o) => ByteRange::From(*o),
        GetRange::Suffix(n) => ByteRange::Suffix(*n),
    });
    (conditions, range)
}

/// A payload's bytes, in one piece.
pub(crate) fn bytes(payload: PutPayload) -> Vec<u8> {
    Bytes::from(payload).to_vec()
}
