//! The cases a suite adds only where the connector can take them: a new job replacing a
//! stopped one (a sink whose output outlives its job), splits appearing while the job runs
//! (a source whose system grows), and a global committer's task replaced while it runs on.

use super::{case, CaseSpec, Systems};
use crate::block::{self, Target};
use crate::prelude::*;
use connsim::cluster::FailoverStrategy::Region;

/// Stop the job with a savepoint and start a new one: without state, or from an older savepoint.
pub(super) fn new_jobs(cases: &mut Vec<CaseSpec>) {
    // An operator replaces the job: stop it with a savepoint and submit a new one without
    // state, against the output it left. The new job's checkpoints are numbered from 1
    // again, below every id the last job committed: a commit it makes must not be taken
    // for one already done.
    let fresh = Scenario::new("restart without state")
        .then(checkpoint())
        .then(wait(100))
        .then(block::restart_without_state())
        .then(wait(100))
        .then(checkpoint())
        .requires("new-job:without-state");
    cases.insert(cases.len() - 1, case("restart without state", 4, Region, fresh));
    // Or rolls back: a new job from the savepoint before the last one, older than the
    // latest completed checkpoint, whose checkpoint ids go on from that savepoint's.
    let older = Scenario::new("restart from an older savepoint")
        .then(checkpoint())
        .then(stop_with_savepoint())
        .then(wait(100))
        .then(checkpoint())
        .then(wait(50))
        .then(checkpoint())
        .then(block::restart_from_older_savepoint())
        .then(wait(100))
        .then(checkpoint())
        .requires("new-job:older-savepoint");
    cases.insert(cases.len() - 1, case("restart from an older savepoint", 4, Region, older));
}

/// Splits appear while discovery is cut off from the source system, or slow to hear from it.
pub(super) fn growing_source(aimed: &Systems, cases: &mut Vec<CaseSpec>) {
    // Splits appear while the job master cannot reach the source system: discovery must
    // find them once it can, and read them from their start.
    let mut unreachable = Scenario::new("new splits while the source system is unreachable").then(wait(100));
    for s in &aimed.source {
        let cut = Fault::Partition { a: Target::JobMaster, b: Target::System(s.clone()) };
        unreachable = unreachable.then(during(cut, add_splits(2).then(produce(200)).then(wait(150))));
    }
    let mut discovery = case(
        "new splits while the source system is unreachable",
        4,
        Region,
        unreachable.then(produce(100)).then(wait(100)).requires("discovery-faulted"),
    );
    discovery.data.unbounded = true;
    cases.insert(cases.len() - 1, discovery);
    // The source system answers the job master 20 ms late each way (within a client's
    // 50 ms timeout: slow, not lost) for 400 ms while splits are added, and the source
    // looks for new splits every 10 ms: a round of discovery is still out when the next
    // is due, so rounds run back to back and each result reaches the enumerator after the
    // next round started (Flink's fixed-rate discovery with a slow broker). An enumerator
    // that counts a split as known only once a later step for it completes finds it new
    // twice.
    let mut slow = Scenario::new("discovery overlaps slow responses").then(wait(100));
    for s in &aimed.source {
        let late =
            Fault::Delay { ms: 20, kind: None, from: Some(Target::JobMaster), to: Some(Target::System(s.clone())) };
        slow = slow.then(during(late, add_splits(2).then(produce(200)).then(wait(400))));
    }
    let mut overlap = case(
        "discovery overlaps slow responses",
        4,
        Region,
        slow.then(produce(100)).then(wait(100)).requires("discovery-overlapped"),
    );
    overlap.data.unbounded = true;
    overlap.data.discovery_interval_ms = 10;
    cases.insert(cases.len() - 1, overlap);
}

/// The global committer's task executor is cut off from the job master and replaced while the
/// cut-off attempt runs on and is notified late: a zombie committer next to the one that
/// replaced it ([`block::global_committer_notified_late`]). Its commit must be refused or
/// harmless.
pub(super) fn global_committer_zombie(cases: &mut Vec<CaseSpec>) {
    let zombie = Scenario::new("the global committer cut off and replaced (zombie)")
        .then(wait(100))
        .then(block::global_committer_notified_late())
        .then(wait(200))
        .requires("message-delayed")
        .requires("lease-expired")
        .requires("failover:region")
        // The late notification reaches the cut-off committer while its lease runs on most
        // seeds; on the others no checkpoint completed in the window.
        .requires_on("zombie-global-commit", 80);
    cases.insert(cases.len() - 1, case("the global committer cut off and replaced (zombie)", 4, Region, zombie));
}

/// The committers run apart from the writers, three of them for four writers
/// (`committer_parallelism`); committer 0's task executor is cut off from the job master and
/// replaced while the cut-off attempt runs on and is notified late
/// ([`block::global_committer_notified_late`]: committer 0 shares subtask 0's slot, as a
/// global committer does). A zombie committer next to the one that replaced it: its commit
/// must be refused or harmless. `commits_often`: the sink's writers prepare committables at
/// most checkpoints (an exactly-once sink that does not roll to an object store), so the
/// zombie has something to commit on most seeds and the case requires that it did; an
/// at-least-once sink prepares none, an object sink only when a file rolls.
pub(super) fn committer_zombie(cases: &mut Vec<CaseSpec>, commits_often: bool) {
    let zombie = Scenario::new("committers apart, one cut off and replaced (zombie)")
        .committer_parallelism(3)
        .then(wait(100))
        .then(block::global_committer_notified_late())
        .then(wait(200))
        .requires("message-delayed")
        .requires("lease-expired")
        .requires("failover:region");
    let zombie = if commits_often { zombie.requires_on("zombie-commit", 80) } else { zombie };
    cases.insert(cases.len() - 1, case("committers apart, one cut off and replaced (zombie)", 4, Region, zombie));
}
