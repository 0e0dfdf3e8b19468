//! What a downstream reader of the table sees: the versions in order from 0, their
//! manifests, and the data files those list, each read whole in connsim's line format. A
//! listed manifest or file that is gone is what a table reader fails on: it shows as garbage
//! naming it.

use super::{manifest_files, Published, Version, LOG};
use connsim::systems::{line_entries, Bucket, Entry, OutputReader, Part};

/// The table's output reader over its bucket.
pub struct VersionLog {
    /// The bucket the table lives in.
    pub bucket: Bucket,
}

impl VersionLog {
    /// The versions published, in order from 0, up to the first gap.
    pub fn versions(&self) -> Vec<Published> {
        let mut keys: Vec<String> = self.bucket.keys().into_iter().filter(|k| k.starts_with(LOG)).collect();
        keys.sort();
        let mut out = Vec::new();
        for key in keys {
            if key != Version::key(out.len()) {
                break;
            }
            match self.bucket.object(&key).and_then(|b| Published::decode(&b)) {
                Some(v) => out.push(v),
                None => break,
            }
        }
        out
    }
}

impl OutputReader for VersionLog {
    fn location(&self) -> String {
        "s3:tbl".into()
    }
    fn version(&self) -> Option<u64> {
        OutputReader::version(&self.bucket)
    }
    fn parts(&self) -> Vec<Part> {
        // A manifest that is gone stands for its files: read once, as garbage.
        let files = self.versions().into_iter().flat_map(|v| match self.bucket.object(&v.manifest) {
            Some(bytes) => manifest_files(&bytes).unwrap_or_else(|| vec![v.manifest]),
            None => vec![v.manifest],
        });
        files
            .map(|name| {
                // A data file never changes; one that is gone is read once, as garbage.
                let end = self.bucket.object(&name).map_or(1, |b| b.len() as u64);
                Part { name, version: 0, end }
            })
            .collect()
    }
    fn read(&self, part: &str, from: u64) -> Vec<Entry> {
        match self.bucket.object(part) {
            Some(bytes) => line_entries(part, bytes.get(from as usize..).unwrap_or_default()),
            None if from == 0 => vec![Entry::Garbage(format!("{part} is listed by a version but gone"))],
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use connsim::history::History;
    use connsim::Record;

    fn version(job: &str, checkpoint: u64, files: &[&str]) -> Version {
        Version { job: job.into(), checkpoint, files: files.iter().map(|f| f.to_string()).collect() }
    }

    fn publish(bucket: &Bucket, n: usize, v: &Version) {
        bucket.put(&v.manifest(), v.encode_manifest());
        bucket.put(&Version::key(n), v.encode_head());
    }

    fn data(records: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        for &id in records {
            Record::new(connsim::RecordId(id), id, 0, format!("v{id}").into_bytes()).encode_line_into(&mut out);
        }
        out
    }

    /// The reader sees the files of the versions from 0 in order, up to the first gap, and
    /// a version's manifest that is gone as garbage naming it.
    #[test]
    fn the_reader_follows_the_versions_in_order_and_names_a_missing_manifest() {
        let bucket = Bucket::new("s3", LOG, History::new());
        let reader = VersionLog { bucket: bucket.clone() };
        bucket.put("tbl/data/a", data(&[1, 2]));
        bucket.put("tbl/data/b", data(&[3]));
        bucket.put("tbl/data/c", data(&[4]));
        assert!(reader.parts().is_empty(), "data files no version lists are invisible");
        publish(&bucket, 0, &version("j", 1, &["tbl/data/a"]));
        publish(&bucket, 2, &version("j", 3, &["tbl/data/c"]));
        let names: Vec<String> = reader.parts().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["tbl/data/a"], "version 2 waits behind the gap at 1");
        let gone = version("j", 2, &["tbl/data/b"]);
        bucket.put(&Version::key(1), gone.encode_head());
        let names: Vec<String> = reader.parts().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["tbl/data/a", gone.manifest().as_str(), "tbl/data/c"]);
        let records = |part: &str| reader.read(part, 0).into_iter().filter(|e| matches!(e, Entry::Record(_))).count();
        assert_eq!((records("tbl/data/a"), records("tbl/data/c")), (2, 1));
        let missing = reader.read(&gone.manifest(), 0);
        assert!(
            matches!(&missing[..], [Entry::Garbage(why)] if why.contains(&gone.manifest())),
            "the missing manifest is named: {missing:?}"
        );
    }
}
