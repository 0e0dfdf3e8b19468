//! The exchange: readers send to every writer over the gateway, writers align barriers.
//! With alignment every record a completed checkpoint's readers emitted before the barrier
//! is in that checkpoint's committables; a writer that snapshots at the first barrier puts
//! records of slower channels into the next one, and a failover between the two loses them.

use connsim::cluster::{Exchange, FailoverStrategy};
use connsim::probes::{CollectorSetup, GeneratorSetup};
use connsim::{Outcome, Pipeline, Runner};

fn run(exchange: Exchange, aligned: bool, failover: FailoverStrategy, seeds: u64) -> Outcome {
    let source = GeneratorSetup { splits: 8, records_per_split: 300, ..Default::default() };
    let mut r = Runner::new(Pipeline(source, CollectorSetup));
    r.seeds(seeds).configure(|c| {
        c.job.exchange = exchange;
        c.job.aligned_barriers = aligned;
        c.job.failover = failover;
    });
    r.run()
}

#[test]
fn rebalance_with_aligned_barriers_passes_under_faults() {
    let out = run(Exchange::Rebalance, true, FailoverStrategy::Region, 40);
    out.assert_ok();
    out.assert_reached(&[
        "channel-blocked",
        "exchange-resent",
        "backpressure",
        "alignment-aborted",
        "restore-from-checkpoint",
        "failover:region",
    ]);
}

#[test]
fn key_by_with_aligned_barriers_passes_under_faults() {
    let out = run(Exchange::KeyBy, true, FailoverStrategy::Global, 40);
    out.assert_ok();
    out.assert_reached(&["channel-blocked", "exchange-resent", "restore-from-checkpoint", "failover:global"]);
}

#[test]
fn snapshotting_at_the_first_barrier_loses_records() {
    let out = run(Exchange::Rebalance, false, FailoverStrategy::Region, 40);
    let caught = out
        .reports
        .iter()
        .find(|r| !r.passed())
        .unwrap_or_else(|| panic!("no seed caught the unaligned writer: {}", out.summary()));
    assert!(caught.verdict("no-loss").is_some_and(|v| !v.passed), "{caught}");
}
