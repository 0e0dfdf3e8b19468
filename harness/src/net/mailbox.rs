//! A node's incoming queue, ordered by delivery time and then by send order.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::Notify;

/// Whether an envelope is a one-way message, a request, the response to one, or an error
/// reply the gateway sent in the callee's name (its bytes: a [`Refusal`](super::Refusal)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tag {
    OneWay,
    Request(u64),
    Response(u64),
    Refused(u64),
}

/// One serialized message in flight.
#[derive(Debug)]
pub(crate) struct Envelope {
    pub from: String,
    pub to: String,
    pub kind: String,
    pub tag: Tag,
    pub bytes: Vec<u8>,
    /// The subtask attempt (subtask, attempt) whose connector code sent it, if any.
    pub origin: Option<(usize, u64)>,
    /// Whether a newer attempt of `origin`'s subtask had started when it was sent (a
    /// zombie's message, what fencing exists for).
    pub stale: bool,
}

struct Queued {
    at: Duration,
    seq: u64,
    env: Envelope,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Queued {
    // Reversed: BinaryHeap is a max-heap and the earliest delivery must come out first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// Messages waiting for delivery to one node incarnation.
#[derive(Default)]
pub(crate) struct Mailbox {
    queue: Mutex<BinaryHeap<Queued>>,
    notify: Notify,
}

impl Mailbox {
    pub fn push(&self, at: Duration, seq: u64, env: Envelope) {
        self.queue.lock().unwrap().push(Queued { at, seq, env });
        self.notify.notify_one();
    }

    /// Moves the queued envelope `seq` to delivery at `at` as `new_seq`; false if it is not
    /// queued here (delivered already, or this is a new incarnation's mailbox).
    pub fn reschedule(&self, seq: u64, at: Duration, new_seq: u64) -> bool {
        let mut q = self.queue.lock().unwrap();
        let mut all = std::mem::take(&mut *q).into_vec();
        let found = all.iter_mut().find(|x| x.seq == seq).map(|x| {
            x.at = at;
            x.seq = new_seq;
        });
        *q = BinaryHeap::from(all);
        drop(q);
        self.notify.notify_one();
        found.is_some()
    }

    /// The requests from `from` still queued here (not delivered yet), in delivery order:
    /// their kind and call id.
    pub fn requests_from(&self, from: &str) -> Vec<(String, u64)> {
        let q = self.queue.lock().unwrap();
        let mut found: Vec<(Duration, u64, String, u64)> = q
            .iter()
            .filter_map(|x| match x.env.tag {
                Tag::Request(call) if x.env.from == from => Some((x.at, x.seq, x.env.kind.clone(), call)),
                _ => None,
            })
            .collect();
        found.sort_by_key(|(at, seq, ..)| (*at, *seq));
        found.into_iter().map(|(_, _, kind, call)| (kind, call)).collect()
    }

    /// Waits for the next envelope whose delivery time has come.
    pub async fn pop(&self) -> Envelope {
        loop {
            let notified = self.notify.notified();
            let wait = {
                let mut q = self.queue.lock().unwrap();
                let now = super::now();
                match q.peek() {
                    Some(top) if top.at <= now => return q.pop().expect("peeked").env,
                    Some(top) => Some(top.at - now),
                    None => None,
                }
            };
            match wait {
                Some(d) => {
                    tokio::select! {
                        biased;
                        _ = notified => {}
                        _ = madsim::time::sleep(d) => {}
                    }
                }
                None => notified.await,
            }
        }
    }
}
