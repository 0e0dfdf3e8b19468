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

/// An rdkafka [`GroupList`](rdkafka::groups::GroupList) carried back from the blocking pool:
/// rdkafka does not mark it `Send`, though nothing in it is tied to a thread.
pub(crate) struct SentGroupList(pub(crate) rdkafka::groups::GroupList);

// SAFETY: a `GroupList` owns one `rd_kafka_group_list` that librdkafka allocated for the call
// (`rd_kafka_list_groups`) and no one else refers to: it is only read through `&self`, and freed
// by `rd_kafka_group_list_destroy`, which any thread may call. rdkafka's `Metadata`, a list of
// the same kind, is `Send`; the group list only lacks the declaration. It is moved once, from
// the blocking pool's thread to the caller.
unsafe impl Send for SentGroupList {}
