//! A failing run as one self-contained HTML page (no network): a swim lane per node (the job
//! master, the task executors, the external systems, the harness's output reader and the
//! supervisor), every history event on a virtual-time axis coloured by what it is (records,
//! visibility, barriers and acknowledgements, checkpoints, commits, faults, crashes), the
//! first bad event highlighted and centred, zoom, and a filter by split or record id.

use super::shorten;
use super::RunReport;
use crate::history::Event;
use serde_json::Value;

const TEMPLATE: &str = include_str!("timeline.html");

/// Escapes text for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The colour class of an event, by its type.
fn class(kind: &str) -> &'static str {
    match kind {
        "produced" | "emitted" | "paused_split_read" | "valve_released" | "exchange_resent" => "records",
        "appeared" | "vanished" | "converged" | "output_unreadable" => "visibility",
        "barrier" | "acked" | "barrier_aligned" | "channel_blocked" | "alignment_aborted" | "declined"
        | "late_notification" => "barrier",
        "checkpoint_triggered" | "checkpoint_completed" | "checkpoint_aborted" => "checkpoint",
        "commit_attempt" | "commit_outcome" | "global_commit_attempt" | "global_commit_outcome" => "commit",
        "fault" | "fault_rule" | "call_timed_out" | "connector_error" | "out_of_range" | "orphaned"
        | "zombie_request" | "fault_block" => "fault",
        "crashed" | "restarted" | "failover" | "crash_point" | "job_failed" | "lease_expired" | "node_stopped" => {
            "crash"
        }
        "step" => "step",
        _ => "other",
    }
}

/// Lanes in a reading order: the job master, task executors by number, external systems,
/// then the harness and the supervisor.
fn lanes(events: &[Event]) -> Vec<String> {
    let mut names: Vec<&str> = events.iter().map(|e| e.node.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let rank = |n: &str| -> (u8, u64, String) {
        match n {
            "jobmaster" => (0, 0, String::new()),
            "harness" => (3, 0, String::new()),
            "supervisor" => (4, 0, String::new()),
            _ => match n.strip_prefix("taskexecutor-").and_then(|k| k.parse().ok()) {
                Some(k) => (1, k, String::new()),
                None => (2, 0, n.to_string()),
            },
        }
    };
    names.sort_by_key(|n| rank(n));
    names.into_iter().map(String::from).collect()
}

/// The split ids and record ids an event mentions, for the filter.
fn mentions(v: &Value, splits: &mut Vec<String>, ids: &mut Vec<u64>) {
    let Value::Object(fields) = v else { return };
    for (key, value) in fields {
        match (key.as_str(), value) {
            ("split", Value::String(s)) => splits.push(s.clone()),
            ("splits", Value::Array(items)) => {
                for item in items {
                    match item {
                        Value::String(s) => splits.push(s.clone()),
                        Value::Array(pair) => {
                            if let Some(Value::String(s)) = pair.first() {
                                splits.push(s.clone());
                            }
                        }
                        _ => {}
                    }
                }
            }
            ("id", Value::Number(n)) => ids.extend(n.as_u64()),
            ("ids", Value::Array(items)) => ids.extend(items.iter().filter_map(Value::as_u64)),
            ("records", Value::Array(items)) => ids.extend(items.iter().filter_map(|r| r.get("id")?.as_u64())),
            (_, Value::Object(_)) => mentions(value, splits, ids),
            _ => {}
        }
    }
}

/// The page for `report`, drawn from its whole history ([`RunReport::history`], kept for
/// failed runs); `None` if the report has no history.
pub fn timeline_html(report: &RunReport) -> Option<String> {
    let events = &report.history;
    if events.is_empty() {
        return None;
    }
    let lanes = lanes(events);
    let first_bad = report.verdicts.iter().filter(|v| !v.passed).filter_map(|v| v.first_bad_event).min();
    let rows: Vec<Value> = events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut kind = serde_json::to_value(&e.kind).unwrap_or_default();
            let (mut splits, mut ids) = (Vec::new(), Vec::new());
            mentions(&kind, &mut splits, &mut ids);
            let cls = class(kind.get("type").and_then(Value::as_str).unwrap_or_default());
            shorten::compact(&mut kind);
            let lane = lanes.iter().position(|l| *l == e.node).unwrap_or_default();
            serde_json::json!([i, e.t_us, lane, cls, shorten::cap(&kind.to_string()), splits, ids])
        })
        .collect();
    let end_us = events.last().map_or(0, |e| e.t_us);
    let data = serde_json::json!({ "lanes": lanes, "events": rows, "first_bad": first_bad, "end_us": end_us });
    // Inside <script>, no "<" may close the element: JSON allows it escaped.
    let data = data.to_string().replace('<', "\\u003c");
    let status = if report.passed() { "PASSED" } else { "FAILED" };
    let title = format!("connsim {status}: {} — seed {}", report.testbed, report.seed);
    let verdicts: Vec<String> = report
        .verdicts
        .iter()
        .filter(|v| !v.passed)
        .map(|v| {
            let at = v.first_bad_event.map_or(String::new(), |i| format!(" (first bad event #{i})"));
            let first = v.evidence.first().map_or(String::new(), |e| format!("\n    - {}", shorten::cap(e)));
            format!("[FAIL] {}: {}{at}{first}", v.check, v.summary)
        })
        .collect();
    let verdicts = format!("{}\nreplay: {}", verdicts.join("\n"), report.replay);
    let status_class = if report.passed() { "" } else { "failed" };
    let values = [("TITLE", escape(&title)), ("STATUS_CLASS", status_class.into()), ("VERDICTS", escape(&verdicts))];
    Some(fill(TEMPLATE, &[&values[..], &[("DATA", data)]].concat()))
}

/// `template` with every `{{KEY}}` replaced by its value, in one pass (a value that holds
/// `{{…}}` stays as it is).
fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}").and_then(|end| values.iter().find(|(k, _)| *k == &after[..end]).map(|kv| (end, kv))) {
            Some((end, (_, value))) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_find_splits_and_records_at_any_depth() {
        let v = serde_json::json!({"type": "appeared", "records": [{"id": 4}, {"id": 9}], "cause": {"split": "s-1"},
            "splits": ["a", ["b", 3]], "ids": [7]});
        let (mut splits, mut ids) = (Vec::new(), Vec::new());
        mentions(&v, &mut splits, &mut ids);
        splits.sort();
        ids.sort();
        assert_eq!((splits, ids), (vec!["a".to_string(), "b".into(), "s-1".into()], vec![4, 7, 9]));
    }

    #[test]
    fn lanes_read_job_master_workers_systems_then_harness() {
        let at = |node: &str| Event { t_us: 0, node: node.into(), kind: crate::history::EventKind::Converged };
        let events: Vec<Event> =
            ["supervisor", "taskexecutor-10", "fs", "harness", "taskexecutor-2", "jobmaster", "log"].map(at).to_vec();
        assert_eq!(
            lanes(&events),
            ["jobmaster", "taskexecutor-2", "taskexecutor-10", "fs", "log", "harness", "supervisor"].map(String::from)
        );
    }

    #[test]
    fn placeholders_fill_in_one_pass() {
        let out = fill("<{{A}}|{{B}}|{{C}}>", &[("A", "{{B}}".into()), ("B", "b".into())]);
        assert_eq!(out, "<{{B}}|b|{{C}}>");
    }

    #[test]
    fn markup_in_the_data_cannot_close_the_script() {
        assert!(!"{\"x\":\"</script>\"}".replace('<', "\\u003c").contains("</"));
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }
}
