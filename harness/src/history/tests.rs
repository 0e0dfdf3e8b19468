//! The history's own bookkeeping: how emitted records join into events.

use super::{EventKind, History};
use crate::record::RecordId;

fn emitted(subtask: usize, attempt: u64, ids: &[u64]) -> EventKind {
    EventKind::Emitted { subtask, attempt, ids: ids.iter().copied().map(RecordId).collect() }
}

#[test]
fn records_one_attempt_emits_at_one_instant_join_one_event_whichever_way_they_are_recorded() {
    let (built, streamed) = (History::new(), History::new());
    let steps: [(&str, usize, u64, &[u64]); 5] =
        [("a", 0, 1, &[1]), ("a", 0, 1, &[2, 3]), ("a", 0, 2, &[4]), ("b", 0, 2, &[5]), ("b", 1, 2, &[6])];
    for (node, subtask, attempt, ids) in steps {
        built.record(node, emitted(subtask, attempt, ids));
        streamed.record_emitted(node, subtask, attempt, ids.iter().copied().map(RecordId));
    }
    let kinds = |h: &History| h.events().into_iter().map(|e| (e.node, e.kind)).collect::<Vec<_>>();
    assert_eq!(kinds(&built), kinds(&streamed));
    let expected = vec![
        ("a".to_string(), emitted(0, 1, &[1, 2, 3])),
        ("a".to_string(), emitted(0, 2, &[4])),
        ("b".to_string(), emitted(0, 2, &[5])),
        ("b".to_string(), emitted(1, 2, &[6])),
    ];
    assert_eq!(kinds(&streamed), expected);
}

#[test]
fn another_event_in_between_starts_a_new_emitted_event() {
    let h = History::new();
    h.record_emitted("a", 0, 1, [RecordId(1)].into_iter());
    h.record("a", EventKind::SubtaskFinished { subtask: 0, attempt: 1 });
    h.record_emitted("a", 0, 1, [RecordId(2)].into_iter());
    let kinds: Vec<EventKind> = h.events().into_iter().map(|e| e.kind).collect();
    assert_eq!(kinds.len(), 3);
    assert_eq!(kinds[2], emitted(0, 1, &[2]));
}
