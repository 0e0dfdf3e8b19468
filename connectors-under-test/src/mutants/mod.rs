//! Mutants: deliberately buggy connectors, one bug per file. Each wraps a reference
//! connector and changes one behaviour; its doc tells the real-world bug it reproduces, the
//! check that catches it, and how it is found. `tests/suites/mutants.rs` proves every one is
//! caught by a suite case with the verdict its story predicts.

pub mod buggy_file_sink;
pub mod buggy_log_source;
pub mod buggy_object_sink;
pub mod buggy_table_sink;

mod aborts_peers_transactions;
mod adopts_pending_files;
mod assigns_unregistered;
mod caches_schema;
mod cleans_up_after_ambiguous_error;
mod cleans_up_on_stop;
mod commits_all_on_notify;
mod copies_on_first_try_clash;
mod copies_recovered_files;
mod dedupes_by_reading_back;
mod drops_final_committables;
mod drops_recovered_committables;
mod drops_stale_prefetch;
mod forgets_removed_transactions;
mod gives_up_on_error_replies;
mod holds_commits_back;
mod holds_new_splits;
mod idles_on_refusal;
mod ignores_splits_back;
mod ignores_writer_state;
mod in_progress_visible;
mod initializes_twice;
pub mod kafka;
mod leaks_across_runs;
mod lossy_writer_state;
mod mishandles_pause;
mod no_flush_on_barrier;
mod no_more_splits_after_restore;
mod non_idempotent_commit;
mod partition_by_attempt;
mod premature_commit;
mod relists_stale_file;
mod resets_to_latest;
mod restarts_returned_splits;
mod restores_fetched_watermark;
mod retries_at_the_barrier;
mod skips_by_another_jobs_checkpoint;
mod skips_restored_checkpoint;
mod snapshot_omits_pending;
mod snapshots_fetch_position;
mod stale_output_version;
mod stale_reader_snapshot;
pub mod stops_at_last_offset;
mod trusts_its_own_commits;
mod trusts_server_length;
mod unstamped_recovered_commit;
mod unsynced_final_file;
mod writes_twice;

pub use aborts_peers_transactions::{AbortsPeersTransactionsSetup, AbortsPeersTransactionsSink};
pub use adopts_pending_files::AdoptsPendingFiles;
pub use assigns_unregistered::AssignsUnregistered;
pub use buggy_file_sink::{BuggyFileSinkSetup, FileBug};
pub use buggy_log_source::{BuggySetup, LogBug};
pub use buggy_object_sink::{BuggyObjectSinkSetup, ObjectBug};
pub use buggy_table_sink::{BuggyTableSinkSetup, TableBug};
pub use caches_schema::{CachesSchema, CachesSchemaSetup};
pub use cleans_up_after_ambiguous_error::{CleansUpAfterAmbiguousError, CleansUpAfterAmbiguousErrorSetup};
pub use cleans_up_on_stop::{CleansUpOnStopSetup, CleansUpOnStopSink, CleansUpOnStopWriter};
pub use commits_all_on_notify::{CommitsOnNotifySetup, CommitsOnNotifySink, CommitsOnNotifyWriter};
pub use copies_on_first_try_clash::CopiesOnFirstTryClash;
pub use copies_recovered_files::CopiesRecoveredFiles;
pub use dedupes_by_reading_back::{DedupesByReadingBackSetup, DedupesByReadingBackSink, DedupingWriter};
pub use drops_final_committables::DropsFinalCommittables;
pub use drops_recovered_committables::DropsRecoveredCommittables;
pub use drops_stale_prefetch::{DropsStalePrefetchSetup, DropsStalePrefetchSource, PrefetchingReader, StalePrefetch};
pub use forgets_removed_transactions::{ForgetsRemovedTransactionsSetup, ForgetsRemovedTransactionsSink};
pub use gives_up_on_error_replies::GivesUpOnErrorReplies;
pub use holds_commits_back::{HoldsCommitsBackCommitter, HoldsCommitsBackSetup, HoldsCommitsBackSink};
pub use holds_new_splits::HoldsNewSplits;
pub use idles_on_refusal::{IdlesOnRefusal, IdlesOnRefusalSetup, IdlesOnRefusalSource, RefusalIdleReader};
pub use ignores_splits_back::{IgnoresSplitsBack, IgnoresSplitsBackSetup, IgnoresSplitsBackSource};
pub use ignores_writer_state::{IgnoresStateSetup, IgnoresStateSink};
pub use in_progress_visible::InProgressVisible;
pub use initializes_twice::{InitializesTwice, InitializesTwiceSetup, InitializesTwiceSource};
pub use leaks_across_runs::LeaksAcrossRuns;
pub use lossy_writer_state::{LossyStateSetup, LossyStateSink, LossyStateWriter, StateRecord};
pub use mishandles_pause::{MishandlesPauseReader, MishandlesPauseSetup, MishandlesPauseSource, PauseBug};
pub use no_flush_on_barrier::{NoFlushSetup, NoFlushSink, NoFlushWriter};
pub use no_more_splits_after_restore::NoMoreSplitsAfterRestore;
pub use non_idempotent_commit::NonIdempotentCommit;
pub use partition_by_attempt::{PartitionByAttemptSetup, PartitionByAttemptSink};
pub use premature_commit::{PrematureCommitSetup, PrematureCommitSink, PrematureCommitWriter};
pub use relists_stale_file::{RelistsStaleFileSetup, RelistsStaleFileSink, RelistsStaleFileWriter};
pub use resets_to_latest::ResetsToLatest;
pub use restarts_returned_splits::RestartsReturnedSplits;
pub use restores_fetched_watermark::{
    FetchTime, FetchTimeEmitter, FetchTimeReader, RestoresFetchedWatermarkSetup, RestoresFetchedWatermarkSource,
};
pub use retries_at_the_barrier::{RetriesAtTheBarrierSetup, RetriesAtTheBarrierSink, RetryingWriter};
pub use skips_by_another_jobs_checkpoint::SkipsByAnotherJobsCheckpoint;
pub use skips_restored_checkpoint::SkipsRestoredCheckpoint;
pub use snapshot_omits_pending::SnapshotOmitsPending;
pub use snapshots_fetch_position::{
    FetchPosition, FetchPositionEmitter, FetchPositionReader, SnapshotsFetchPositionSetup, SnapshotsFetchPositionSource,
};
pub use stale_output_version::StaleOutputVersionSetup;
pub use stale_reader_snapshot::StaleReaderSnapshot;
pub use trusts_its_own_commits::TrustsItsOwnCommits;
pub use trusts_server_length::TrustsServerLength;
pub use unstamped_recovered_commit::UnstampedRecoveredCommit;
pub use unsynced_final_file::UnsyncedFinalFile;
pub use writes_twice::{WritesTwiceSetup, WritesTwiceSink, WritesTwiceWriter};
