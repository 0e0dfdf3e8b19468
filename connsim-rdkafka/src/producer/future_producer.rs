//! `rdkafka::producer::FutureProducer`: `send` resolves when the message is delivered.

use super::core::{Core, Outgoing};
use super::partitioner::{NoCustomPartitioner, Partitioner};
use super::purge::PurgeConfig;
use super::{DeliveryResult, ProducerContext};
use crate::client::{Client, ClientContext, DefaultClientContext};
use crate::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext, Settings};
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::message::{OwnedHeaders, OwnedMessage, Timestamp, ToBytes};
use crate::util::{DefaultRuntime, Timeout};
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::sync::{oneshot, Notify};

/// A message for [`FutureProducer::send`] (`rdkafka::producer::FutureRecord`).
#[derive(Debug)]
pub struct FutureRecord<'a, K: ToBytes + ?Sized, P: ToBytes + ?Sized> {
    /// Topic.
    pub topic: &'a str,
    /// Partition; `None`: the partitioner's choice (`consistent_random` unless set).
    pub partition: Option<i32>,
    /// Payload.
    pub payload: Option<&'a P>,
    /// Key.
    pub key: Option<&'a K>,
    /// Timestamp in ms since the epoch; `None`: the wall clock's when it is produced.
    pub timestamp: Option<i64>,
    /// Headers.
    pub headers: Option<OwnedHeaders>,
}

impl<'a, K: ToBytes + ?Sized, P: ToBytes + ?Sized> FutureRecord<'a, K, P> {
    /// A message for `topic`.
    pub fn to(topic: &'a str) -> FutureRecord<'a, K, P> {
        FutureRecord { topic, partition: None, payload: None, key: None, timestamp: None, headers: None }
    }
    /// Sets the partition.
    pub fn partition(mut self, partition: i32) -> Self {
        self.partition = Some(partition);
        self
    }
    /// Sets the payload.
    pub fn payload(mut self, payload: &'a P) -> Self {
        self.payload = Some(payload);
        self
    }
    /// Sets the key.
    pub fn key(mut self, key: &'a K) -> Self {
        self.key = Some(key);
        self
    }
    /// Sets the timestamp.
    pub fn timestamp(mut self, timestamp: i64) -> Self {
        self.timestamp = Some(timestamp);
        self
    }
    /// Sets the headers.
    pub fn headers(mut self, headers: OwnedHeaders) -> Self {
        self.headers = Some(headers);
        self
    }
}

/// Where a message was delivered (`rdkafka::producer::future_producer::Delivery`).
#[derive(Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The partition.
    pub partition: i32,
    /// The offset (-1 with `acks=0`).
    pub offset: i64,
    /// The timestamp.
    pub timestamp: Timestamp,
}

/// A delivery, or why not with the message back.
pub type OwnedDeliveryResult = Result<Delivery, (KafkaError, OwnedMessage)>;

/// The context of a [`FutureProducer`] (`rdkafka::producer::FutureProducerContext`): the
/// client context it was created with, and the delivery reports that resolve its futures.
#[derive(Clone)]
pub struct FutureProducerContext<C: ClientContext + 'static> {
    wrapped_context: C,
}

impl<C: ClientContext + 'static> ClientContext for FutureProducerContext<C> {
    fn log(&self, level: crate::config::RDKafkaLogLevel, fac: &str, log_message: &str) {
        self.wrapped_context.log(level, fac, log_message);
    }
    fn error(&self, error: KafkaError, reason: &str) {
        self.wrapped_context.error(error, reason);
    }
    fn stats(&self, statistics: crate::statistics::Statistics) {
        self.wrapped_context.stats(statistics);
    }
    fn stats_raw(&self, statistics: &[u8]) {
        self.wrapped_context.stats_raw(statistics);
    }
}

impl<C: ClientContext + 'static, Part: Partitioner> ProducerContext<Part> for FutureProducerContext<C> {
    type DeliveryOpaque = Box<oneshot::Sender<OwnedDeliveryResult>>;
    fn delivery(&self, delivery_result: &DeliveryResult<'_>, tx: Self::DeliveryOpaque) {
        use crate::Message;
        let owned = match delivery_result {
            Ok(m) => Ok(Delivery { partition: m.partition(), offset: m.offset(), timestamp: m.timestamp() }),
            Err((e, m)) => Err((e.clone(), m.detach())),
        };
        let _ = tx.send(owned);
    }
}

/// A message waiting to be sent, and where its delivery goes.
type Waiting = (Outgoing, oneshot::Sender<OwnedDeliveryResult>);

/// Messages handed over with [`FutureProducer::send_result`], and the task sending them
/// (librdkafka's background thread: it batches what is queued per partition).
#[derive(Default)]
struct Queue {
    /// Messages waiting with their delivery's sender, and whether the sending task runs.
    waiting: Mutex<(Vec<Waiting>, bool)>,
    drained: Notify,
    /// The batch the task sends now: its messages' deliveries, copies and sizes. A purge of
    /// what is in flight takes them and reports `PurgeInflight` at once; the broker's answer
    /// then goes nowhere.
    in_flight: Mutex<Vec<InFlight>>,
}

/// A message in flight: where its delivery goes, the message to hand back, its size.
type InFlight = (oneshot::Sender<OwnedDeliveryResult>, OwnedMessage, usize);

/// A producer whose `send` waits for the delivery (`rdkafka::producer::FutureProducer`).
/// Dropping the last clone purges what is queued and in flight: each such message's future
/// resolves with `PurgeQueue` or `PurgeInflight`.
pub struct FutureProducer<C = DefaultClientContext, R = DefaultRuntime, Part = NoCustomPartitioner>
where
    C: ClientContext + 'static,
    Part: Partitioner,
{
    pub(super) core: Arc<Core>,
    queue: Arc<Queue>,
    client: Arc<Client<FutureProducerContext<C>>>,
    /// Held by the clones the application has (not by the sending task).
    owners: Arc<()>,
    types: PhantomData<fn() -> (R, Part)>,
}

impl<C: ClientContext + 'static, R, Part: Partitioner> Clone for FutureProducer<C, R, Part> {
    fn clone(&self) -> Self {
        FutureProducer {
            core: self.core.clone(),
            queue: self.queue.clone(),
            client: self.client.clone(),
            owners: self.owners.clone(),
            types: PhantomData,
        }
    }
}

impl<R> FromClientConfig for FutureProducer<DefaultClientContext, R> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        FutureProducer::from_config_and_context(config, DefaultClientContext)
    }
}

impl<C: ClientContext + 'static, R, Part: Partitioner + 'static> FromClientConfigAndContext<C>
    for FutureProducer<C, R, Part>
{
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        let core = Arc::new(Core::new(Settings::read(config)?)?);
        let context = Arc::new(FutureProducerContext { wrapped_context: context });
        let client = Client::new(core.wire.clone(), context).with_fatal(core.fatal.clone());
        Ok(FutureProducer {
            core,
            queue: Arc::default(),
            client: Arc::new(client),
            owners: Arc::new(()),
            types: PhantomData,
        })
    }
}

/// A message's delivery, from [`FutureProducer::send_result`]
/// (`rdkafka::producer::DeliveryFuture`); `Err(Canceled)` if the producer went away first.
pub struct DeliveryFuture {
    rx: oneshot::Receiver<OwnedDeliveryResult>,
}

/// The producer was dropped before the delivery (`futures::channel::oneshot::Canceled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Canceled;

impl Future for DeliveryFuture {
    type Output = Result<OwnedDeliveryResult, Canceled>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.rx).poll(cx).map(|r| r.map_err(|_| Canceled))
    }
}

fn owned(out: &Outgoing) -> OwnedMessage {
    OwnedMessage::new(
        out.payload.clone(),
        out.key.clone(),
        out.topic.clone(),
        out.timestamp.map_or(Timestamp::NotAvailable, Timestamp::CreateTime),
        out.partition.unwrap_or(-1),
        -1,
        out.headers.clone(),
    )
}

fn outgoing<K: ToBytes + ?Sized, P: ToBytes + ?Sized>(record: &FutureRecord<'_, K, P>) -> Outgoing {
    Outgoing {
        topic: record.topic.to_string(),
        partition: record.partition,
        key: record.key.map(|k| k.to_bytes().to_vec()),
        payload: record.payload.map(|p| p.to_bytes().to_vec()),
        timestamp: record.timestamp,
        headers: record.headers.clone(),
    }
}

/// How long `send` waits before it tries a full queue again (rdkafka's FutureProducer).
const QUEUE_FULL_RETRY: std::time::Duration = std::time::Duration::from_millis(100);

impl<C: ClientContext + 'static, R, Part: Partitioner> FutureProducer<C, R, Part> {
    /// The client under the producer (its fatal error, the cluster's metadata).
    pub fn client(&self) -> &Client<FutureProducerContext<C>> {
        &self.client
    }

    /// The producer's context.
    pub fn context(&self) -> &Arc<FutureProducerContext<C>> {
        self.client.context()
    }

    /// Sends a message and waits for its delivery. While the producer's queue is full
    /// (`queue.buffering.max.messages`/`.kbytes`), it tries again every 100 ms until
    /// `queue_timeout`, then fails with `QueueFull`, as rdkafka's does.
    pub async fn send<K, P, T>(&self, record: FutureRecord<'_, K, P>, queue_timeout: T) -> OwnedDeliveryResult
    where
        K: ToBytes + ?Sized,
        P: ToBytes + ?Sized,
        T: Into<Timeout>,
    {
        let deadline = crate::wire::deadline(queue_timeout.into());
        let mut record = record;
        loop {
            match self.send_result(record) {
                Ok(delivery) => match delivery.await {
                    Ok(result) => return result,
                    Err(Canceled) => unreachable!("the producer is held while it sends"),
                },
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), r))
                    if deadline.map_or(true, |d| madsim::time::Instant::now() < d) =>
                {
                    record = r;
                    madsim::time::sleep(QUEUE_FULL_RETRY).await;
                }
                Err((e, r)) => return Err((e, owned(&outgoing(&r)))),
            }
        }
    }

    /// Hands a message over without waiting: a background task of the producer sends what
    /// is queued in batches per partition; the future resolves with the delivery. A full
    /// queue refuses it at once (`QueueFull`).
    #[allow(clippy::result_large_err)]
    pub fn send_result<'a, K, P>(
        &self,
        record: FutureRecord<'a, K, P>,
    ) -> Result<DeliveryFuture, (KafkaError, FutureRecord<'a, K, P>)>
    where
        K: ToBytes + ?Sized,
        P: ToBytes + ?Sized,
    {
        if let Some(json) = self.core.stats_if_due() {
            crate::client::ClientContext::stats_raw(&**self.context(), &json);
        }
        let out = outgoing(&record);
        if let Err(e) = self.core.reserve(out.size()) {
            return Err((e, record));
        }
        let (tx, rx) = oneshot::channel();
        let start = {
            let mut w = self.queue.waiting.lock().unwrap();
            w.0.push((out, tx));
            !std::mem::replace(&mut w.1, true)
        };
        if start {
            let (core, queue) = (self.core.clone(), self.queue.clone());
            madsim::task::spawn(async move {
                loop {
                    let batch: Vec<_> = {
                        let mut w = queue.waiting.lock().unwrap();
                        if w.0.is_empty() {
                            w.1 = false;
                            break;
                        }
                        w.0.drain(..).collect()
                    };
                    let (messages, senders): (Vec<Outgoing>, Vec<_>) = batch.into_iter().unzip();
                    let flying = senders.into_iter().zip(&messages).map(|(tx, m)| (tx, owned(m), m.size()));
                    *queue.in_flight.lock().unwrap() = flying.collect();
                    let results = core.send_batch(messages).await;
                    let flown = std::mem::take(&mut *queue.in_flight.lock().unwrap());
                    // Empty if a purge took them meanwhile (and reported them).
                    for (result, (tx, copy, size)) in results.into_iter().zip(flown) {
                        core.release(size);
                        let _ = tx.send(match result {
                            Ok(d) => Ok(Delivery { partition: d.partition, offset: d.offset, timestamp: d.timestamp }),
                            Err(e) => Err((e, copy)),
                        });
                    }
                }
                queue.drained.notify_waiters();
            });
        }
        Ok(DeliveryFuture { rx })
    }

    /// Delivery reports are served by the producer's own task (rdkafka's polling thread):
    /// nothing to do.
    pub fn poll<T: Into<Timeout>>(&self, timeout: T) {
        let _ = timeout.into();
    }

    /// Waits until everything queued was answered, or `timeout` passed
    /// (`KafkaError::Flush(OperationTimedOut)`, what is queued staying queued).
    async fn flush_queue(&self, timeout: Timeout) -> KafkaResult<()> {
        let drained = async {
            loop {
                let notified = self.queue.drained.notified();
                if !self.queue.waiting.lock().unwrap().1 {
                    return;
                }
                notified.await;
            }
        };
        match timeout.duration() {
            None => {
                drained.await;
                Ok(())
            }
            Some(d) => madsim::time::timeout(d, drained)
                .await
                .map_err(|_| KafkaError::Flush(RDKafkaErrorCode::OperationTimedOut)),
        }
    }

    /// Purges what is queued (each future resolves `PurgeQueue`) and, if asked, what is in
    /// flight (`PurgeInflight`, whatever the broker does with it).
    fn purge_queue(&self, flags: PurgeConfig) {
        if flags.purges_inflight() {
            let purged = std::mem::take(&mut *self.queue.in_flight.lock().unwrap());
            for (tx, copy, size) in purged {
                self.core.release(size);
                let _ = tx.send(Err((KafkaError::MessageProduction(RDKafkaErrorCode::PurgeInflight), copy)));
            }
        }
        if !flags.purges_queue() {
            return;
        }
        let purged: Vec<Waiting> = std::mem::take(&mut self.queue.waiting.lock().unwrap().0);
        for (out, tx) in purged {
            self.core.release(out.size());
            let _ = tx.send(Err((KafkaError::MessageProduction(RDKafkaErrorCode::PurgeQueue), owned(&out))));
        }
    }

    fn in_flight(&self) -> usize {
        self.core.pending()
    }
}

impl<C: ClientContext + 'static, R, Part: Partitioner> Drop for FutureProducer<C, R, Part> {
    fn drop(&mut self) {
        if Arc::strong_count(&self.owners) == 1 {
            self.purge_queue(PurgeConfig::default().queue().inflight());
        }
    }
}

super::producer_api!(<C, R, Part> FutureProducer<C, R, Part> where C: ClientContext + 'static, Part: Partitioner);
