//! The exchange: readers send to every writer over the gateway, writers align barriers.
//! With alignment every record a completed checkpoint's readers emitted before the barrier
//! is in that checkpoint's committables; a writer that snapshots at the first barrier puts
//! records of slower channels into the next one, and a failover between the two loses them.

use connsim::cluster::{Exchange, FailoverStrategy};
use connsim::probes::{CollectorSetup, GeneratorSetup};
use connsim::{Outcome, Pipeline, Runner};

fn run(exchange: Exchange, aligned: bool, failover: FailoverStrategy, seeds: u64) -> Outcome {
    run_with(exchange, aligned, failover, seeds, |_| {})
}

fn run_with(
    exchange: Exchange,
    aligned: bool,
    failover: FailoverStrategy,
    seeds: u64,
    more: impl Fn(&mut connsim::RunConfig),
) -> Outcome {
    let source = GeneratorSetup { splits: 8, records_per_split: 300, ..Default::default() };
    let mut r = Runner::new(Pipeline(source, CollectorSetup));
    r.seeds(seeds).configure(|c| {
        c.job.exchange = exchange;
        c.job.aligned_barriers = aligned;
        c.job.failover = failover;
        more(c);
    });
    r.run()
}

/// Fewer writers than readers, and more: subtasks host a reader, a writer or both.
#[test]
fn sink_parallelism_differs_from_source_parallelism() {
    for (readers, writers, exchange) in [(4, 2, Exchange::Rebalance), (2, 5, Exchange::KeyBy), (3, 1, Exchange::KeyBy)]
    {
        let out = run_with(exchange, true, FailoverStrategy::Region, 30, |c| {
            c.job.parallelism = readers;
            c.job.sink.writers = Some(writers);
        });
        out.assert_ok();
        out.assert_reached(&["channel-blocked", "restore-from-checkpoint", "failover:region"]);
    }
}

#[test]
fn sink_parallelism_without_an_exchange_fails_the_job_saying_what_to_set() {
    let out = run_with(Exchange::Forward, true, FailoverStrategy::Region, 1, |c| c.job.sink.writers = Some(2));
    let v = out.reports[0].verdict("liveness").expect("liveness is checked");
    assert!(!v.passed && v.summary.contains("needs an exchange") && v.summary.contains("Rebalance"), "{v:?}");
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

/// A subtask that hosts only a writer acknowledges when its writer aligned, which may be
/// before its own trigger arrives: without faults no checkpoint expires waiting for it.
#[test]
fn subtasks_with_only_a_writer_acknowledge_every_checkpoint() {
    let out = run_with(Exchange::Rebalance, true, FailoverStrategy::Region, 10, |c| {
        c.faults = connsim::run::FaultConfig::none();
        c.job.parallelism = 1;
        c.job.sink.writers = Some(3);
    });
    out.assert_ok();
    for r in &out.reports {
        let expired = r.stats.checkpoints_aborted;
        assert_eq!(expired, 0, "seed {}: {expired} checkpoints aborted without any fault:\n{r}", r.seed);
    }
}
