//! Retrying idempotent calls to an external system.

use connsim::{ConnectorError, RetryHint};
use std::future::Future;
use std::time::Duration;

/// Retries `op` while it fails with a retriable error, up to `attempts` times; then the task
/// fails (and recovers from the last checkpoint). Only for idempotent operations.
pub async fn idempotent<T, F, Fut>(attempts: u32, mut op: F) -> Result<T, ConnectorError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, ConnectorError>>,
{
    let mut tries = 0;
    loop {
        match op().await {
            Err(e) if e.hint == RetryHint::Retry => {
                tries += 1;
                if tries >= attempts {
                    return Err(ConnectorError::fail_task(format!("gave up after {tries} tries: {e}")));
                }
                madsim::time::sleep(Duration::from_millis(5)).await;
            }
            other => return other,
        }
    }
}
