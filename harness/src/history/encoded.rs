//! A history written out: as JSON lines (reports, dumps) and as one FNV-1a hash over its
//! bincode form (what the determinism self-check compares).

use super::Event;

/// Serializes events as JSON lines.
pub fn to_json_lines(events: &[Event]) -> String {
    let mut out = String::new();
    for e in events {
        out.push_str(&serde_json::to_string(e).expect("events serialize"));
        out.push('\n');
    }
    out
}

/// FNV-1a hash over the events' bincode form: equal hashes mean identical histories.
pub fn hash(events: &[Event]) -> u64 {
    let mut h = Fnv(crate::record::FNV_OFFSET);
    for e in events {
        bincode::serialize_into(&mut h, e).expect("events serialize");
    }
    h.0
}

/// FNV-1a over whatever is written into it: the hash is fed as the events serialize, with
/// no copy of their bytes in between.
struct Fnv(u64);

impl std::io::Write for Fnv {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 = crate::record::fnv1a(self.0, bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
