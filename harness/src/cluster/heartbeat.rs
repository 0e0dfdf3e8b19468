//! Failure detection: the job master pings, for every subtask, the task executor it is
//! deployed on; one that misses too many pings is reported lost (unreachable), one that
//! answers that it does not run the expected attempt is reported failed. Each ping also
//! renews the attempt's lease on its task executor (see `taskexecutor`).

use super::protocol::{task_executor, Addressed, ToTask};
use crate::net::Endpoint;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// Per subtask, the task executor and attempt the job master expects there (`None`: not
/// deployed yet).
pub(crate) type Expected = Arc<Mutex<Vec<Option<(usize, u64)>>>>;

/// A lost subtask attempt and why.
pub(crate) struct Lost {
    pub subtask: usize,
    pub attempt: u64,
    pub cause: &'static str,
    /// Its task executor did not answer (rather than answering without the attempt).
    pub unreachable: bool,
}

pub(crate) fn start(
    endpoint: Endpoint,
    expected: Expected,
    interval: Duration,
    misses_max: u32,
    lost: mpsc::UnboundedSender<Lost>,
) {
    let n = expected.lock().unwrap().len();
    for subtask in 0..n {
        let (endpoint, expected, lost) = (endpoint.clone(), expected.clone(), lost.clone());
        madsim::task::spawn(async move {
            let mut misses = 0;
            loop {
                madsim::time::sleep(interval).await;
                let Some((executor, attempt)) = expected.lock().unwrap()[subtask] else {
                    misses = 0;
                    continue;
                };
                let ping = Addressed { subtask, msg: ToTask::Ping { attempt } };
                let answer = endpoint.call::<_, Option<u64>>(&task_executor(executor), "Ping", &ping, interval).await;
                // The expectation may have moved on while the ping was in flight.
                if expected.lock().unwrap()[subtask] != Some((executor, attempt)) {
                    misses = 0;
                    continue;
                }
                let (cause, unreachable) = match answer {
                    Ok(Some(running)) if running == attempt => {
                        misses = 0;
                        continue;
                    }
                    Ok(_) => ("task executor does not run the attempt", false),
                    Err(_) => {
                        misses += 1;
                        if misses < misses_max {
                            continue;
                        }
                        ("task executor missed heartbeats", true)
                    }
                };
                misses = 0;
                let _ = lost.send(Lost { subtask, attempt, cause, unreachable });
            }
        });
    }
}
