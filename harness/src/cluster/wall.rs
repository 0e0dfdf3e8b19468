//! The serde wall: everything a connector hands to the runtime to keep (snapshots of the
//! enumerator, the readers' splits, writer states, committables, global committables) and
//! everything that crosses between nodes is encoded and at once decoded again, and from then
//! on the runtime uses the decoded value, as a real cluster would after a restore.
//!
//! A serializer that drops or changes a field therefore shows at the first checkpoint, not
//! only on the rare run that restores from it: the decoded value must look like the original
//! (compared through `Debug`, which shows every field, including those the serializer skips;
//! two renderings that hold the same characters in another order, as a hash map's may, count
//! as the same), and if it does not the job fails showing both where they first differ.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;

/// Encodes `value`, decodes it again and checks it came back unchanged. Returns the bytes and
/// the decoded value, or why `what` did not survive.
pub(crate) fn round_trip<T: Serialize + DeserializeOwned + Debug>(
    value: &T,
    what: &str,
) -> Result<(Vec<u8>, T), String> {
    let bytes = bincode::serialize(value).map_err(|e| format!("{what} did not serialize: {e}"))?;
    let back: T = crate::bytes::decode(&bytes).map_err(|e| format!("{what} did not deserialize: {e}"))?;
    let (before, after) = (format!("{value:?}"), format!("{back:?}"));
    if before != after && !same_characters(&before, &after) {
        let (was, now) = around_first_difference(&before, &after);
        return Err(format!(
            "{what} did not survive a serde round trip: `{was}` came back as `{now}`; a serializer dropped or changed a \
             field (check its serde attributes and any custom Serialize/Deserialize)"
        ));
    }
    Ok((bytes, back))
}

/// Encodes a value the runtime keeps only as bytes (a checkpointed state), checking the
/// round trip as [`round_trip`] does.
pub(crate) fn encode_checked<T: Serialize + DeserializeOwned + Debug>(
    value: &T,
    what: &str,
) -> Result<Vec<u8>, String> {
    round_trip(value, what).map(|(bytes, _)| bytes)
}

/// Whether two renderings hold the same characters (the same map printed in another order).
fn same_characters(a: &str, b: &str) -> bool {
    let sorted = |s: &str| {
        let mut v: Vec<char> = s.chars().collect();
        v.sort_unstable();
        v
    };
    a.len() == b.len() && sorted(a) == sorted(b)
}

/// Both renderings around the first character where they differ.
fn around_first_difference(a: &str, b: &str) -> (String, String) {
    let at = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let window = |s: &str| {
        let chars: Vec<char> = s.chars().collect();
        let (from, to) = (at.saturating_sub(40), (at + 40).min(chars.len()));
        let mut w: String = chars[from..to].iter().collect();
        if from > 0 {
            w.insert(0, '…');
        }
        if to < chars.len() {
            w.push('…');
        }
        w
    };
    (window(a), window(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::collections::HashMap;

    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)] // read through Debug only
    struct Split {
        id: String,
        #[serde(skip)]
        next: u64,
        seen: HashMap<String, u64>,
    }

    #[test]
    fn a_dropped_field_is_named_and_a_hash_map_order_is_not_a_difference() {
        let seen: HashMap<String, u64> = (0..20).map(|i| (format!("k{i}"), i)).collect();
        let fine = Split { id: "a".into(), next: 0, seen: seen.clone() };
        assert!(round_trip(&vec![fine], "splits").is_ok());
        let lossy = Split { id: "a".into(), next: 37, seen };
        let err = round_trip(&vec![lossy], "splits").unwrap_err();
        assert!(err.contains("next: 37") && err.contains("next: 0"), "{err}");
    }
}
