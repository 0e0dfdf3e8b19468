//! Scenario blocks that compose like building blocks (crash, partition, checkpoint, …),
//! generated scenarios that shrink, and ready-made suites. Not written yet: today the
//! fault profile of a run is [`connsim::run::FaultConfig`].
