//! Blocks printed as the Rust code that builds them, so a shrunk failure can be pasted into
//! a test as it is (with `use connsim_scenarios::prelude::*;`).

use crate::block::{Block, Fault, NewJobFrom, Target, Worker};
use connsim::run::Spread;
use connsim::systems::Setting;

fn worker(w: &Worker) -> String {
    match w {
        Worker::Any => "Worker::Any".into(),
        Worker::Nth(n) => format!("Worker::Nth({n})"),
        Worker::All => "Worker::All".into(),
    }
}

fn target(t: &Target) -> String {
    match t {
        Target::JobMaster => "job_master()".into(),
        Target::Worker(w) => worker(w),
        Target::System(s) => format!("system({s:?})"),
    }
}

/// A target where the type must be `Target` exactly (inside struct literals).
fn target_value(t: &Target) -> String {
    match t {
        Target::Worker(w) => format!("Target::Worker({})", worker(w)),
        other => target(other),
    }
}

fn opt_str(s: &Option<String>) -> String {
    match s {
        Some(s) => format!("Some({s:?}.into())"),
        None => "None".into(),
    }
}

fn opt_target(t: &Option<Target>) -> String {
    match t {
        Some(t) => format!("Some({})", target_value(t)),
        None => "None".into(),
    }
}

fn spread(s: &Spread) -> &'static str {
    match s {
        Spread::Uniform => "Spread::Uniform",
        Spread::Skewed => "Spread::Skewed",
    }
}

/// A fault as a Rust expression.
pub fn fault(f: &Fault) -> String {
    match f {
        Fault::Drop { probability, kind, from, to } => format!(
            "Fault::Drop {{ probability: {probability:?}, kind: {}, from: {}, to: {} }}",
            opt_str(kind),
            opt_target(from),
            opt_target(to)
        ),
        Fault::Delay { ms, kind, from, to } => {
            format!(
                "Fault::Delay {{ ms: {ms}, kind: {}, from: {}, to: {} }}",
                opt_str(kind),
                opt_target(from),
                opt_target(to)
            )
        }
        Fault::Straggle { ms, kind, from, to } => format!(
            "Fault::Straggle {{ ms: {ms}, kind: {}, from: {}, to: {} }}",
            opt_str(kind),
            opt_target(from),
            opt_target(to)
        ),
        Fault::Hold { until, max_ms, kind, from, to } => format!(
            "Fault::Hold {{ until: {until:?}.into(), max_ms: {max_ms}, kind: {}, from: {}, to: {} }}",
            opt_str(kind),
            opt_target(from),
            opt_target(to)
        ),
        Fault::LoseResponses { probability, kind, from, to } => format!(
            "Fault::LoseResponses {{ probability: {probability:?}, kind: {}, from: {}, to: {} }}",
            opt_str(kind),
            opt_target(from),
            opt_target(to)
        ),
        Fault::Partition { a, b } => format!("Fault::Partition {{ a: {}, b: {} }}", target_value(a), target_value(b)),
        Fault::Refuse { probability, refusal, kind, to } => format!(
            "Fault::Refuse {{ probability: {probability:?}, refusal: Refusal::{refusal:?}, kind: {}, to: {} }}",
            opt_str(kind),
            target_value(to)
        ),
    }
}

/// An `ALTER TABLE` as the Rust that builds it.
fn alteration(change: &connsim::systems::Alteration) -> String {
    use connsim::systems::{Alteration, ColumnType};
    let ty = |t: &ColumnType| match t {
        ColumnType::Int { bytes } => format!("ColumnType::Int {{ bytes: {bytes} }}"),
        ColumnType::Bytes => "ColumnType::Bytes".into(),
    };
    match change {
        Alteration::Nothing => "Alteration::Nothing".into(),
        Alteration::AddColumn(c) => {
            format!("Alteration::AddColumn(Column::new({:?}, {}, {}))", c.name, ty(&c.ty), c.nullable)
        }
        Alteration::SetNullable { column, nullable } => {
            format!("Alteration::SetNullable {{ column: {column:?}.into(), nullable: {nullable} }}")
        }
        Alteration::Widen { column, bytes } => {
            format!("Alteration::Widen {{ column: {column:?}.into(), bytes: {bytes} }}")
        }
    }
}

fn kind_arg(kind: &Option<String>) -> String {
    match kind {
        Some(k) => format!("Some({k:?})"),
        None => "None".into(),
    }
}

impl Block {
    /// The Rust expression that builds this block.
    pub fn to_rust(&self) -> String {
        match self {
            Block::Produce { n, spread: Spread::Uniform, over_ms: 200 } => format!("produce({n})"),
            Block::Produce { n, spread: Spread::Uniform, over_ms: 0 } => format!("burst({n})"),
            Block::Produce { n, spread: Spread::Skewed, over_ms: 200 } => format!("skewed({n})"),
            Block::Produce { n, spread: s, over_ms } => {
                format!("Block::Produce {{ n: {n}, spread: {}, over_ms: {over_ms} }}", spread(s))
            }
            Block::AddSplits { n } => format!("add_splits({n})"),
            Block::Checkpoint => "checkpoint()".into(),
            Block::DeclineCheckpoint { worker: w } => format!("decline_checkpoint({})", worker(w)),
            Block::CheckpointTimeout => "checkpoint_timeout()".into(),
            Block::LoseNotify { worker: w } => format!("lose_notify({})", worker(w)),
            Block::SlowStart { worker: w, ms } => format!("slow_start({}, {ms})", worker(w)),
            Block::SlowSnapshot { worker: w, ms } => format!("slow_snapshot({}, {ms})", worker(w)),
            Block::SlowSink { worker: w, ms, for_ms } => format!("slow_sink({}, {ms}, {for_ms})", worker(w)),
            Block::Crash { target: t, at, restart_after_ms } => {
                let mut s = format!("crash({})", target(t));
                if let Some(p) = at {
                    s.push_str(&format!(".at(Phase::{p:?})"));
                }
                if *restart_after_ms != 50 {
                    s.push_str(&format!(".restart_after({restart_after_ms})"));
                }
                s
            }
            Block::Pause { target: t, ms } => format!("pause({}, {ms})", target(t)),
            Block::Fault { fault: Fault::Drop { probability, kind, from: None, to: None }, for_ms } => {
                format!("drop_messages({probability:?}, {}, {for_ms})", kind_arg(kind))
            }
            Block::Fault { fault: Fault::Delay { ms, kind, from: None, to: None }, for_ms } => {
                format!("delay_messages({ms}, {}, {for_ms})", kind_arg(kind))
            }
            Block::Fault {
                fault: Fault::LoseResponses { probability, kind: None, from: None, to: Some(to) },
                for_ms,
            } => {
                format!("lose_responses({probability:?}, {}, {for_ms})", target_value(to))
            }
            Block::Fault {
                fault: Fault::Refuse { probability, refusal, kind: None, to: Target::System(s) },
                for_ms,
            } => {
                format!("refuse({s:?}, Refusal::{refusal:?}, {probability:?}, {for_ms})")
            }
            Block::Fault {
                fault: Fault::Delay { ms, kind: None, from: None, to: Some(Target::System(s)) },
                for_ms,
            } => {
                format!("slow_system({s:?}, {ms}, {for_ms})")
            }
            Block::Fault {
                fault: Fault::Straggle { ms, kind: Some(k), from: None, to: Some(Target::System(s)) },
                for_ms,
            } => {
                format!("straggle({s:?}, {k:?}, {ms}, {for_ms})")
            }
            Block::Fault {
                fault: Fault::Hold { until, max_ms, kind: Some(k), from: None, to: Some(Target::System(s)) },
                for_ms,
            } => {
                format!("hold({s:?}, {k:?}, {until:?}, {max_ms}, {for_ms})")
            }
            Block::Fault { fault: Fault::Partition { a, b }, for_ms } => {
                format!("partition({}, {}, {for_ms})", target(a), target(b))
            }
            Block::Fault { fault: f, for_ms } => format!("Block::Fault {{ fault: {}, for_ms: {for_ms} }}", fault(f)),
            Block::Configure { system, setting: Setting::TransactionTimeoutMs(Some(ms)) } => {
                format!("transaction_timeout({system:?}, {ms})")
            }
            Block::Configure { system, setting: Setting::TornAppends(p) } => format!("torn_appends({system:?}, {p:?})"),
            Block::Configure { system, setting: Setting::SlowDown(p) } => format!("slow_down({system:?}, {p:?})"),
            Block::Configure { system, setting: Setting::InternalErrors(p) } => {
                format!("internal_errors({system:?}, {p:?})")
            }
            Block::Configure { system, setting: Setting::ExpireIncompleteUploadsAfterMs(Some(ms)) } => {
                format!("expire_incomplete_uploads({system:?}, {ms})")
            }
            Block::Configure { system, setting: Setting::RetentionMs(Some(ms)) } => {
                format!("retention({system:?}, {ms})")
            }
            Block::Configure { system, setting: Setting::TransactionProtocol(p) } => {
                format!("transaction_protocol({system:?}, TxnProtocol::{p:?})")
            }
            Block::Configure { system, setting: Setting::AlterTable(change) } => {
                format!("alter_table({system:?}, {})", alteration(change))
            }
            Block::Configure { system, setting } => {
                format!("Block::Configure {{ system: {system:?}.into(), setting: Setting::{setting:?} }}")
            }
            Block::Heal => "heal()".into(),
            Block::StopWithSavepoint { resume_with: None } => "stop_with_savepoint()".into(),
            Block::StopWithSavepoint { resume_with: Some(p) } => format!("savepoint_and_rescale({p})"),
            Block::NewJob { from: NewJobFrom::WithoutState } => "restart_without_state()".into(),
            Block::NewJob { from: NewJobFrom::OlderSavepoint } => "restart_from_older_savepoint()".into(),
            Block::Rescale { parallelism } => format!("rescale({parallelism})"),
            Block::Wait { ms } => format!("wait({ms})"),
            Block::Drain { timeout_ms } => format!("drain({timeout_ms})"),
            Block::Seq(v) => match v.split_first() {
                None => "Block::Seq(vec![])".into(),
                Some((first, [])) => format!("Block::Seq(vec![{}])", first.to_rust()),
                Some((first, rest)) => {
                    let mut s = first.to_rust();
                    for b in rest {
                        s.push_str(&format!(".then({})", b.to_rust()));
                    }
                    s
                }
            },
            Block::Repeat { n, block } => format!("{}.repeat({n})", block.to_rust()),
            Block::During { fault: f, body } => format!("during({}, {})", fault(f), body.to_rust()),
            Block::Phases { safety, liveness_ms } => format!("phases({}, {liveness_ms})", safety.to_rust()),
            Block::OneOf(v) => {
                format!("one_of(vec![{}])", v.iter().map(Block::to_rust).collect::<Vec<_>>().join(", "))
            }
            Block::TimeLimit { ms, block } => format!("{}.time_limit({ms})", block.to_rust()),
        }
    }
}
