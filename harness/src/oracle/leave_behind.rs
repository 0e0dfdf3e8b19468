//! The bound a sink declares on what it leaves behind in its system
//! ([`crate::run::World::declare_leave_behind`]), which `left-behind` holds it to.

/// What a sink may leave in system `system` when the run ends, per writer subtask and job
/// (the check allows the bound times the most writer subtasks any job had, times the
/// jobs the run submitted). `None`: not bounded, only reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaveBehind {
    /// The system's node name.
    pub system: String,
    /// Transactional ids per writer subtask and job: a pool's size, as Flink's newer Kafka
    /// sink reuses (a broker keeps every id it saw for seven days).
    pub transactional_ids_per_writer: Option<u64>,
    /// Consumer groups per writer subtask and job.
    pub groups_per_writer: Option<u64>,
}

impl LeaveBehind {
    /// Nothing bounded yet in `system`.
    pub fn new(system: &str) -> Self {
        Self { system: system.to_string(), transactional_ids_per_writer: None, groups_per_writer: None }
    }
    /// At most `n` transactional ids per writer subtask and job.
    pub fn transactional_ids_per_writer(mut self, n: u64) -> Self {
        self.transactional_ids_per_writer = Some(n);
        self
    }
    /// At most `n` consumer groups per writer subtask and job.
    pub fn groups_per_writer(mut self, n: u64) -> Self {
        self.groups_per_writer = Some(n);
        self
    }
}
