//! Job settings a scenario fixes for itself: what is decided when the job starts and no
//! block can change while it runs (an exchange between readers and writers, the sink's own
//! parallelism and its committers', how many checkpoints may be pending at once). They apply over the runner's
//! configuration, seed by seed, so a generated scenario can draw them per seed and a saved
//! case replays with them.

use connsim::cluster::Exchange;
use connsim::run::RunConfig;
use serde::{Deserialize, Serialize};

/// Job settings over the runner's configuration; `None` keeps the runner's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSettings {
    /// The exchange between readers and writers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<Exchange>,
    /// Writers behind the exchange (needs an exchange).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_parallelism: Option<usize>,
    /// Checkpoints pending at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrent_checkpoints: Option<usize>,
    /// Committers as tasks of their own, this many ([`connsim::cluster::SinkParallelism::committers`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub committer_parallelism: Option<usize>,
    /// The scenario makes a loss unavoidable (an upload expires before its checkpoint's
    /// commit can run): a loss the connector declares passes `declared-loss`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub declared_loss: bool,
}

impl JobSettings {
    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == JobSettings::default()
    }

    /// Applies what is set to `config`.
    pub fn apply(&self, config: &mut RunConfig) {
        if let Some(exchange) = self.exchange {
            config.job.exchange = exchange;
        }
        if let Some(n) = self.sink_parallelism {
            config.job.sink.writers = Some(n);
        }
        if let Some(n) = self.concurrent_checkpoints {
            config.job.checkpoints.max_concurrent = n;
        }
        if let Some(n) = self.committer_parallelism {
            config.job.sink.committers = Some(n);
        }
        if self.declared_loss {
            config.declared_loss_allowed = true;
        }
    }

    /// Checks the settings can run; the error says what to change.
    pub fn validate(&self) -> Result<(), String> {
        if self.sink_parallelism == Some(0) {
            return Err("sink_parallelism(0): a job needs at least one writer; use 1 or more".into());
        }
        if self.sink_parallelism.is_some() && self.exchange == Some(Exchange::Forward) {
            return Err(format!(
                "sink_parallelism({}) with exchange(Exchange::Forward): a chained job has one writer per reader; \
                 use Exchange::Rebalance or Exchange::KeyBy",
                self.sink_parallelism.unwrap_or_default()
            ));
        }
        if self.committer_parallelism == Some(0) {
            return Err("committer_parallelism(0): use 1 or more committers, or leave it unset to chain each \
                        writer's committer to it"
                .into());
        }
        if self.concurrent_checkpoints == Some(0) {
            return Err("concurrent_checkpoints(0): at least one checkpoint must be allowed; use 1 or more".into());
        }
        Ok(())
    }

    /// The builder calls that set these, as Rust (`.exchange(..)` and so on).
    pub fn to_rust(&self) -> String {
        let mut s = String::new();
        if let Some(e) = self.exchange {
            s.push_str(&format!("\n    .exchange(Exchange::{e:?})"));
        }
        if let Some(n) = self.sink_parallelism {
            s.push_str(&format!("\n    .sink_parallelism({n})"));
        }
        if let Some(n) = self.concurrent_checkpoints {
            s.push_str(&format!("\n    .concurrent_checkpoints({n})"));
        }
        if let Some(n) = self.committer_parallelism {
            s.push_str(&format!("\n    .committer_parallelism({n})"));
        }
        if self.declared_loss {
            s.push_str("\n    .loss_may_be_declared()");
        }
        s
    }
}
