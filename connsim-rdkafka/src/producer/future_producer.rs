//! `rdkafka::producer::FutureProducer`: `send` resolves when the message is delivered.

use super::core::{Core, Outgoing};
use crate::config::{ClientConfig, FromClientConfig, Settings};
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
    /// Partition; `None`: the default partitioner (CRC32 of the key; round robin without one).
    pub partition: Option<i32>,
    /// Payload.
    pub payload: Option<&'a P>,
    /// Key.
    pub key: Option<&'a K>,
    /// Timestamp in ms; `None`: now (virtual).
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

/// A message waiting to be sent, and where its delivery goes.
type Waiting = (Outgoing, oneshot::Sender<OwnedDeliveryResult>);

/// Messages handed over with [`FutureProducer::send_result`], and the task sending them
/// (librdkafka's background thread: it batches what is queued per partition).
#[derive(Default)]
struct Queue {
    /// Messages waiting with their delivery's sender, and whether the sending task runs.
    waiting: Mutex<(Vec<Waiting>, bool)>,
    drained: Notify,
}

/// A producer whose `send` waits for the delivery (`rdkafka::producer::FutureProducer`).
pub struct FutureProducer<C = crate::client_context::DefaultClientContext, R = DefaultRuntime> {
    pub(super) core: Arc<Core>,
    queue: Arc<Queue>,
    context: PhantomData<fn() -> (C, R)>,
}

impl<C, R> Clone for FutureProducer<C, R> {
    fn clone(&self) -> Self {
        FutureProducer { core: self.core.clone(), queue: self.queue.clone(), context: PhantomData }
    }
}

impl<R> FromClientConfig for FutureProducer<crate::client_context::DefaultClientContext, R> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        let core = Arc::new(Core::new(Settings::read(config)?)?);
        Ok(FutureProducer { core, queue: Arc::default(), context: PhantomData })
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

fn outgoing<K: ToBytes + ?Sized, P: ToBytes + ?Sized>(record: FutureRecord<'_, K, P>) -> Outgoing {
    Outgoing {
        topic: record.topic.to_string(),
        partition: record.partition,
        key: record.key.map(|k| k.to_bytes().to_vec()),
        payload: record.payload.map(|p| p.to_bytes().to_vec()),
        timestamp: record.timestamp,
        headers: record.headers,
    }
}

impl<C, R> FutureProducer<C, R> {
    /// Sends a message and waits for its delivery (the queue is never full here, so
    /// `queue_timeout` never expires).
    pub async fn send<K, P, T>(&self, record: FutureRecord<'_, K, P>, queue_timeout: T) -> OwnedDeliveryResult
    where
        K: ToBytes + ?Sized,
        P: ToBytes + ?Sized,
        T: Into<Timeout>,
    {
        let _ = queue_timeout.into();
        let out = outgoing(record);
        let copy = owned(&out);
        match self.core.send(out).await {
            Ok(d) => Ok(Delivery { partition: d.partition, offset: d.offset, timestamp: d.timestamp }),
            Err(e) => Err((e, copy)),
        }
    }

    /// Hands a message over without waiting: a background task of the producer sends what
    /// is queued in batches per partition; the future resolves with the delivery.
    #[allow(clippy::result_large_err)]
    pub fn send_result<'a, K, P>(
        &self,
        record: FutureRecord<'a, K, P>,
    ) -> Result<DeliveryFuture, (KafkaError, FutureRecord<'a, K, P>)>
    where
        K: ToBytes + ?Sized,
        P: ToBytes + ?Sized,
    {
        let (tx, rx) = oneshot::channel();
        let start = {
            let mut w = self.queue.waiting.lock().unwrap();
            w.0.push((outgoing(record), tx));
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
                    let copies: Vec<OwnedMessage> = messages.iter().map(owned).collect();
                    let results = core.send_batch(messages).await;
                    for ((result, tx), copy) in results.into_iter().zip(senders).zip(copies) {
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

    fn queued(&self) -> usize {
        self.queue.waiting.lock().unwrap().0.len()
    }
}

super::producer_api!(<C, R> FutureProducer<C, R>);
