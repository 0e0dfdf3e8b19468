//! `rdkafka::statistics`: librdkafka's statistics JSON parses into rdkafka's `Statistics`
//! with every value in the field of its name, and a context's default `stats_raw` hands the
//! parsed statistics to `stats`.
#![cfg(madsim)]

use rdkafka::statistics::{Broker, Partition, Statistics};
use rdkafka::ClientContext;
use std::sync::Mutex;

extern crate connsim_rdkafka as rdkafka;

/// STATISTICS.md's example output (librdkafka 2.12.1), trimmed to one broker and one topic,
/// with the fields `rd_kafka_stats_emit_all` writes since that example was taken (`age`,
/// `txidle`, `rxidle`, `connects`, `disconnects`, `outbuf_latency`, `req`, a topic's `age`,
/// a partition's `ls_offset`, `consumer_lag_stored`, leader epochs, `msgs_inflight` and the
/// idempotence sequences) and an `eos` section with STATISTICS.md's example states.
const PRODUCER: &str = r#"{
  "name": "rdkafka#producer-1",
  "client_id": "rdkafka",
  "type": "producer",
  "ts": 5016483227792,
  "time": 1527060869,
  "age": 9060452,
  "replyq": 0,
  "msg_cnt": 22710,
  "msg_size": 704010,
  "msg_max": 500000,
  "msg_size_max": 1073741824,
  "simple_cnt": 0,
  "metadata_cache_cnt": 1,
  "brokers": {
    "localhost:9092/2": {
      "name": "localhost:9092/2",
      "nodeid": 2,
      "nodename": "localhost:9092",
      "source": "learned",
      "state": "UP",
      "stateage": 9057234,
      "outbuf_cnt": 0,
      "outbuf_msg_cnt": 0,
      "waitresp_cnt": 0,
      "waitresp_msg_cnt": 0,
      "tx": 320,
      "txbytes": 84283332,
      "txerrs": 0,
      "txretries": 0,
      "txidle": 1543,
      "req_timeouts": 0,
      "rx": 320,
      "rxbytes": 15708,
      "rxerrs": 0,
      "rxcorriderrs": 0,
      "rxpartial": 0,
      "rxidle": 1022,
      "zbuf_grow": 0,
      "buf_grow": 0,
      "wakeups": 591067,
      "connects": 1,
      "disconnects": 0,
      "int_latency": {
        "min": 86,
        "max": 59375,
        "avg": 23726,
        "sum": 5694616664,
        "stddev": 13982,
        "p50": 28031,
        "p75": 36095,
        "p90": 39679,
        "p95": 43263,
        "p99": 48639,
        "p99_99": 59391,
        "outofrange": 0,
        "hdrsize": 11376,
        "cnt": 240012
      },
      "outbuf_latency": {
        "min": 0, "max": 0, "avg": 0, "sum": 0, "stddev": 0, "p50": 0, "p75": 0, "p90": 0,
        "p95": 0, "p99": 0, "p99_99": 0, "outofrange": 0, "hdrsize": 11376, "cnt": 0
      },
      "rtt": {
        "min": 1580,
        "max": 3389,
        "avg": 2349,
        "sum": 79868,
        "stddev": 474,
        "p50": 2319,
        "p75": 2543,
        "p90": 3183,
        "p95": 3199,
        "p99": 3391,
        "p99_99": 3391,
        "outofrange": 0,
        "hdrsize": 13424,
        "cnt": 34
      },
      "throttle": {
        "min": 0, "max": 0, "avg": 0, "sum": 0, "stddev": 0, "p50": 0, "p75": 0, "p90": 0,
        "p95": 0, "p99": 0, "p99_99": 0, "outofrange": 0, "hdrsize": 17520, "cnt": 34
      },
      "req": { "Produce": 318, "ListOffsets": 0, "Metadata": 2, "ApiVersion": 1, "InitProducerId": 1 },
      "toppars": {
        "test-1": {
          "topic": "test",
          "partition": 1
        }
      }
    }
  },
  "topics": {
    "test": {
      "topic": "test",
      "age": 9060,
      "metadata_age": 9060,
      "batchsize": {
        "min": 99,
        "max": 391805,
        "avg": 272593,
        "sum": 18808985,
        "stddev": 180408,
        "p50": 393215,
        "p75": 393215,
        "p90": 393215,
        "p95": 393215,
        "p99": 393215,
        "p99_99": 393215,
        "outofrange": 0,
        "hdrsize": 14448,
        "cnt": 69
      },
      "batchcnt": {
        "min": 1,
        "max": 10000,
        "avg": 6956,
        "sum": 480028,
        "stddev": 4608,
        "p50": 10047,
        "p75": 10047,
        "p90": 10047,
        "p95": 10047,
        "p99": 10047,
        "p99_99": 10047,
        "outofrange": 0,
        "hdrsize": 8304,
        "cnt": 69
      },
      "partitions": {
        "1": {
          "partition": 1,
          "broker": 2,
          "leader": 2,
          "desired": false,
          "unknown": false,
          "msgq_cnt": 0,
          "msgq_bytes": 0,
          "xmit_msgq_cnt": 0,
          "xmit_msgq_bytes": 0,
          "fetchq_cnt": 0,
          "fetchq_size": 0,
          "fetch_state": "none",
          "query_offset": 0,
          "next_offset": 0,
          "app_offset": -1001,
          "stored_offset": -1001,
          "stored_leader_epoch": -1,
          "commited_offset": -1001,
          "committed_offset": -1001,
          "committed_leader_epoch": -1,
          "eof_offset": -1001,
          "lo_offset": -1001,
          "hi_offset": -1001,
          "ls_offset": -1001,
          "consumer_lag": -1,
          "consumer_lag_stored": -1,
          "leader_epoch": 0,
          "txmsgs": 2150136,
          "txbytes": 66654216,
          "rxmsgs": 0,
          "rxbytes": 0,
          "msgs": 2159735,
          "rx_ver_drops": 0,
          "msgs_inflight": 9599,
          "next_ack_seq": 2150136,
          "next_err_seq": 0,
          "acked_msgid": 2150136
        },
        "-1": {
          "partition": -1,
          "broker": -1,
          "leader": -1,
          "desired": false,
          "unknown": false,
          "msgq_cnt": 0,
          "msgq_bytes": 0,
          "xmit_msgq_cnt": 0,
          "xmit_msgq_bytes": 0,
          "fetchq_cnt": 0,
          "fetchq_size": 0,
          "fetch_state": "none",
          "query_offset": -1001,
          "next_offset": 0,
          "app_offset": -1001,
          "stored_offset": -1001,
          "stored_leader_epoch": -1,
          "commited_offset": -1001,
          "committed_offset": -1001,
          "committed_leader_epoch": -1,
          "eof_offset": -1001,
          "lo_offset": -1001,
          "hi_offset": -1001,
          "ls_offset": -1001,
          "consumer_lag": -1,
          "consumer_lag_stored": -1,
          "leader_epoch": -1,
          "txmsgs": 0,
          "txbytes": 0,
          "rxmsgs": 0,
          "rxbytes": 0,
          "msgs": 1177,
          "rx_ver_drops": 0,
          "msgs_inflight": 0,
          "next_ack_seq": 0,
          "next_err_seq": 0,
          "acked_msgid": 0
        }
      }
    }
  },
  "eos": {
    "idemp_state": "Assigned",
    "idemp_stateage": 9057,
    "txn_state": "InTransaction",
    "txn_stateage": 120,
    "txn_may_enq": true,
    "producer_id": 1000,
    "producer_epoch": 0,
    "epoch_cnt": 1
  },
  "tx": 631,
  "tx_bytes": 168584479,
  "rx": 631,
  "rx_bytes": 31084,
  "txmsgs": 4300753,
  "txmsg_bytes": 133323343,
  "rxmsgs": 0,
  "rxmsg_bytes": 0
}"#;

/// A consumer's `cgrp` section, with STATISTICS.md's example states.
const CGRP: &str = r#"{
  "state": "up",
  "stateage": 14995,
  "join_state": "steady",
  "rebalance_age": 14986,
  "rebalance_cnt": 1,
  "rebalance_reason": "group is rebalancing",
  "assignment_size": 4
}"#;

fn parse(json: &str) -> Statistics {
    serde_json::from_str(json).expect("librdkafka's statistics parse")
}

fn broker(stats: &Statistics) -> &Broker {
    &stats.brokers["localhost:9092/2"]
}

fn partition(stats: &Statistics, id: i32) -> &Partition {
    &stats.topics["test"].partitions[&id]
}

#[test]
fn librdkafkas_top_level_fields_land_in_statistics() {
    let stats = parse(PRODUCER);
    assert_eq!((stats.name.as_str(), stats.client_id.as_str()), ("rdkafka#producer-1", "rdkafka"));
    assert_eq!(stats.client_type, "producer");
    assert_eq!((stats.ts, stats.time, stats.age, stats.replyq), (5016483227792, 1527060869, 9060452, 0));
    assert_eq!((stats.msg_cnt, stats.msg_size, stats.msg_max, stats.msg_size_max), (22710, 704010, 500000, 1073741824));
    assert_eq!((stats.simple_cnt, stats.metadata_cache_cnt), (0, 1));
    assert_eq!((stats.tx, stats.tx_bytes, stats.rx, stats.rx_bytes), (631, 168584479, 631, 31084));
    assert_eq!((stats.txmsgs, stats.txmsg_bytes, stats.rxmsgs, stats.rxmsg_bytes), (4300753, 133323343, 0, 0));
    assert!(stats.cgrp.is_none());
}

#[test]
fn librdkafkas_broker_fields_land_in_broker() {
    let stats = parse(PRODUCER);
    assert_eq!(stats.brokers.len(), 1);
    let b = broker(&stats);
    assert_eq!((b.name.as_str(), b.nodeid, b.nodename.as_str()), ("localhost:9092/2", 2, "localhost:9092"));
    assert_eq!((b.source.as_str(), b.state.as_str(), b.stateage), ("learned", "UP", 9057234));
    assert_eq!((b.tx, b.txbytes, b.txidle, b.rx, b.rxbytes, b.rxidle), (320, 84283332, 1543, 320, 15708, 1022));
    assert_eq!((b.wakeups, b.connects, b.disconnects), (Some(591067), Some(1), Some(0)));
    assert_eq!((b.req["Produce"], b.req["InitProducerId"], b.req.len()), (318, 1, 5));
    let tp = &b.toppars["test-1"];
    assert_eq!((tp.topic.as_str(), tp.partition), ("test", 1));
}

#[test]
fn librdkafkas_windows_land_in_window() {
    let stats = parse(PRODUCER);
    let rtt = broker(&stats).rtt.as_ref().expect("rtt");
    assert_eq!((rtt.min, rtt.max, rtt.avg, rtt.sum, rtt.cnt, rtt.stddev), (1580, 3389, 2349, 79868, 34, 474));
    assert_eq!((rtt.p50, rtt.p75, rtt.p90, rtt.p95, rtt.p99, rtt.p99_99), (2319, 2543, 3183, 3199, 3391, 3391));
    assert_eq!((rtt.hdrsize, rtt.outofrange), (13424, 0));
    let topic = &stats.topics["test"];
    assert_eq!((topic.topic.as_str(), topic.metadata_age), ("test", 9060));
    assert_eq!((topic.batchsize.max, topic.batchcnt.max), (391805, 10000));
}

#[test]
fn librdkafkas_partition_fields_land_in_partition_keyed_by_id() {
    let stats = parse(PRODUCER);
    assert_eq!(stats.topics["test"].partitions.len(), 2);
    let p = partition(&stats, 1);
    assert_eq!((p.partition, p.broker, p.leader, p.desired, p.unknown), (1, 2, 2, false, false));
    assert_eq!((p.fetch_state.as_str(), p.query_offset, p.next_offset, p.app_offset), ("none", 0, 0, -1001));
    assert_eq!((p.committed_offset, p.ls_offset, p.consumer_lag, p.consumer_lag_stored), (-1001, -1001, -1, -1));
    assert_eq!((p.txmsgs, p.txbytes, p.msgs, p.msgs_inflight), (2150136, 66654216, 2159735, 9599));
    assert_eq!((p.next_ack_seq, p.acked_msgid), (2150136, 2150136));
    let ua = partition(&stats, -1);
    assert_eq!((ua.partition, ua.broker, ua.msgs), (-1, -1, 1177));
}

#[test]
fn librdkafkas_eos_section_lands_in_exactly_once_semantics() {
    let eos = parse(PRODUCER).eos.expect("an idempotent producer's statistics have eos");
    assert_eq!((eos.idemp_state.as_str(), eos.idemp_stateage), ("Assigned", 9057));
    assert_eq!((eos.txn_state.as_str(), eos.txn_stateage, eos.txn_may_enq), ("InTransaction", 120, true));
    assert_eq!((eos.producer_id, eos.producer_epoch, eos.epoch_cnt), (1000, 0, 1));
}

#[test]
fn librdkafkas_cgrp_section_lands_in_consumer_group() {
    let mut json: serde_json::Value = serde_json::from_str(PRODUCER).expect("JSON");
    let doc = json.as_object_mut().expect("an object");
    doc.remove("eos");
    doc.insert("cgrp".into(), serde_json::from_str(CGRP).expect("JSON"));
    let stats: Statistics = serde_json::from_value(json).expect("a consumer's statistics parse");
    let g = stats.cgrp.expect("cgrp");
    assert_eq!((g.state.as_str(), g.stateage, g.join_state.as_str()), ("up", 14995, "steady"));
    assert_eq!((g.rebalance_age, g.rebalance_cnt, g.assignment_size), (14986, 1, 4));
    assert_eq!(g.rebalance_reason, "group is rebalancing");
    assert!(stats.eos.is_none());
}

/// rdkafka's types require the fields librdkafka 2.x writes: a document without one does not
/// parse (here `age`, which the older example in STATISTICS.md lacks).
#[test]
fn a_document_missing_a_required_field_does_not_parse() {
    let mut json: serde_json::Value = serde_json::from_str(PRODUCER).expect("JSON");
    json.as_object_mut().expect("an object").remove("age");
    let err = serde_json::from_value::<Statistics>(json).expect_err("age is required");
    assert!(err.to_string().contains("missing field `age`"), "{err}");
}

#[test]
fn statistics_serialize_to_librdkafkas_field_names() {
    let json = serde_json::to_value(parse(PRODUCER)).expect("serializes");
    assert_eq!(json["type"], "producer");
    assert_eq!(json["topics"]["test"]["partitions"]["1"]["txmsgs"], 2150136);
    let again: Statistics = serde_json::from_value(json).expect("parses back");
    assert_eq!(again.brokers["localhost:9092/2"].rx, 320);
}

/// A context that keeps the statistics `stats` receives.
#[derive(Default)]
struct Keeps(Mutex<Vec<Statistics>>);

impl ClientContext for Keeps {
    fn stats(&self, statistics: Statistics) {
        self.0.lock().expect("not poisoned").push(statistics);
    }
}

#[test]
fn the_default_stats_raw_parses_and_calls_stats() {
    let ctx = Keeps::default();
    ctx.stats_raw(PRODUCER.as_bytes());
    let kept = ctx.0.lock().expect("not poisoned");
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].msg_cnt, 22710);
}

#[test]
fn the_default_stats_raw_drops_what_does_not_parse() {
    let ctx = Keeps::default();
    ctx.stats_raw(b"{\"name\": ");
    ctx.stats_raw(b"{}");
    assert!(ctx.0.lock().expect("not poisoned").is_empty());
}

#[test]
fn the_default_stats_does_nothing() {
    rdkafka::DefaultClientContext.stats(parse(PRODUCER));
    rdkafka::DefaultClientContext.stats_raw(PRODUCER.as_bytes());
}
