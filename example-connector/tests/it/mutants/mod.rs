//! Bugs in the connector's own serializer and deserializer, caught by its default suites with
//! no opt-in: the suites give the sink test records as the connector's own events and read
//! back what a downstream reader decodes from the store's bytes; they trace the events the
//! source decodes from the feed's messages back to the records the feed was given.

/// `Source<Event>` for a variant of the feed source, a tuple struct whose first field is the
/// [`example_connector::source::FeedSource`]: everything but the reader is the feed source's.
/// `create_reader` is `|this, ctx| …`, with `this` the variant.
macro_rules! feed_source_variant {
    ($ty:ty, $reader:ty, |$this:ident, $ctx:ident| $make:expr) => {
        impl connsim::api::Source<example_connector::event::Event> for $ty {
            type Split = example_connector::source::FeedSplit;
            type EnumState = example_connector::source::FeedEnumState;
            type Enumerator = example_connector::source::FeedEnumerator;
            type Reader = $reader;
            fn boundedness(&self) -> connsim::api::Boundedness {
                self.0.boundedness()
            }
            fn create_enumerator(&self, ctx: &connsim::api::EnumeratorContext<Self::Split>) -> Self::Enumerator {
                self.0.create_enumerator(ctx)
            }
            fn restore_enumerator(
                &self,
                ctx: &connsim::api::EnumeratorContext<Self::Split>,
                state: Self::EnumState,
            ) -> Self::Enumerator {
                self.0.restore_enumerator(ctx, state)
            }
            fn create_reader(&self, $ctx: connsim::api::ReaderContext) -> $reader {
                let $this = self;
                $make
            }
        }
    };
}

mod formats;
mod new_jobs;
mod pacing;
mod reading;
mod watermarks;

use connsim_scenarios::suites::{self, Suite, TestData};
use example_connector::source::FeedSourceSetup;

pub(super) fn feed(data: TestData) -> FeedSourceSetup {
    FeedSourceSetup {
        partitions: data.splits,
        records: data.records,
        pace_ms: data.pace_ms,
        unbounded: data.unbounded,
        skew_ms: data.skew_ms,
    }
}

/// Runs `suite` until a fixed case fails `check` within 20 seeds; the correct connector
/// passes the same case and seed. Returns the failing report's verdict of `check`.
pub(super) fn caught(suite: Suite, reference: Suite, check: &str) -> connsim::checks::Verdict {
    caught_report(suite, reference, check).1.verdict(check).expect("the check ran").clone()
}

/// [`caught`], returning the catching case's name and the whole failing report.
pub(super) fn caught_report(suite: Suite, reference: Suite, check: &str) -> (String, connsim::RunReport) {
    let fixed =
        |r: &suites::CaseResult| r.case != "swarm" && r.reports.iter().any(|x| x.failed_checks().contains(&check));
    let outcome = suite.seeds(20).run_until(|_, _, _| {}, fixed);
    let case = outcome.cases.iter().find(|c| fixed(c)).unwrap_or_else(|| panic!("survived:\n{outcome}"));
    let report = case.reports.iter().find(|r| r.failed_checks().contains(&check)).expect("found above");
    let same = reference.only(&case.case).first_seed(report.seed).seeds(1).run();
    assert!(same.failed_cases().is_empty(), "the correct connector fails the same case and seed:\n{same}");
    println!("caught by {check} in {:?} seed {}", case.case, report.seed);
    (case.case.clone(), report.clone())
}
