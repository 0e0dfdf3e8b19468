use connectors_under_test::{FileSinkSetup, LogSourceSetup, TxnLogSinkSetup};
use connsim::cluster::FailoverStrategy;
use connsim::{Pipeline, Runner};

#[test]
fn trial_file() {
    let mut r = Runner::new(Pipeline(LogSourceSetup::bounded(8, 5000), FileSinkSetup));
    r.seeds(10).configure(|c| c.job.failover = FailoverStrategy::Region);
    let out = r.run();
    println!("{}", out.summary());
    println!("{}", out.reports[0]);
    out.assert_ok();
}

#[test]
fn trial_txn() {
    let mut r = Runner::new(Pipeline(LogSourceSetup::bounded(8, 5000), TxnLogSinkSetup { partitions: 4 }));
    r.seeds(10).configure(|c| c.job.failover = FailoverStrategy::Global);
    let out = r.run();
    println!("{}", out.summary());
    println!("{}", out.reports[0]);
    out.assert_ok();
}
