//! Command-line options shared by the commands.

/// Parsed options.
#[derive(Debug, Default)]
pub struct Args {
    pub seeds: Option<u64>,
    pub jobs: Option<usize>,
    pub target: Option<String>,
    /// Only targets of this suite (source, sink, pipeline, random).
    pub suite: Option<String>,
    /// (k, n): run only the seeds whose index is k modulo n (1-based k).
    pub shard: Option<(u64, u64)>,
}

fn number<T: std::str::FromStr>(flag: &str, value: Option<&String>) -> Result<T, String> {
    let v = value.ok_or_else(|| format!("{flag} needs a value"))?;
    v.parse().map_err(|_| format!("{flag} {v:?}: expected a non-negative integer"))
}

impl Args {
    pub fn parse(argv: &[String]) -> Result<Args, String> {
        let mut args = Args::default();
        let mut it = argv.iter();
        while let Some(flag) = it.next() {
            match flag.as_str() {
                "--seeds" => args.seeds = Some(number(flag, it.next())?),
                "--jobs" => args.jobs = Some(number(flag, it.next())?),
                "--target" => args.target = Some(it.next().ok_or("--target needs a value")?.clone()),
                "--suite" => {
                    let v = it.next().ok_or("--suite needs a value: source, sink, pipeline or random")?;
                    if !["source", "sink", "pipeline", "random"].contains(&v.as_str()) {
                        return Err(format!("--suite {v:?}: expected source, sink, pipeline or random"));
                    }
                    args.suite = Some(v.clone());
                }
                "--shard" => {
                    let v = it.next().ok_or("--shard needs a value like 1/4")?;
                    let (k, n) = v.split_once('/').ok_or_else(|| format!("--shard {v:?}: expected K/N, e.g. 1/4"))?;
                    let (k, n): (u64, u64) = (
                        k.parse().map_err(|_| format!("--shard {v:?}: K is not a number"))?,
                        n.parse().map_err(|_| format!("--shard {v:?}: N is not a number"))?,
                    );
                    if n == 0 || k == 0 || k > n {
                        return Err(format!("--shard {v:?}: need 1 <= K <= N"));
                    }
                    args.shard = Some((k, n));
                }
                other => return Err(format!("unknown option {other:?}")),
            }
        }
        Ok(args)
    }
}
