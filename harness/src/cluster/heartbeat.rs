//! Failure detection: the job master pings every task executor; a task executor that misses
//! too many pings, or answers that it does not run the expected attempt, is reported lost.

use super::protocol::{task_executor, ToTask};
use crate::net::Endpoint;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// The attempt the job master expects on each task executor (`None`: not deployed yet).
pub(crate) type Expected = Arc<Mutex<Vec<Option<u64>>>>;

/// A lost subtask attempt and why.
pub(crate) struct Lost {
    pub subtask: usize,
    pub attempt: u64,
    pub cause: &'static str,
}

pub(crate) fn start(endpoint: Endpoint, expected: Expected, interval: Duration, misses_max: u32, lost: mpsc::UnboundedSender<Lost>) {
    let n = expected.lock().unwrap().len();
    for subtask in 0..n {
        let (endpoint, expected, lost) = (endpoint.clone(), expected.clone(), lost.clone());
        madsim::task::spawn(async move {
            let te = task_executor(subtask);
            let mut misses = 0;
            loop {
                madsim::time::sleep(interval).await;
                let Some(attempt) = expected.lock().unwrap()[subtask] else {
                    misses = 0;
                    continue;
                };
                let answer = endpoint
                    .call::<_, Option<(usize, u64)>>(&te, "Ping", &ToTask::Ping, interval)
                    .await;
                // The expectation may have moved on while the ping was in flight.
                if expected.lock().unwrap()[subtask] != Some(attempt) {
                    continue;
                }
                let cause = match answer {
                    Ok(Some(running)) if running == (subtask, attempt) => {
                        misses = 0;
                        continue;
                    }
                    Ok(_) => "task executor does not run the attempt",
                    Err(_) => {
                        misses += 1;
                        if misses < misses_max {
                            continue;
                        }
                        "task executor missed heartbeats"
                    }
                };
                misses = 0;
                let _ = lost.send(Lost { subtask, attempt, cause });
            }
        });
    }
}
