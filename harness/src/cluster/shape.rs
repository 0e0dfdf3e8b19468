//! What every subtask of a job shares: the job, its parallelisms, where the tasks
//! downstream of the writers sit, and the runtime's settings.

use super::config::Exchange;

/// What every subtask of a job shares: the job, its parallelisms and the runtime's settings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobShape {
    /// The job's index ([`crate::history::job_id`]).
    pub job: u64,
    /// Readers (the source's parallelism); subtasks from here on host only a writer.
    pub parallelism: usize,
    /// Writers (the sink's parallelism); subtasks from here on host only a reader.
    pub writers: usize,
    /// Committer tasks apart from the writers, after every reader and writer (0: each
    /// writer's committer is chained to it).
    pub committers: usize,
    pub exchange: Exchange,
    pub aligned_barriers: bool,
    /// The strategy the job reads its source with, if any.
    pub watermarks: Option<crate::api::WatermarkStrategy>,
    /// A runtime bug switched on (connsim's own tests).
    pub runtime_bug: Option<super::config::RuntimeBug>,
}

impl JobShape {
    /// The tasks downstream of the writers, `(first, count)`: the global committer's (when
    /// `global`), or the committers' when they run apart from the writers; `None` if neither.
    pub fn downstream(&self, global: bool) -> Option<(usize, usize)> {
        let tasks = Self::downstream_of(self.parallelism, self.writers, self.committers, global);
        (!tasks.is_empty()).then_some((tasks.start, tasks.len()))
    }

    /// The subtasks downstream of the writers of a job with `readers` readers, `writers`
    /// writers and `committers` committer tasks (0: chained), with a global committer or not.
    pub fn downstream_of(readers: usize, writers: usize, committers: usize, global: bool) -> std::ops::Range<usize> {
        let first = readers.max(writers);
        first..first + if global { 1 } else { committers }
    }
}
