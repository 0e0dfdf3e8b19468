//! A differential test of the simulated broker and client against an implementation nobody
//! here wrote: librdkafka's mock cluster, through the real rdkafka.
//!
//! Each script (`compat/scripts.rs`, written only against the API both halves of the crate
//! share) is run twice and writes a transcript of what the application sees:
//!
//! - in the simulation (`--cfg madsim`, every `cargo test`): against connsim's simulated
//!   log, on two seeds whose transcripts must be equal; with `CONNSIM_COMPAT_DIR` set, the
//!   transcript is written to `<dir>/<script>.txt`;
//! - without madsim (`scripts/check-rdkafka-compat`): through the real rdkafka against a
//!   fresh `rdkafka::mocking::MockCluster`, and compared line by line with the simulated
//!   transcript read from `CONNSIM_COMPAT_DIR`.
//!
//! Lines must be equal, but for a line a script tags (`transcript::tag`, each explained in
//! docs/rdkafka-compat.md with the KIP, Kafka or librdkafka source that says which side is
//! right): a known departure of the mock from a real broker (`mock:…`), or an open
//! difference of the simulated half, reported to be fixed there (`sim:…`; accepted until
//! then, failed with `CONNSIM_COMPAT_STRICT` set). Scripts named in [`NOT_YET_SIMULATED`]
//! run only against the mock (their transcript is printed, not compared) until the
//! simulated half has what they need.

extern crate connsim_rdkafka as rdkafka;

// A test crate's root is a `mod.rs`-style file: its modules are named by path.
#[path = "compat/compare.rs"]
mod compare;
#[cfg(not(madsim))]
#[path = "compat/mock.rs"]
mod mock;
#[path = "compat/scripts.rs"]
mod scripts;
#[cfg(madsim)]
#[path = "compat/sim.rs"]
mod sim;
#[path = "compat/transcript.rs"]
mod transcript;

#[cfg(not(madsim))]
use mock::run;
#[cfg(madsim)]
use sim::run;

/// The directory the simulated transcripts are written to and read from.
pub const DIR_VAR: &str = "CONNSIM_COMPAT_DIR";

/// Scripts the simulated half cannot run yet. The simulation skips them; the comparison runs
/// them against the mock only, prints the transcript, and says so. Remove a name to switch
/// its comparison on. (The consumer-group scripts, `group_*`, were written for this list
/// before the simulated group coordinator landed; they are compared now.)
pub const NOT_YET_SIMULATED: &[&str] = &[];

macro_rules! scripts {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                run(stringify!($name), scripts::$name);
            }
        )*
        /// Every script, by name.
        const ALL: &[&str] = &[$(stringify!($name)),*];
    };
}

scripts! {
    idempotent_produce_and_delivered_offsets,
    transactions_read_back_committed_and_uncommitted,
    fencing_by_a_second_producer_of_the_transactional_id,
    abort_then_a_new_transaction,
    send_offsets_to_transaction_then_committed_offsets,
    consumer_commit_committed_and_position,
    offset_resets_and_assigned_offsets,
    watermarks_of_partitions,
    headers_and_keys_round_trip,
    fetch_metadata_of_a_missing_topic,
    group_subscribe_assigns_every_partition,
    group_a_second_member_takes_half_the_partitions,
    group_commits_carry_over_to_the_next_member,
}

#[test]
fn the_gate_names_scripts_that_exist() {
    for name in NOT_YET_SIMULATED {
        assert!(ALL.contains(name), "NOT_YET_SIMULATED names {name}, which is no script");
    }
}
