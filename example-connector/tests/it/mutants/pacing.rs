//! A source context that ignores the suites' pace: the vacuity rule, with its message.

use connsim_scenarios::suites::{self, source_from_setup, TestData};
use example_connector::source::FeedSourceSetup;

use super::feed;

#[test]
fn a_source_context_that_writes_its_input_up_front_fails_saying_to_honour_pace_ms() {
    let up_front = |d: TestData| FeedSourceSetup { pace_ms: 0, ..feed(d) }; // the bug: ignores the pace
    let outcome = suites::source(source_from_setup("feed-up-front", &["feed"], up_front))
        .only("task failure mid-stream (region)")
        .seeds(5)
        .run();
    let case = &outcome.cases[0];
    assert!(case.vacuity().is_some_and(|why| why.contains("honour `pace_ms`")), "{outcome}");
    let paced = suites::source(source_from_setup("feed-source", &["feed"], feed))
        .only("task failure mid-stream (region)")
        .seeds(5)
        .run();
    assert!(paced.failed_cases().is_empty(), "{paced}");
}
