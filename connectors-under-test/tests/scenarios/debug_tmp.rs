use connectors_under_test::{LogSourceSetup, TxnLogSinkSetup};
use connsim::run::{Pipeline, Runner};
use connsim_scenarios::prelude::*;

#[test]
fn debug_one() {
    let mut runner = Runner::new(Pipeline(LogSourceSetup::unbounded(8, 1000, 0), TxnLogSinkSetup { partitions: 4 }));
    runner.seeds(1).first_seed(130).configure(|c| c.job.failover = connsim::cluster::FailoverStrategy::Global);
    let s = Scenario::new("shrunk from seed 130")
    .then(during(Fault::Partition { a: Target::Worker(Worker::Nth(0)), b: job_master() }, checkpoint().then(wait(123))))
    .then(wait(99))
    .then(checkpoint_timeout().repeat(2))
    .then(stop_with_savepoint())
    .then(wait(138))
    .then(during(Fault::Delay { ms: 164, kind: None, from: None, to: None }, checkpoint().then(savepoint_and_rescale(4))));
    let out = s.run(&mut runner);
    for r in &out.outcome.reports {
        std::fs::write("/tmp/h46.jsonl", connsim::history::to_json_lines(&r.history)).unwrap();
        println!("{r}");
    }
}
