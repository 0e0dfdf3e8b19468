//! What running a suite gives: a result per case, and the outcome of the whole suite.

use crate::scenario::Scenario;
use connsim::run::RunReport;
use std::fmt;
use std::path::PathBuf;

/// What one case gave.
pub struct CaseResult {
    /// The case's name.
    pub case: String,
    /// Why the context skipped it.
    pub skipped: Option<String>,
    /// One report per seed (a passing seed's without its timeline).
    pub reports: Vec<RunReport>,
    /// Marks the case requires that fewer seeds reached than its share asks.
    pub missed_marks: Vec<String>,
    /// Per required mark, how many of the case's seeds reached it, and the share required.
    pub mark_shares: Vec<MarkShare>,
    /// Saved cases replayed before the case's own seeds (the first reports).
    pub rerun: usize,
    /// Seeds of a fixed case whose faults met no job moving records, and why
    /// ([`RunStats::vacuous`](connsim::run::RunStats::vacuous)); more than
    /// [`VACUOUS_MAX_PERCENT`] % of its seeds fail the case.
    pub vacuous: Vec<(u64, String)>,
    /// The smallest scenario that still fails the first failure's check, with that seed.
    pub minimal: Option<Scenario>,
    /// Case files written for failures.
    pub saved: Vec<PathBuf>,
    /// HTML timelines of failures: each new case file's, and each saved case's that failed
    /// again (drawn again from that run), in `timelines/` beside the case files.
    pub timelines: Vec<PathBuf>,
    /// Wall time.
    pub wall_secs: f64,
    /// Seeds whose two runs gave different histories (`CONNSIM_CHECK_DETERMINISM=1`).
    pub nondeterministic: Vec<u64>,
}

/// The most seeds of a fixed case, in percent, whose faults may meet no job moving records
/// before the case fails as vacuous.
pub const VACUOUS_MAX_PERCENT: usize = 20;

/// How many of a case's seeds reached one of its required marks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkShare {
    /// The mark.
    pub mark: String,
    /// Seeds that reached it.
    pub reached: usize,
    /// Seeds the case ran (saved cases replayed before them not counted).
    pub seeds: usize,
    /// The percentage of seeds that must reach it.
    pub required_percent: u8,
    /// The mark a seed must reach to count ([`Scenario::requires_where`]): `seeds` counts
    /// only those. `None`: every seed counts.
    pub given: Option<String>,
}

/// A required mark: its name, its share in percent, and the mark a seed must reach to count.
pub type Required = (String, u8, Option<String>);

impl MarkShare {
    /// The shares of `required` among `marks`, one list of marks per seed.
    pub fn count<'a>(required: &[Required], marks: impl Iterator<Item = &'a [String]> + Clone) -> Vec<MarkShare> {
        required
            .iter()
            .map(|(mark, percent, given)| {
                let judged = marks.clone().filter(|m| given.as_ref().is_none_or(|g| m.contains(g)));
                MarkShare {
                    mark: mark.clone(),
                    reached: judged.clone().filter(|m| m.contains(mark)).count(),
                    seeds: judged.count(),
                    required_percent: *percent,
                    given: given.clone(),
                }
            })
            .collect()
    }

    /// Whether the requirement applies: every seed counts, or some seed reached its `given`.
    pub fn applies(&self) -> bool {
        self.given.is_none() || self.seeds > 0
    }

    /// Whether enough seeds reached the mark: at least one, and the required share; a share of
    /// 0 is only reported, and a requirement that does not apply ([`applies`](Self::applies))
    /// is met.
    pub fn met(&self) -> bool {
        self.required_percent == 0
            || !self.applies()
            || (self.reached > 0 && self.reached * 100 >= usize::from(self.required_percent) * self.seeds)
    }
}

impl fmt::Display for MarkShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (Some(given), false) = (&self.given, self.applies()) {
            return write!(f, "{} not judged: no seed reached {given}", self.mark);
        }
        write!(f, "{} {}/{}", self.mark, self.reached, self.seeds)?;
        if let Some(given) = &self.given {
            write!(f, " seeds reaching {given}")?;
        }
        match self.required_percent {
            0 => f.write_str(" (reported)")?,
            100 => {}
            p => write!(f, " (needs {p}%)")?,
        }
        if !self.met() {
            f.write_str(" MISSED")?;
        }
        Ok(())
    }
}

impl CaseResult {
    pub(super) fn new(case: &str) -> Self {
        Self {
            case: case.to_string(),
            skipped: None,
            reports: Vec::new(),
            missed_marks: Vec::new(),
            mark_shares: Vec::new(),
            vacuous: Vec::new(),
            rerun: 0,
            minimal: None,
            saved: Vec::new(),
            timelines: Vec::new(),
            wall_secs: 0.0,
            nondeterministic: Vec::new(),
        }
    }

    pub(super) fn skipped(case: &str, why: &str) -> Self {
        Self { skipped: Some(why.to_string()), ..Self::new(case) }
    }

    /// What each missed mark means (from `connsim::run::marks::MARKS`), a line each, so a
    /// user sees what the case waited for.
    pub(super) fn missed_mark_meanings(&self) -> String {
        let known = connsim::run::marks::MARKS.iter();
        let meaning = |m: &String| known.clone().find(|(k, _)| k == m).map(|(k, v)| format!("\n  {k}: {v}"));
        self.missed_marks.iter().filter_map(meaning).collect()
    }

    /// Failed seeds.
    pub fn failures(&self) -> Vec<&RunReport> {
        self.reports.iter().filter(|r| !r.passed()).collect()
    }

    /// The first failure's story: how many seeds failed, the first one's report and the
    /// minimal scenario (`None` if no seed failed).
    pub fn failure_headline(&self, suite: &str) -> Option<String> {
        let failures = self.failures();
        let first = failures.first()?;
        let minimal = self.minimal.as_ref().map(|s| s.to_rust()).unwrap_or_default();
        Some(format!(
            "{suite}: case {:?} failed on {} of {} seeds; the first:\n{first}\nminimal scenario at seed {}:\n{minimal}",
            self.case,
            failures.len(),
            self.reports.len(),
            first.seed
        ))
    }

    /// The most checkpoints a seed of the case completed before its input ended (its last
    /// record first emitted), and that seed; `None` if no seed ran. Several mean the case's
    /// faults met a job that still moved records (a case's own faults may hold checkpoints
    /// back on some seeds, hence the most, not the fewest); 0 means every seed's input was
    /// all read before its first checkpoint, as when a source setup ignores
    /// [`TestData::pace_ms`](super::TestData::pace_ms) and delivers everything at once.
    pub fn most_checkpoints_before_input_ended(&self) -> Option<(usize, u64)> {
        self.reports.iter().map(|r| (r.stats.checkpoints_before_input_ended, r.seed)).max_by_key(|(n, _)| *n)
    }

    /// Seeds this case ran itself (its reports without the saved cases replayed first).
    pub fn own_seeds(&self) -> usize {
        self.reports.len().saturating_sub(self.rerun)
    }

    /// Whether more than [`VACUOUS_MAX_PERCENT`] % of the case's own seeds were vacuous.
    pub fn too_vacuous(&self) -> bool {
        self.vacuous.len() * 100 > VACUOUS_MAX_PERCENT * self.own_seeds()
    }

    /// Why the case proved nothing, if too many of its seeds were vacuous: how many, the first
    /// one's reason, and what to do about it.
    pub fn vacuity(&self) -> Option<String> {
        let (seed, why) = self.vacuous.first().filter(|_| self.too_vacuous())?;
        let context = self.reports.first().map_or("", |r| r.testbed.as_str());
        let advice = if why.starts_with("its input ended at") {
            format!(
                "The source context {context:?} wrote its input up front: honour `pace_ms` (let the records arrive \
                 over TestData::pace_ms of virtual time, so the case's checkpoints and faults land while they flow)"
            )
        } else {
            format!(
                "The input of {context:?} ended before the case's faults came: if its source context writes its \
                 input up front, honour `pace_ms`; if not, the timeline shows what held the job back until then"
            )
        };
        Some(format!(
            "{} of {} seeds met no record flowing (more than {VACUOUS_MAX_PERCENT}%); seed {seed}: {why}. {advice}",
            self.vacuous.len(),
            self.own_seeds()
        ))
    }

    /// The required marks reached on fewer seeds than their share, with their shares
    /// (`response-lost 2/20 (needs 20%) MISSED`).
    pub fn missed_shares(&self) -> String {
        let missed: Vec<String> = self.mark_shares.iter().filter(|m| !m.met()).map(|m| m.to_string()).collect();
        if missed.is_empty() {
            self.missed_marks.join(", ")
        } else {
            missed.join(", ")
        }
    }

    /// Whether the case passed: every seed passed, deterministically, every required mark was
    /// reached on its share of the seeds, and its faults met records flowing.
    pub fn passed(&self) -> bool {
        self.skipped.is_some()
            || (self.failures().is_empty()
                && self.missed_marks.is_empty()
                && self.nondeterministic.is_empty()
                && !self.too_vacuous())
    }
}

/// What a suite gave.
pub struct SuiteOutcome {
    /// How the suite read its source in event time (or why it did not).
    pub event_time: String,
    /// The suite's name.
    pub suite: String,
    /// One result per case, in order.
    pub cases: Vec<CaseResult>,
}

impl SuiteOutcome {
    /// Cases that failed (a seed failed, a seed's two runs differed, or a required mark was
    /// never reached).
    pub fn failed_cases(&self) -> Vec<&CaseResult> {
        self.cases.iter().filter(|c| !c.passed()).collect()
    }

    /// Cases skipped by the context, with the reason.
    pub fn skipped(&self) -> Vec<(&str, &str)> {
        self.cases.iter().filter_map(|c| c.skipped.as_deref().map(|w| (c.case.as_str(), w))).collect()
    }

    /// The first case and seed that failed `check`.
    pub fn caught_by(&self, check: &str) -> Option<(&str, &RunReport)> {
        self.cases
            .iter()
            .find_map(|c| c.reports.iter().find(|r| r.failed_checks().contains(&check)).map(|r| (c.case.as_str(), r)))
    }

    /// Whether the suite caught a bug by `check`: `Ok((case, seed))`, the first case and seed
    /// that failed `check`, or `Err` saying why not, so that a suite which never reached a
    /// case's fault path, or failed another check, does not read as a catch:
    ///
    /// - `no seed failed CHECK; case X never reached its fault path (marks M 3/20 MISSED)`:
    ///   the case ran, but not through what it aims at on enough seeds, so it proved nothing
    ///   either way (more seeds, or a suite setting such as [`Suite::without`](super::Suite::without)
    ///   took it away);
    /// - `no seed failed CHECK; case X: N of M seeds met no record flowing …`: its faults met
    ///   no job moving records (the vacuity rule);
    /// - `no seed failed CHECK; failed a different check: case X seed S failed [...]`: the
    ///   bug (or another) shows, but not as the story predicts;
    /// - `no seed failed CHECK; every case that ran passed`: the suite does not catch it
    ///   with these seeds.
    ///
    /// ```no_run
    /// # use connsim_scenarios::suites::SuiteOutcome;
    /// # fn my_buggy_sink_suite() -> SuiteOutcome { unimplemented!() }
    /// let outcome = my_buggy_sink_suite();
    /// let (case, seed) = outcome.expect_caught("no-premature-visibility").unwrap_or_else(|e| panic!("{e}"));
    /// println!("caught in case {case:?}, seed {seed}");
    /// ```
    pub fn expect_caught(&self, check: &str) -> Result<(&str, u64), String> {
        if let Some((case, report)) = self.caught_by(check) {
            return Ok((case, report.seed));
        }
        let mut why = Vec::new();
        for c in self.cases.iter().filter(|c| c.skipped.is_none()) {
            if let Some(vacuity) = c.vacuity() {
                why.push(format!("case {:?}: {vacuity}", c.case));
            }
            if !c.missed_marks.is_empty() {
                why.push(format!("case {:?} never reached its fault path (marks {})", c.case, c.missed_shares()));
            }
        }
        for c in self.cases.iter().filter(|c| c.skipped.is_none()) {
            if let Some(r) = c.failures().first() {
                why.push(format!(
                    "failed a different check: case {:?} seed {} failed {:?}",
                    c.case,
                    r.seed,
                    r.failed_checks()
                ));
            }
            if let Some(seed) = c.nondeterministic.first() {
                why.push(format!("case {:?}: seed {seed} is not deterministic", c.case));
            }
        }
        let ran = self.cases.iter().filter(|c| c.skipped.is_none()).count();
        if ran == 0 {
            why.push(format!("no case ran ({} skipped)", self.cases.len()));
        } else if why.is_empty() {
            why.push(format!(
                "every case that ran passed ({} seeds in {ran} cases): the suite does not catch it with these seeds",
                self.seeds()
            ));
        }
        Err(format!("{}: no seed failed {check}; {}", self.suite, why.join("; ")))
    }

    /// Panics unless the suite caught a bug by `check` ([`expect_caught`](Self::expect_caught)
    /// says why not, then the outcome's table follows); prints the case and seed that caught it.
    pub fn assert_caught(&self, check: &str) {
        match self.expect_caught(check) {
            Ok((case, seed)) => println!("{}: caught by {check} in case {case:?}, seed {seed}", self.suite),
            Err(e) => panic!("{e}\n\n{self}"),
        }
    }

    /// Seeds run in all cases.
    pub fn seeds(&self) -> usize {
        self.cases.iter().map(|c| c.reports.len()).sum()
    }

    /// Panics with the first failing case's report, its minimal scenario and how to replay
    /// it, unless every case passed.
    pub fn assert_ok(&self) {
        let Some(case) = self.failed_cases().into_iter().next() else { return };
        if let Some(headline) = case.failure_headline(&self.suite) {
            panic!("{headline}\n\n{self}");
        }
        if let Some(seed) = case.nondeterministic.first() {
            panic!(
                "{}: case {:?}: seed {seed} is not deterministic (two runs gave different histories: state \
                 outlives a run, e.g. a static or a cache); rerun: CONNSIM_CHECK_DETERMINISM=1 CONNSIM_SEED={seed}\n\n{self}",
                self.suite, case.case
            );
        }
        if let Some(vacuity) = case.vacuity() {
            panic!("{}: case {:?}: {vacuity}\n\n{self}", self.suite, case.case);
        }
        let meanings = case.missed_mark_meanings();
        panic!(
            "{}: case {:?} never reached the fault path it aims at on enough seeds: {}{meanings}\n\n{self}",
            self.suite,
            case.case,
            case.missed_shares()
        );
    }
}

impl fmt::Display for SuiteOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.suite)?;
        if !self.event_time.is_empty() {
            writeln!(f, "  event time: {}", self.event_time)?;
        }
        writeln!(
            f,
            "  {:<46} {:>6} {:>8} {:>10} {:>8} {:>7}  verdict",
            "case", "seeds", "failures", "first fail", "minimal", "wall s"
        )?;
        for c in &self.cases {
            let failures = c.failures();
            let first = failures.first().map_or("-".into(), |r| r.seed.to_string());
            let minimal = c.minimal.as_ref().map_or("-".into(), |s| format!("{} blocks", s.size()));
            let verdict = match (&c.skipped, failures.first()) {
                (Some(why), _) => format!("skipped: {why}"),
                (None, Some(r)) => format!("FAILED: {}", r.failed_checks().join(", ")),
                (None, None) if !c.nondeterministic.is_empty() => {
                    format!("NOT DETERMINISTIC: seeds {:?}", c.nondeterministic)
                }
                (None, None) if !c.missed_marks.is_empty() => format!("MISSED marks {:?}", c.missed_marks),
                (None, None) if c.too_vacuous() => {
                    format!("VACUOUS: {} seeds met no record flowing", c.vacuous.len())
                }
                (None, None) => "ok".into(),
            };
            writeln!(
                f,
                "  {:<46} {:>6} {:>8} {:>10} {:>8} {:>7.1}  {verdict}",
                c.case,
                c.reports.len(),
                failures.len(),
                first,
                minimal,
                c.wall_secs
            )?;
            if c.skipped.is_none() && !c.reports.is_empty() {
                let shares: Vec<String> = c.mark_shares.iter().map(|m| m.to_string()).collect();
                let flowing = c.own_seeds().saturating_sub(c.vacuous.len());
                writeln!(
                    f,
                    "      marks reached: {}; faults met records flowing on {flowing}/{} seeds",
                    if shares.is_empty() { "none required".to_string() } else { shares.join(", ") },
                    c.own_seeds()
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missed_mark_is_explained_and_an_unknown_one_is_left_out() {
        let mut case = CaseResult::new("discovery overlaps slow responses");
        case.missed_marks = vec!["discovery-overlapped".into(), "no-such-mark".into()];
        let meanings = case.missed_mark_meanings();
        assert!(meanings.starts_with("\n  discovery-overlapped: a periodic call"), "{meanings}");
        assert!(meanings.contains("TestData::discovery_interval_ms") && !meanings.contains("no-such-mark"));
    }

    #[test]
    fn a_mark_needs_its_share_of_the_seeds_and_the_table_prints_it() {
        let seeds: Vec<Vec<String>> =
            (0..20).map(|i| if i < 17 { vec!["response-lost".into()] } else { vec![] }).collect();
        let marks = seeds.iter().map(|m| m.as_slice());
        let every = MarkShare::count(&[("response-lost".into(), 100, None)], marks.clone());
        assert!(!every[0].met() && every[0].to_string() == "response-lost 17/20 MISSED", "{}", every[0]);
        let half = MarkShare::count(&[("response-lost".into(), 85, None)], marks.clone());
        assert!(half[0].met() && half[0].to_string() == "response-lost 17/20 (needs 85%)", "{}", half[0]);
        assert!(!MarkShare::count(&[("response-lost".into(), 90, None)], marks.clone())[0].met());
        // A share of 0 is only reported; any other share needs one seed at least.
        let none = MarkShare::count(&[("partition".into(), 0, None)], marks.clone());
        assert!(none[0].met() && none[0].to_string() == "partition 0/20 (reported)", "{}", none[0]);
        assert!(!MarkShare::count(&[("partition".into(), 1, None)], marks.clone())[0].met());
        let mut case = CaseResult::new("occasional lost responses");
        case.mark_shares = every;
        case.missed_marks = vec!["response-lost".into()];
        case.reports = Vec::new();
        let outcome = SuiteOutcome { suite: "sink suite".into(), cases: vec![case], event_time: String::new() };
        assert!(!outcome.cases[0].passed());
    }

    /// A mark required where another was reached is judged over those seeds only; where no
    /// seed reached that one, it is not judged (a sink that never starts an upload has none
    /// to expire), and where some did it is held to its share as any other mark.
    #[test]
    fn a_mark_required_where_another_was_reached_is_judged_over_those_seeds_only() {
        let seed = |marks: &[&str]| marks.iter().map(|m| m.to_string()).collect::<Vec<String>>();
        let required = [("upload-expired".to_string(), 50, Some("upload-started".to_string()))];
        // Four seeds started an upload, three of them saw it expire; six never started one.
        let mut seeds: Vec<Vec<String>> = (0..6).map(|_| seed(&["crash"])).collect();
        seeds.extend((0..3).map(|_| seed(&["upload-started", "upload-expired"])));
        seeds.push(seed(&["upload-started"]));
        let share = &MarkShare::count(&required, seeds.iter().map(|m| m.as_slice()))[0];
        assert!(share.met() && share.applies(), "{share}");
        assert_eq!(share.to_string(), "upload-expired 3/4 seeds reaching upload-started (needs 50%)");
        // Judged over every seed, 3 of 10 would miss the share.
        let plain = &MarkShare::count(&[("upload-expired".into(), 50, None)], seeds.iter().map(|m| m.as_slice()))[0];
        assert!(!plain.met(), "{plain}");
        // One of four expiring misses 50 % of the seeds that started an upload.
        let mut few: Vec<Vec<String>> = (0..3).map(|_| seed(&["upload-started"])).collect();
        few.push(seed(&["upload-started", "upload-expired"]));
        let share = &MarkShare::count(&required, few.iter().map(|m| m.as_slice()))[0];
        assert!(!share.met(), "{share}");
        // No seed started one: not judged.
        let none: Vec<Vec<String>> = (0..10).map(|_| seed(&["crash"])).collect();
        let share = &MarkShare::count(&required, none.iter().map(|m| m.as_slice()))[0];
        assert!(share.met() && !share.applies(), "{share}");
        assert_eq!(share.to_string(), "upload-expired not judged: no seed reached upload-started");
    }

    #[test]
    fn a_case_fails_as_vacuous_only_beyond_the_share() {
        let mut case = CaseResult::new("task failure mid-stream (region)");
        let report = |seed| connsim::run::RunReport {
            seed,
            testbed: "my-source(8 splits)".into(),
            config: Default::default(),
            scenario: String::new(),
            verdicts: Vec::new(),
            history_hash: 0,
            stats: Default::default(),
            marks: Vec::new(),
            timeline: Vec::new(),
            replay: String::new(),
            history: Vec::new(),
            cost: Default::default(),
        };
        case.reports = (1..=10).map(report).collect();
        case.vacuous = (1..=2).map(|s| (s, "its first fault block began after the input ended".into())).collect();
        assert!(case.passed() && case.vacuity().is_none(), "2 of 10 is within {VACUOUS_MAX_PERCENT}%");
        case.vacuous.push((3, "its input ended at 420 ms of virtual time, 4 checkpoints in".into()));
        assert!(!case.passed());
        let why = case.vacuity().expect("3 of 10 is too many");
        assert!(why.starts_with("3 of 10 seeds met no record flowing"), "{why}");
        assert!(
            why.contains("seed 1: its first fault block") && why.contains("\"my-source(8 splits)\" ended"),
            "{why}"
        );
        // Saved cases replayed first are not the case's own seeds.
        case.rerun = 5;
        case.reports.extend((11..=15).map(report));
        assert_eq!(case.own_seeds(), 10);
        assert!(case.vacuity().unwrap().starts_with("3 of 10 seeds"));
    }
}
