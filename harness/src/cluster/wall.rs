//! The serde wall: everything a connector hands to the runtime to keep (snapshots of the
//! enumerator, the readers' splits, writer states, committables, global committables) and
//! everything that crosses between nodes is encoded and at once decoded again, and from then
//! on the runtime uses the decoded value, as a real cluster would after a restore.
//!
//! What the serialized form leaves out (a `#[serde(skip)]` cache, a client handle, a metrics
//! counter) is therefore gone from the first checkpoint on, on every run, not only on the
//! rare one that restores: a connector that needed it loses or repeats records, and the
//! checks say so. The wall never judges a value by its `Debug` form, which shows skipped
//! fields too and would fail connectors that skip them on purpose.
//!
//! One early warning stays, for a deserializer that does not read back what its serializer
//! wrote: the decoded value is encoded again, and if its bytes differ from the original's, the
//! two are compared field by field (as JSON trees: map entries by key, so a hash map's order
//! is no difference, and the elements of a sequence regardless of position, so a hash set's
//! order, at any depth, is none either). A field that differs fails the job, naming it.
//!
//! What this warning cannot see, the checks still judge downstream: a deserializer that only
//! reorders a sequence's elements (a tuple's too: JSON does not tell a tuple from a set), and
//! a value with no JSON form at all (a map keyed by a struct anywhere in it, an integer past
//! 64 bits), which is then not compared.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// Encodes `value` and decodes it again. Returns the bytes and the decoded value, or why
/// `what` did not survive.
pub(crate) fn round_trip<T: Serialize + DeserializeOwned>(value: &T, what: &str) -> Result<(Vec<u8>, T), String> {
    let bytes = bincode::serialize(value).map_err(|e| format!("{what} did not serialize: {e}"))?;
    let back: T = crate::bytes::decode(&bytes).map_err(|e| format!("{what} did not deserialize: {e}"))?;
    let again = bincode::serialize(&back).map_err(|e| format!("{what}, decoded, did not serialize again: {e}"))?;
    if again != bytes {
        if let Some(difference) = first_difference(value, &back) {
            return Err(format!(
                "{what} did not survive a serde round trip: {difference}; its deserializer does not read back what its \
                 serializer wrote (check custom Serialize/Deserialize impls and attributes such as deserialize_with, \
                 default and skip_deserializing)"
            ));
        }
    }
    Ok((bytes, back))
}

/// Encodes a value the runtime keeps only as bytes (a checkpointed state), checking the
/// round trip as [`round_trip`] does.
pub(crate) fn encode_checked<T: Serialize + DeserializeOwned>(value: &T, what: &str) -> Result<Vec<u8>, String> {
    round_trip(value, what).map(|(bytes, _)| bytes)
}

/// Where the serialized forms of `before` and `after` first differ, named by its path
/// (`[0].offset`), or `None` if they hold the same or either has no JSON form.
fn first_difference<T: Serialize>(before: &T, after: &T) -> Option<String> {
    let (a, b) = (serde_json::to_value(before).ok()?, serde_json::to_value(after).ok()?);
    let mut path = String::new();
    differ(&a, &b, &mut path)
}

/// Where `a` and `b` first differ (objects by key, sequences as multisets), or `None`.
fn differ(a: &Value, b: &Value, path: &mut String) -> Option<String> {
    let here = |path: &str| if path.is_empty() { "the value".to_string() } else { format!("field `{path}`") };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, value) in x {
                let len = path.len();
                path.push('.');
                path.push_str(key);
                let found = match y.get(key) {
                    Some(other) => differ(value, other, path),
                    None => Some(format!("{} was {} and came back missing", here(path), shown(value))),
                };
                path.truncate(len);
                if found.is_some() {
                    return found;
                }
            }
            let extra = y.keys().find(|k| !x.contains_key(*k))?;
            Some(format!("{} came back with a field `{extra}` it did not have", here(path)))
        }
        (Value::Array(x), Value::Array(y)) if x.len() != y.len() => {
            Some(format!("{} had {} elements and came back with {}", here(path), x.len(), y.len()))
        }
        (Value::Array(x), Value::Array(y)) => {
            // Elements are matched regardless of position: a hash set's order is no
            // difference, at any depth. What is left unmatched on each side differs.
            let key = |v: &Value| canonical(v).to_string();
            let mut theirs: Vec<Option<String>> = y.iter().map(|v| Some(key(v))).collect();
            let mut unmatched = Vec::new();
            for (i, v) in x.iter().enumerate() {
                let k = key(v);
                match theirs.iter_mut().find(|t| t.as_deref() == Some(k.as_str())) {
                    Some(t) => *t = None,
                    None => unmatched.push(i),
                }
            }
            let first = *unmatched.first()?;
            let other = theirs.iter().position(Option::is_some).expect("as many unmatched on each side");
            let len = path.len();
            path.push_str(&format!("[{first}]"));
            let found = differ(&x[first], &y[other], path).unwrap_or_else(|| {
                format!("{} was {} and came back as {}", here(path), shown(&x[first]), shown(&y[other]))
            });
            path.truncate(len);
            Some(found)
        }
        _ if a == b => None,
        _ => Some(format!("{} was {} and came back as {}", here(path), shown(a), shown(b))),
    }
}

/// `v` with every sequence sorted, at every depth: equal for two values that differ only in
/// the order of some sequence's elements (hash sets, hash maps written as sequences of pairs).
fn canonical(v: &Value) -> Value {
    match v {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(canonical).collect();
            items.sort_by_cached_key(Value::to_string);
            Value::Array(items)
        }
        Value::Object(fields) => {
            // Keys in order: a hash map's entries come in any order.
            let mut fields: Vec<(String, Value)> = fields.iter().map(|(k, v)| (k.clone(), canonical(v))).collect();
            fields.sort_by(|(a, _), (b, _)| a.cmp(b));
            Value::Object(fields.into_iter().collect())
        }
        other => other.clone(),
    }
}

/// A value's JSON, cut short.
fn shown(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(80) {
        Some((at, _)) => format!("`{}…`", &s[..at]),
        None => format!("`{s}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Deserializer};
    use std::collections::{HashMap, HashSet};

    /// A split with a cache its connector rebuilds when needed: skipped on purpose.
    #[derive(Debug, Serialize, Deserialize)]
    struct Split {
        id: String,
        #[serde(skip)]
        cache: Option<String>,
        seen: HashMap<String, u64>,
        owners: HashSet<u64>,
    }

    fn split(cache: Option<String>) -> Split {
        let seen = (0..20).map(|i| (format!("k{i}"), i)).collect();
        Split { id: "a".into(), cache, seen, owners: (0..20).collect() }
    }

    #[test]
    fn a_field_skipped_on_purpose_and_a_hash_map_or_set_in_another_order_pass() {
        let (_, back) = round_trip(&vec![split(Some("warm".into()))], "splits").unwrap();
        assert_eq!(back[0].cache, None, "the runtime goes on with the decoded value");
        assert_eq!(back[0].seen.len(), 20);
    }

    fn reversed<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        Ok(String::deserialize(d)?.chars().rev().collect())
    }

    fn halved<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
        let mut v = Vec::<u64>::deserialize(d)?;
        v.truncate(v.len() / 2);
        Ok(v)
    }

    #[derive(Debug, Serialize, Deserialize)]
    struct Misread {
        topic: String,
        #[serde(deserialize_with = "reversed")]
        offset: String,
        #[serde(deserialize_with = "halved")]
        pending: Vec<u64>,
    }

    #[test]
    fn a_deserializer_that_misreads_a_field_fails_naming_it_even_when_only_its_digits_move() {
        let value = vec![Misread { topic: "t".into(), offset: "12".into(), pending: vec![] }];
        let err = round_trip(&value, "splits").unwrap_err();
        assert!(err.contains("field `[0].offset` was `\"12\"` and came back as `\"21\"`"), "{err}");
        let value = Misread { topic: "t".into(), offset: "7".into(), pending: vec![1, 2, 3, 4] };
        let err = round_trip(&value, "the enumerator's state").unwrap_err();
        assert!(err.contains("field `.pending` had 4 elements and came back with 2"), "{err}");
    }

    #[derive(Debug, Serialize, Deserialize)]
    struct Owned {
        owners: HashSet<u64>,
        #[serde(deserialize_with = "reversed")]
        offset: String,
    }

    #[test]
    fn a_misread_behind_an_element_whose_set_came_back_in_another_order_is_still_named() {
        let owned = |offset: &str| Owned { owners: (0..40).collect(), offset: offset.into() };
        // The first split's set comes back in another order (a new hash state); the second
        // split's offset is misread.
        let err = round_trip(&vec![owned("7"), owned("12")], "splits").unwrap_err();
        assert!(err.contains("field `[1].offset` was `\"12\"` and came back as `\"21\"`"), "{err}");
    }

    /// A hash map written as a sequence of pairs whose values hold hash sets.
    #[derive(Debug, Serialize, Deserialize)]
    struct Pairs {
        #[serde(with = "as_pairs")]
        by_owner: HashMap<u64, HashSet<u64>>,
    }

    mod as_pairs {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};
        use std::collections::{HashMap, HashSet};
        pub fn serialize<S: Serializer>(m: &HashMap<u64, HashSet<u64>>, s: S) -> Result<S::Ok, S::Error> {
            m.iter().collect::<Vec<_>>().serialize(s)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<HashMap<u64, HashSet<u64>>, D::Error> {
            Ok(Vec::<(u64, HashSet<u64>)>::deserialize(d)?.into_iter().collect())
        }
    }

    #[test]
    fn a_hash_map_written_as_pairs_of_hash_sets_passes_in_any_order() {
        let by_owner = (0..30).map(|o| (o, (0..20).map(|i| o * 100 + i).collect())).collect();
        assert!(round_trip(&Pairs { by_owner }, "the enumerator's state").is_ok());
    }

    #[test]
    fn a_value_without_a_json_form_is_left_to_the_checks() {
        let keyed: HashMap<(u8, u8), u8> = (0..30).map(|i| ((i, i), i)).collect();
        assert!(round_trip(&keyed, "state").is_ok());
    }
}
