//! Scripts: what a run does to the cluster between start and the final heal. The scenarios
//! crate builds scripts from blocks; the harness's own default is [`RandomFaults`], the
//! configuration's fault profile.

use super::control::Control;
use crate::cluster::task_executor;
use crate::net::FaultRule;
use std::future::Future;
use std::pin::Pin;

/// A future a script returns; it runs on the supervisor, in virtual time.
pub type ScriptFuture<'a> = Pin<Box<dyn Future<Output = ()> + 'a>>;

/// Drives a running cluster. After the script returns, the harness heals everything and
/// gives the job [`RunConfig::liveness_ms`](super::RunConfig::liveness_ms) to converge.
pub trait Script: Send + Sync + 'static {
    /// How the script reads in a report (for blocks: the Rust code that builds them).
    fn describe(&self) -> String;
    /// Runs the script against the cluster.
    fn drive<'a>(&'a self, control: &'a Control) -> ScriptFuture<'a>;
    /// Settings the script fixes for the job before it starts (an exchange, the sink's
    /// parallelism), over the runner's configuration. The report shows the result.
    fn configure(&self, _config: &mut super::RunConfig) {}
}

/// The configuration's fault profile ([`FaultConfig`](super::FaultConfig)): for the safety
/// phase, drop messages on every link and crash random task executors, each restarting after
/// a random delay.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomFaults;

impl Script for RandomFaults {
    fn describe(&self) -> String {
        "random faults from the run configuration".into()
    }

    fn drive<'a>(&'a self, control: &'a Control) -> ScriptFuture<'a> {
        Box::pin(async move {
            let faults = control.config().faults.clone();
            let safety = faults.safety_ms;
            if faults.rpc_drop_probability > 0.0 && safety > 0 {
                control.add_rule(FaultRule::drop(faults.rpc_drop_probability).window(0, safety));
            }
            let mean = faults.crash_interval_ms_mean;
            if mean > 0 {
                loop {
                    let wait = mean / 2 + control.random(mean + 1);
                    if control.now_ms() + wait >= safety || control.ended() {
                        break;
                    }
                    control.sleep_ms(wait).await;
                    let k = control.random(control.subtasks() as u64) as usize;
                    let delay = 1 + control.random(faults.restart_delay_ms_max.max(1));
                    control.crash_for(&task_executor(k), delay);
                }
            }
            while control.now_ms() < safety && !control.ended() {
                control.sleep_ms(20.min(safety - control.now_ms())).await;
            }
        })
    }
}
