//! Keeps report lines readable: long lists inside a timeline event show their first items
//! and how many more there are, and any line past [`LINE_MAX`] characters is cut with a
//! count of what was left out. Nothing is cut from the history itself (JSON-line dumps and
//! case files keep everything).

use serde_json::Value;
use std::borrow::Cow;

/// Items of a list a timeline line shows before "… and N more".
pub const LIST_SHOWN: usize = 8;

/// Characters a report line shows at most.
pub const LINE_MAX: usize = 400;

/// Shortens every list longer than [`LIST_SHOWN`] in `value`, at any depth, to its first
/// items and a last one saying how many more there are.
pub fn compact(value: &mut Value) {
    match value {
        Value::Array(items) => {
            if items.len() > LIST_SHOWN {
                let more = items.len() - LIST_SHOWN;
                items.truncate(LIST_SHOWN);
                items.push(Value::String(format!("… and {more} more")));
            }
            items.iter_mut().for_each(compact);
        }
        Value::Object(fields) => fields.values_mut().for_each(compact),
        _ => {}
    }
}

/// `line`, cut after [`LINE_MAX`] characters with how many more there were.
pub fn cap(line: &str) -> Cow<'_, str> {
    match line.char_indices().nth(LINE_MAX) {
        None => Cow::Borrowed(line),
        Some((cut, _)) => {
            let more = line[cut..].chars().count();
            Cow::Owned(format!("{} … ({more} more characters)", &line[..cut]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_show_their_first_items_and_a_count() {
        let mut v = serde_json::json!({"type": "emitted", "ids": (1..=20).collect::<Vec<u32>>(), "splits": [["a", 1]]});
        compact(&mut v);
        assert_eq!(v["ids"].as_array().unwrap().len(), LIST_SHOWN + 1);
        assert_eq!(v["ids"][LIST_SHOWN], "… and 12 more");
        assert_eq!(v["splits"], serde_json::json!([["a", 1]]));
    }

    #[test]
    fn long_lines_are_cut_on_a_character_boundary_with_a_count() {
        assert_eq!(cap("short"), "short");
        let long = "é".repeat(LINE_MAX + 5);
        let cut = cap(&long);
        assert!(cut.starts_with(&"é".repeat(LINE_MAX)) && cut.ends_with("… (5 more characters)"), "{cut}");
    }
}
