//! `rdkafka::producer::ThreadedProducer`: a [`BaseProducer`] whose delivery reports are
//! served by a task of its own (rdkafka's polling thread), so the application only sends.

use super::base_producer_impl::{BaseProducer, BaseRecord};
use super::context::ProducerContext;
use super::partitioner::{NoCustomPartitioner, Partitioner};
use super::purge::PurgeConfig;
use crate::client::Client;
use crate::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext};
use crate::error::{KafkaError, KafkaResult};
use crate::message::ToBytes;
use crate::util::Timeout;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::Notify;

/// A base producer polled by a task of its own (`rdkafka::producer::ThreadedProducer`).
pub struct ThreadedProducer<C: ProducerContext<Part> + 'static, Part: Partitioner + 'static = NoCustomPartitioner> {
    producer: Arc<BaseProducer<C, Part>>,
    pub(super) core: Arc<super::core::Core>,
    wake: Arc<Notify>,
    stop: Arc<AtomicBool>,
}

impl FromClientConfig for ThreadedProducer<super::DefaultProducerContext> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        ThreadedProducer::from_config_and_context(config, super::DefaultProducerContext)
    }
}

impl<C: ProducerContext<Part> + 'static, Part: Partitioner + Send + Sync + 'static> FromClientConfigAndContext<C>
    for ThreadedProducer<C, Part>
{
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        let producer = Arc::new(BaseProducer::from_config_and_context(config, context)?);
        let (wake, stop) = (Arc::new(Notify::new()), Arc::new(AtomicBool::new(false)));
        let (p, w, s) = (producer.clone(), wake.clone(), stop.clone());
        madsim::task::spawn(async move {
            // Each send wakes it; it delivers what is queued and serves the reports.
            while !s.load(Ordering::SeqCst) {
                w.notified().await;
                p.poll(Timeout::Never).await;
            }
        });
        Ok(ThreadedProducer { core: producer.core.clone(), producer, wake, stop })
    }
}

impl<C: ProducerContext<Part> + 'static, Part: Partitioner + 'static> ThreadedProducer<C, Part> {
    /// Queues a message for the producer's task to send.
    #[allow(clippy::result_large_err, clippy::type_complexity)]
    pub fn send<'a, K, P>(
        &self,
        record: BaseRecord<'a, K, P, C::DeliveryOpaque>,
    ) -> Result<(), (KafkaError, BaseRecord<'a, K, P, C::DeliveryOpaque>)>
    where
        K: ToBytes + ?Sized,
        P: ToBytes + ?Sized,
    {
        self.producer.send(record)?;
        self.wake.notify_one();
        Ok(())
    }

    /// The producer's task serves delivery reports: nothing to do.
    pub fn poll<T: Into<Timeout>>(&self, timeout: T) {
        let _ = timeout.into();
    }

    /// The producer's context.
    pub fn context(&self) -> &Arc<C> {
        self.producer.context()
    }

    /// The client under the producer.
    pub fn client(&self) -> &Client<C> {
        self.producer.client()
    }

    async fn flush_queue(&self, timeout: Timeout) -> KafkaResult<()> {
        crate::producer::Producer::flush(&*self.producer, timeout).await
    }

    fn purge_queue(&self, flags: PurgeConfig) {
        crate::producer::Producer::purge(&*self.producer, flags)
    }

    fn in_flight(&self) -> usize {
        crate::producer::Producer::in_flight_count(&*self.producer) as usize
    }
}

impl<C: ProducerContext<Part> + 'static, Part: Partitioner + 'static> Drop for ThreadedProducer<C, Part> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }
}

super::producer_api!(<C, Part> ThreadedProducer<C, Part> where C: ProducerContext<Part> + 'static, Part: Partitioner + 'static);
