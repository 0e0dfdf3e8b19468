//! Nodes by name: which are down, crashing and restarting them, and changing an external
//! system's settings.

use super::Control;
use crate::cluster::{task_executor, JOB_MASTER};
use crate::history::{Cause, EventKind};
use crate::systems::{Setting, SettingEnv};
use madsim::runtime::NodeHandle;
use std::time::Duration;

impl Control {
    /// Names of the external systems.
    pub fn systems(&self) -> Vec<String> {
        self.inner.nodes.lock().unwrap().systems.keys().cloned().collect()
    }

    /// Whether a node is down now.
    pub fn is_down(&self, node: &str) -> bool {
        self.inner.nodes.lock().unwrap().down.contains(node)
    }

    pub(super) fn node_handle(&self, node: &str) -> Option<NodeHandle> {
        let nodes = self.inner.nodes.lock().unwrap();
        if node == JOB_MASTER {
            return Some(nodes.job_master.clone());
        }
        if let Some((n, _)) = nodes.systems.get(node) {
            return Some(n.clone());
        }
        (0..nodes.executors.len()).find(|&i| task_executor(i) == node).map(|i| nodes.executors[i].clone())
    }

    /// Changes a server-side setting of the external system `system`. An unknown system or a
    /// setting it does not have is an error naming what there is; either way the history
    /// shows the step.
    pub fn configure(&self, system: &str, setting: &Setting) -> Result<(), String> {
        let model = self.inner.nodes.lock().unwrap().systems.get(system).map(|(_, s)| s.clone());
        let env = SettingEnv { seed: self.random(u64::MAX), history: self.history().clone() };
        let result = match model {
            Some(model) => model.configure(setting, &env),
            None => Err(format!("there is no system named {system:?} (systems: {:?})", self.systems())),
        };
        match &result {
            Ok(()) => self.step(format!("{system}: {setting:?}")),
            Err(e) => self.step(format!("setting skipped: {e}")),
        }
        result
    }

    /// Crashes a node (the job master, `taskexecutor-N` or an external system by name):
    /// its tasks stop, messages to it are lost, and an external system loses what it keeps
    /// only in memory. False if the node is unknown, already down, or the job has ended
    /// (then the skip is a step in the history, so the report shows it).
    pub fn crash(&self, node: &str) -> bool {
        if self.is_down(node) {
            return false;
        }
        if self.ended() {
            self.step(format!("crash of {node} skipped: the job already ended"));
            return false;
        }
        self.crash_now(node)
    }

    pub(super) fn crash_now(&self, node: &str) -> bool {
        let Some(handle) = self.node_handle(node) else {
            self.step(format!("crash skipped: there is no node named {node:?} (systems: {:?})", self.systems()));
            return false;
        };
        self.inner.nodes.lock().unwrap().down.insert(node.to_string());
        self.inner.gateway.node_down(node);
        self.inner.handle.kill(handle.id());
        let system = self.inner.nodes.lock().unwrap().systems.get(node).map(|(_, s)| s.clone());
        self.record(EventKind::Crashed { node: node.to_string() });
        if let Some(system) = system {
            system.crash();
            self.inner.observer.observe(Cause::Crash { node: node.to_string() });
        }
        true
    }

    /// Restarts a crashed node (its init task runs again). False if it was not down.
    pub fn restart(&self, node: &str) -> bool {
        if !self.inner.nodes.lock().unwrap().down.remove(node) {
            return false;
        }
        let Some(handle) = self.node_handle(node) else { return false };
        self.inner.handle.restart(handle.id());
        self.record(EventKind::Restarted { node: node.to_string() });
        if self.inner.nodes.lock().unwrap().systems.contains_key(node) {
            self.inner.observer.observe(Cause::Restart { node: node.to_string() });
        }
        true
    }

    /// Crashes and restarts every external system once, whatever the job's state: what a
    /// sink committed must survive it.
    pub(crate) async fn restart_systems(&self) {
        for node in self.systems() {
            if !self.is_down(&node) {
                self.crash_now(&node);
            }
        }
        self.sleep_ms(1).await;
        for node in self.systems() {
            self.restart(&node);
        }
    }

    /// Freezes a node for `ms` (a long garbage-collection pause, a stopped VM): none of its
    /// tasks runs, calls to it time out, messages for it wait in its inbox; then it goes on
    /// where it stopped, its timers long expired. False if the node is unknown or down, or
    /// the job has ended (then the skip is a step in the history).
    pub fn pause_for(&self, node: &str, ms: u64) -> bool {
        if self.ended() {
            self.step(format!("pause of {node} skipped: the job already ended"));
            return false;
        }
        let Some(handle) = self.node_handle(node) else {
            self.step(format!("pause skipped: there is no node named {node:?} (systems: {:?})", self.systems()));
            return false;
        };
        if self.is_down(node) {
            self.step(format!("pause of {node} skipped: it is down"));
            return false;
        }
        self.inner.handle.pause(handle.id());
        self.record(EventKind::Paused { node: node.to_string(), ms });
        let (weak, node) = (self.weak(), node.to_string());
        madsim::task::spawn(async move {
            madsim::time::sleep(Duration::from_millis(ms.max(1))).await;
            if let Some(inner) = weak.upgrade() {
                let control = Control { inner };
                // A node crashed meanwhile was restarted unpaused, or stays down.
                if let Some(handle) = control.node_handle(&node) {
                    control.inner.handle.resume(handle.id());
                }
            }
        });
        true
    }

    /// Crashes a node and restarts it `delay_ms` later (in the background).
    pub fn crash_for(&self, node: &str, delay_ms: u64) -> bool {
        if !self.crash(node) {
            return false;
        }
        let (weak, node) = (self.weak(), node.to_string());
        madsim::task::spawn(async move {
            madsim::time::sleep(Duration::from_millis(delay_ms.max(1))).await;
            if let Some(inner) = weak.upgrade() {
                Control { inner }.restart(&node);
            }
        });
        true
    }
}
