//! How an attempt number reads: `epoch.n`, the job master's incarnation and the deployment
//! within it. Attempts are `epoch << 32 | n` inside the runtime (so a newer incarnation's
//! attempts outrank an older one's); reports, timelines and JSON show `1.3`, not
//! `4294967299`. The binary form (what the history hash covers) stays the plain number.

use serde::{Deserialize, Deserializer, Serializer};
use std::fmt;

/// An attempt number, displayed as `epoch.n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown(pub u64);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0 >> 32, self.0 & 0xffff_ffff)
    }
}

/// `attempt` as `epoch.n`.
pub fn shown(attempt: u64) -> Shown {
    Shown(attempt)
}

/// Parses `epoch.n` back into the attempt number.
pub fn parse(text: &str) -> Option<u64> {
    let (epoch, n) = text.split_once('.')?;
    let (epoch, n): (u64, u64) = (epoch.parse().ok()?, n.parse().ok()?);
    (epoch <= u32::MAX as u64 && n <= u32::MAX as u64).then_some(epoch << 32 | n)
}

/// Serde for an attempt field: `"epoch.n"` in human-readable formats (JSON), the number in
/// binary ones (bincode); either is read back, and so is a plain number in JSON.
pub mod serde_text {
    use super::*;

    /// Writes the attempt.
    pub fn serialize<S: Serializer>(attempt: &u64, s: S) -> Result<S::Ok, S::Error> {
        match s.is_human_readable() {
            true => s.collect_str(&Shown(*attempt)),
            false => s.serialize_u64(*attempt),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Number(u64),
        Text(String),
    }

    /// Reads the attempt.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        if !d.is_human_readable() {
            return u64::deserialize(d);
        }
        match Either::deserialize(d)? {
            Either::Number(n) => Ok(n),
            Either::Text(t) => {
                parse(&t).ok_or_else(|| serde::de::Error::custom(format!("attempt {t:?}: expected epoch.n")))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_epoch_dot_n_and_back() {
        assert_eq!(shown(4_294_967_299).to_string(), "1.3");
        assert_eq!(shown(7).to_string(), "0.7");
        assert_eq!(parse("1.3"), Some(4_294_967_299));
        assert_eq!(parse("13"), None);
        assert_eq!(parse("1.x"), None);
    }
}
