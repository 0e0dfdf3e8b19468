//! rdkafka's blocking calls, run off the async runtime's threads.

/// Runs `call` on tokio's blocking pool and waits for it without blocking the caller's
/// thread; a panic in `call` goes on in the caller.
pub(crate) async fn blocking<R, F>(call: F) -> R
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    match tokio::task::spawn_blocking(call).await {
        Ok(result) => result,
        Err(e) => match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => panic!("a blocking rdkafka call did not finish (the runtime shut down?): {e}"),
        },
    }
}
