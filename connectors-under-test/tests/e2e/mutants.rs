//! Every mutant is caught within the first 50 seeds, with the verdict its story predicts.

use connectors_under_test::mutants::{IgnoresSplitsBackSetup, PrematureCommitSetup};
use connectors_under_test::{FileSinkSetup, LogSourceSetup};
use connsim::cluster::FailoverStrategy;
use connsim::{Outcome, Pipeline, Runner};

fn first_caught<'a>(out: &'a Outcome, check: &str) -> &'a connsim::RunReport {
    out.reports
        .iter()
        .find(|r| r.verdict(check).is_some_and(|v| !v.passed))
        .unwrap_or_else(|| panic!("the mutant survived 50 seeds: no seed failed {check}\n{}", out.summary()))
}

#[test]
fn premature_commit_is_caught() {
    let mut r = Runner::new(Pipeline(LogSourceSetup::bounded(8, 5000), PrematureCommitSetup));
    r.seeds(50);
    let out = r.run();
    let report = first_caught(&out, "no-premature-visibility");
    println!("{report}");
    let v = report.verdict("no-premature-visibility").unwrap();
    assert!(v.evidence.iter().any(|e| e.contains("became visible") && e.contains("split input-")), "{v:?}");
    assert!(v.first_bad_event.is_some());
    // After a failure between prepare and completion the replay duplicates records.
    let dup = first_caught(&out, "no-duplicates");
    let v = dup.verdict("no-duplicates").unwrap();
    assert!(
        v.evidence.iter().any(|e| e.contains("visible 2 times") && e.contains("last completed checkpoint")),
        "{v:?}"
    );
}

#[test]
fn ignoring_add_splits_back_is_caught() {
    let mut r = Runner::new(Pipeline(IgnoresSplitsBackSetup(LogSourceSetup::bounded(8, 5000)), FileSinkSetup));
    r.seeds(50).configure(|c| c.job.failover = FailoverStrategy::Region);
    let out = r.run();
    let report = first_caught(&out, "no-loss");
    println!("{report}");
    let v = report.verdict("no-loss").unwrap();
    assert!(v.evidence.iter().any(|e| e.contains(" lost: ") && e.contains("split input-")), "{v:?}");
}
