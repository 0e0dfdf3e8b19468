//! What a downstream reader of the bucket sees: it lists the visible prefix and gets each
//! object. Uploads in progress are invisible; a completed object appears whole.

use super::super::fs::line_entries;
use super::super::output::{Entry, OutputReader, Part};
use super::Bucket;
use std::sync::Arc;

impl Bucket {
    /// The output reader of the visible prefix: the current objects under it (no key
    /// component starting with `.`), in key order, each decoded whole, as connsim's line
    /// format or the format of [`Bucket::reading_with`].
    pub fn output(&self) -> Arc<dyn OutputReader> {
        Arc::new(self.clone())
    }
}

impl OutputReader for Bucket {
    fn location(&self) -> String {
        format!("{}:{}", self.name, self.visible_prefix)
    }
    fn version(&self) -> Option<u64> {
        Some(self.inner.lock().unwrap().state.generation)
    }
    fn parts(&self) -> Vec<Part> {
        let inner = self.inner.lock().unwrap();
        let s = &inner.state;
        let visible = s.keys.keys().filter(|k| self.is_visible(k));
        visible
            .filter_map(|k| {
                let (_, o) = s.current(k)?;
                // A new version is a new object, read again whole.
                Some(Part { name: k.clone(), version: s.changed[k], end: o.data.len() as u64 })
            })
            .collect()
    }
    fn read(&self, part: &str, from: u64) -> Vec<Entry> {
        let (data, format) = {
            let inner = self.inner.lock().unwrap();
            let Some((_, o)) = inner.state.current(part).filter(|_| self.is_visible(part)) else { return Vec::new() };
            (o.data.clone(), inner.format.clone())
        };
        // A format of the user's decodes with the bucket unlocked: a decoder that panics
        // leaves it usable (the observer reports the panic).
        match format {
            // An object never grows: a read from past its start finds nothing new.
            None if from > 0 => line_entries(part, data.get(from as usize..).unwrap_or_default()),
            None => line_entries(part, &data),
            Some(format) => format.entries(part, &data),
        }
    }
}
