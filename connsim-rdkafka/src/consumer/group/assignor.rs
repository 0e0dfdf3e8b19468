//! The assignors a group leader runs (`partition.assignment.strategy`): `range` and
//! `roundrobin` (eager: every member gives up everything at each rebalance) and
//! `cooperative-sticky` (KIP-429: members keep what they can, and a partition moving between
//! members is first revoked by its owner, then assigned in the next rebalance).

use super::protocol::Subscription;
use std::collections::{BTreeMap, BTreeSet};

/// A partition: `(topic, partition)`.
pub(crate) type Tp = (String, u32);

/// One member as the leader sees it: its id (static members sort by instance id, as Kafka's
/// assignors do) and what it sent.
pub(crate) struct MemberSub {
    pub(crate) member_id: String,
    pub(crate) sort_key: String,
    pub(crate) subscription: Subscription,
}

/// The assignors librdkafka knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Assignor {
    Range,
    RoundRobin,
    CooperativeSticky,
}

impl Assignor {
    /// By `partition.assignment.strategy` name.
    pub(crate) fn named(name: &str) -> Option<Assignor> {
        match name {
            "range" => Some(Assignor::Range),
            "roundrobin" => Some(Assignor::RoundRobin),
            "cooperative-sticky" => Some(Assignor::CooperativeSticky),
            _ => None,
        }
    }
    /// The protocol name it joins with.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Assignor::Range => "range",
            Assignor::RoundRobin => "roundrobin",
            Assignor::CooperativeSticky => "cooperative-sticky",
        }
    }
    /// Whether it follows the cooperative protocol.
    pub(crate) fn cooperative(self) -> bool {
        self == Assignor::CooperativeSticky
    }

    /// Every member's assignment; `partitions` gives each topic's partition count (a topic
    /// missing from it has none). Every partition of a subscribed topic goes to exactly one
    /// member subscribing to it, except, for the cooperative assignor, one still owned by
    /// another member: it is left out until its owner revoked it.
    pub(crate) fn assign(self, members: &[MemberSub], partitions: &BTreeMap<String, u32>) -> BTreeMap<String, Vec<Tp>> {
        let mut sorted: Vec<&MemberSub> = members.iter().collect();
        sorted.sort_by(|a, b| a.sort_key.cmp(&b.sort_key).then(a.member_id.cmp(&b.member_id)));
        let mut out: BTreeMap<String, Vec<Tp>> = members.iter().map(|m| (m.member_id.clone(), Vec::new())).collect();
        let subscribes = |m: &MemberSub, topic: &str| m.subscription.topics.iter().any(|t| t == topic);
        match self {
            Assignor::Range => {
                for (topic, &n) in partitions {
                    let takers: Vec<&&MemberSub> = sorted.iter().filter(|m| subscribes(m, topic)).collect();
                    if takers.is_empty() {
                        continue;
                    }
                    let (per, extra) = (n as usize / takers.len(), n as usize % takers.len());
                    for (i, m) in takers.iter().enumerate() {
                        let start = i * per + i.min(extra);
                        let len = per + usize::from(i < extra);
                        let mine = (start..start + len).map(|p| (topic.clone(), p as u32));
                        out.get_mut(&m.member_id).expect("listed").extend(mine);
                    }
                }
            }
            Assignor::RoundRobin => {
                let mut turn = 0;
                for (topic, &n) in partitions {
                    for p in 0..n {
                        let Some(offset) =
                            (0..sorted.len()).find(|k| subscribes(sorted[(turn + k) % sorted.len()], topic))
                        else {
                            break;
                        };
                        let m = sorted[(turn + offset) % sorted.len()];
                        out.get_mut(&m.member_id).expect("listed").push((topic.clone(), p));
                        turn = (turn + offset + 1) % sorted.len();
                    }
                }
            }
            Assignor::CooperativeSticky => return sticky(&sorted, partitions),
        }
        out
    }
}

/// The sticky target: each member keeps what it owns up to its fair share, the rest goes to
/// the least loaded members subscribing to it; then (cooperative) a partition another member
/// still owns is held back from its new owner until it is revoked.
fn sticky(sorted: &[&MemberSub], partitions: &BTreeMap<String, u32>) -> BTreeMap<String, Vec<Tp>> {
    let subscribes = |m: &MemberSub, topic: &str| m.subscription.topics.iter().any(|t| t == topic);
    let all: Vec<Tp> = partitions.iter().flat_map(|(t, &n)| (0..n).map(move |p| (t.clone(), p))).collect();
    let eligible: Vec<Tp> = all.into_iter().filter(|(t, _)| sorted.iter().any(|m| subscribes(m, t))).collect();
    // Who owns what: of two claims, the newer generation's (KIP-792).
    let mut owner: BTreeMap<Tp, (i32, String)> = BTreeMap::new();
    for m in sorted {
        for tp in &m.subscription.owned {
            let claim = (m.subscription.generation, m.member_id.clone());
            if owner.get(tp).map_or(true, |c| c.0 < claim.0) {
                owner.insert(tp.clone(), claim);
            }
        }
    }
    let (n, m) = (eligible.len(), sorted.len().max(1));
    let (floor, mut with_extra) = (n / m, n % m);
    let mut target: BTreeMap<String, BTreeSet<Tp>> =
        sorted.iter().map(|s| (s.member_id.clone(), BTreeSet::new())).collect();
    let mut taken: BTreeSet<Tp> = BTreeSet::new();
    // Owners keep theirs, most-owning first, up to floor (or floor + 1 while extras last).
    let mut by_owned: Vec<&&MemberSub> = sorted.iter().collect();
    by_owned.sort_by_key(|s| std::cmp::Reverse(owner.values().filter(|(_, id)| *id == s.member_id).count()));
    for s in by_owned {
        let keep: Vec<Tp> = eligible
            .iter()
            .filter(|tp| owner.get(*tp).is_some_and(|(_, id)| *id == s.member_id) && subscribes(s, &tp.0))
            .cloned()
            .collect();
        let cap = if keep.len() > floor && with_extra > 0 {
            with_extra -= 1;
            floor + 1
        } else {
            floor
        };
        for tp in keep.into_iter().take(cap) {
            taken.insert(tp.clone());
            target.get_mut(&s.member_id).expect("listed").insert(tp);
        }
    }
    // The rest to the least loaded member that subscribes to its topic.
    for tp in eligible.iter().filter(|tp| !taken.contains(*tp)) {
        let to = sorted
            .iter()
            .filter(|s| subscribes(s, &tp.0))
            .min_by_key(|s| target[&s.member_id].len())
            .map(|s| s.member_id.clone());
        if let Some(to) = to {
            target.get_mut(&to).expect("listed").insert(tp.clone());
        }
    }
    // KIP-429: not yet to a new owner while another member owns it.
    target
        .into_iter()
        .map(|(id, tps)| {
            let now: Vec<Tp> =
                tps.into_iter().filter(|tp| owner.get(tp).map_or(true, |(_, holder)| *holder == id)).collect();
            (id, now)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(id: &str, topics: &[&str], owned: &[(&str, u32)]) -> MemberSub {
        MemberSub {
            member_id: id.into(),
            sort_key: id.into(),
            subscription: Subscription {
                topics: topics.iter().map(|t| t.to_string()).collect(),
                owned: owned.iter().map(|(t, p)| (t.to_string(), *p)).collect(),
                generation: 1,
            },
        }
    }

    fn counts(a: &BTreeMap<String, Vec<Tp>>) -> Vec<usize> {
        a.values().map(Vec::len).collect()
    }

    #[test]
    fn range_gives_each_member_a_contiguous_run_per_topic_extras_to_the_first() {
        let ms = [member("a", &["t"], &[]), member("b", &["t"], &[])];
        let a = Assignor::Range.assign(&ms, &[("t".to_string(), 5)].into());
        assert_eq!(a["a"], vec![("t".into(), 0), ("t".into(), 1), ("t".into(), 2)]);
        assert_eq!(a["b"], vec![("t".into(), 3), ("t".into(), 4)]);
    }

    #[test]
    fn roundrobin_deals_partitions_in_turn() {
        let ms = [member("a", &["t"], &[]), member("b", &["t"], &[])];
        let a = Assignor::RoundRobin.assign(&ms, &[("t".to_string(), 3)].into());
        assert_eq!(a["a"], vec![("t".into(), 0), ("t".into(), 2)]);
        assert_eq!(a["b"], vec![("t".into(), 1)]);
    }

    #[test]
    fn kip429_cooperative_sticky_keeps_owned_partitions_and_holds_back_moving_ones() {
        // a owned all four; b joins: a keeps two, the two moving to b wait for a's revoke.
        let ms = [member("a", &["t"], &[("t", 0), ("t", 1), ("t", 2), ("t", 3)]), member("b", &["t"], &[])];
        let a = Assignor::CooperativeSticky.assign(&ms, &[("t".to_string(), 4)].into());
        assert_eq!(a["a"].len(), 2);
        assert!(a["b"].is_empty(), "held back while a owns them: {a:?}");
        // Next round a owns two: b gets the other two.
        let ms = [member("a", &["t"], &[("t", 0), ("t", 1)]), member("b", &["t"], &[])];
        let a = Assignor::CooperativeSticky.assign(&ms, &[("t".to_string(), 4)].into());
        assert_eq!(a["a"], vec![("t".into(), 0), ("t".into(), 1)]);
        assert_eq!(a["b"], vec![("t".into(), 2), ("t".into(), 3)]);
    }

    #[test]
    fn every_assignor_gives_each_partition_to_one_subscriber_balanced() {
        let ms = [member("a", &["t", "u"], &[]), member("b", &["t", "u"], &[]), member("c", &["t", "u"], &[])];
        let parts: BTreeMap<String, u32> = [("t".to_string(), 4), ("u".to_string(), 3)].into();
        for assignor in [Assignor::Range, Assignor::RoundRobin, Assignor::CooperativeSticky] {
            let a = assignor.assign(&ms, &parts);
            let all: BTreeSet<&Tp> = a.values().flatten().collect();
            assert_eq!(all.len(), 7, "{assignor:?}: {a:?}");
            assert_eq!(a.values().map(Vec::len).sum::<usize>(), 7, "{assignor:?}: once each");
            if assignor != Assignor::Range {
                let c = counts(&a);
                assert!(c.iter().max().unwrap() - c.iter().min().unwrap() <= 1, "{assignor:?}: {c:?}");
            }
        }
    }
}
