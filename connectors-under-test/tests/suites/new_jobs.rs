//! A new job against the output the last one left: started without state, or from a
//! savepoint older than the latest checkpoint. Every reference sink passes both cases; the
//! new job reads its input again and its sink writes it again (the records the last job had
//! made visible show twice, within what `no-duplicates` allows a new job), and its commits
//! land though its checkpoint ids are below the last job's.

use connectors_under_test::catalogue;

const CASES: [(&str, &str); 2] = [
    ("restart without state", "new-job:without-state"),
    ("restart from an older savepoint", "new-job:older-savepoint"),
];

#[test]
fn every_reference_sink_passes_a_new_job_that_writes_its_input_again() {
    for target in ["file-sink", "txn-log-sink", "table-sink (global committer)", "log-source -> file-sink"] {
        for (case, mark) in CASES {
            let outcome = catalogue::suite(target).only(case).seeds(3).run();
            assert!(outcome.failed_cases().is_empty(), "{target} {case:?}:\n{outcome}");
            for r in outcome.cases.iter().flat_map(|c| &c.reports) {
                assert!(r.marks.iter().any(|m| m == mark), "{target} {case:?} seed {} missed {mark}", r.seed);
                let dups = r.verdict("no-duplicates").expect("the check ran");
                assert!(
                    dups.summary.contains("none more than once per job that read them again"),
                    "{target} {case:?} seed {}: the new job wrote nothing the last one had ({})",
                    r.seed,
                    dups.summary
                );
            }
        }
    }
}
