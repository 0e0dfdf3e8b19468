//! The object stores' applied-late case: writes whose answer never came that the bucket
//! applies after the client's next request (a request stuck on a connection the client gave
//! up on, a PUT the front end accepted and the store committed late).

use super::{case, CaseSpec, Systems};
use crate::prelude::*;
use connsim::cluster::FailoverStrategy::Region;

/// What the case holds: the requests that make something visible or publish it.
pub const HELD_KINDS: [&str; 3] = ["s3.put", "s3.copy", "s3.complete"];

/// The held windows: every 150 ms, the puts, copies and completions sent to `stores` in the
/// next 60 ms are held until their sender's next request to the store and land right behind
/// it (at most 1.5 s late). Each outlives the client's timeout (100 ms): the client has its
/// answer (a timeout, the conditional ones not retried) before the write lands, and its next
/// step (a look, a retry, a listing) comes first.
pub fn held_writes(stores: &[String]) -> Block {
    let mut window = wait(60);
    for s in stores {
        for kind in HELD_KINDS {
            let to = Some(Target::System(s.clone()));
            let hold = Fault::Hold { until: "s3.".into(), max_ms: 1_500, kind: Some(kind.into()), from: None, to };
            window = during(hold, window);
        }
    }
    window.then(wait(90)).repeat(8)
}

/// "writes land after their client's next request": a correct sink takes a failed write as
/// unknown, never as failed (the clean-up-after-an-ambiguous-error class, Iceberg #3717).
pub(super) fn applied_late(aimed: &Systems, cases: &mut Vec<CaseSpec>) {
    if aimed.stores.is_empty() {
        return;
    }
    let name = "writes land after their client's next request";
    let late = Scenario::new(name).then(wait(100)).then(held_writes(&aimed.stores)).then(wait(300));
    cases.insert(cases.len() - 1, case(name, 4, Region, late.requires_on("request-applied-late", 50)));
}
