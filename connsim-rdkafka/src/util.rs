//! `rdkafka::util`: librdkafka's version, timeouts, the clock in milliseconds, delivery
//! opaques and async runtimes.

use std::ffi::{c_char, c_void, CStr};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// librdkafka's version: `rd_kafka_version()` (`0xMMmmrrpp`, `pp` 0xff for a release) and
/// `rd_kafka_version_str()`, those of librdkafka 2.12.1, which rdkafka-sys 4.10.0 builds.
pub fn get_rdkafka_version() -> (i32, String) {
    (0x020c01ff, "2.12.1".to_owned())
}

/// How long a call may wait (`rdkafka::util::Timeout`).
#[derive(Copy, Clone, Debug, Eq, PartialEq, Ord, PartialOrd)]
pub enum Timeout {
    /// Time out after the duration.
    After(Duration),
    /// Wait forever.
    Never,
}

impl Timeout {
    /// The duration, `None` for [`Timeout::Never`].
    pub(crate) fn duration(self) -> Option<Duration> {
        match self {
            Timeout::After(d) => Some(d),
            Timeout::Never => None,
        }
    }
}

impl std::ops::SubAssign for Timeout {
    /// Shortens a timeout; [`Timeout::Never`] stays so. Panics when subtracting
    /// [`Timeout::Never`], or more than an [`Timeout::After`] has, as rdkafka's does.
    fn sub_assign(&mut self, other: Timeout) {
        match (self, other) {
            (Timeout::After(left), Timeout::After(right)) => *left -= right,
            (Timeout::Never, Timeout::After(_)) => {}
            (_, Timeout::Never) => panic!("subtraction of Timeout::Never is ill-defined"),
        }
    }
}

impl From<Duration> for Timeout {
    fn from(d: Duration) -> Timeout {
        Timeout::After(d)
    }
}

impl From<Option<Duration>> for Timeout {
    /// `None` waits forever.
    fn from(d: Option<Duration>) -> Timeout {
        d.map_or(Timeout::Never, Timeout::After)
    }
}

/// Milliseconds from the Unix epoch to `time`, 0 for a time before it.
pub fn millis_to_epoch(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_millis() as i64
}

/// Milliseconds since the Unix epoch now; in the simulation, on madsim's clock.
pub fn current_time_millis() -> i64 {
    millis_to_epoch(SystemTime::now())
}

/// The string a C string points to, invalid UTF-8 replaced (`rdkafka::util::cstr_to_owned`).
///
/// # Safety
///
/// `cstr` must point to a valid NUL-terminated string.
pub unsafe fn cstr_to_owned(cstr: *const c_char) -> String {
    // SAFETY: the caller's promise.
    unsafe { CStr::from_ptr(cstr) }.to_string_lossy().into_owned()
}

/// What a [`BaseRecord`](crate::producer::BaseRecord)'s delivery opaque can be
/// (`rdkafka::util::IntoOpaque`): it comes back with the message's delivery report. The
/// simulated producers move the value itself and never call the pointer conversions; they are
/// here, rdkafka's, so that a type of your own implements the same trait in both halves.
pub trait IntoOpaque: Send + Sync + Sized {
    /// The value as a raw pointer, for librdkafka.
    fn into_ptr(self) -> *mut c_void;

    /// The value back from its pointer.
    ///
    /// # Safety
    ///
    /// The pointer must come from [`IntoOpaque::into_ptr`], and be converted back at most once
    /// where that would alias (a [`Box`]).
    unsafe fn from_ptr(ptr: *mut c_void) -> Self;
}

impl IntoOpaque for () {
    fn into_ptr(self) -> *mut c_void {
        std::ptr::null_mut()
    }
    unsafe fn from_ptr(_: *mut c_void) -> Self {}
}

impl IntoOpaque for usize {
    fn into_ptr(self) -> *mut c_void {
        self as *mut c_void
    }
    unsafe fn from_ptr(ptr: *mut c_void) -> Self {
        ptr as usize
    }
}

impl<T: Send + Sync> IntoOpaque for Box<T> {
    fn into_ptr(self) -> *mut c_void {
        Box::into_raw(self).cast()
    }
    unsafe fn from_ptr(ptr: *mut c_void) -> Self {
        // SAFETY: `ptr` came from `Box::into_raw`, the caller promises.
        unsafe { Box::from_raw(ptr.cast()) }
    }
}

impl<T: Send + Sync> IntoOpaque for Arc<T> {
    fn into_ptr(self) -> *mut c_void {
        Arc::into_raw(self).cast_mut().cast()
    }
    unsafe fn from_ptr(ptr: *mut c_void) -> Self {
        // SAFETY: `ptr` came from `Arc::into_raw`, the caller promises.
        unsafe { Arc::from_raw(ptr.cast_const().cast()) }
    }
}

/// An async runtime rdkafka's clients run their background work on
/// (`rdkafka::util::AsyncRuntime`). The simulated clients take the parameter and run on the
/// simulator whatever it is; a runtime of your own implements the same trait in both halves.
pub trait AsyncRuntime: Send + Sync + 'static {
    /// What [`AsyncRuntime::delay_for`] returns.
    type Delay: Future<Output = ()> + Send;

    /// Runs a task to its end (or the runtime's).
    fn spawn<T>(task: T)
    where
        T: Future<Output = ()> + Send + 'static;

    /// Resolves after `duration`.
    fn delay_for(duration: Duration) -> Self::Delay;
}

/// Tokio as an [`AsyncRuntime`] (`rdkafka::util::TokioRuntime`); in the simulation, madsim's
/// tokio: tasks on the current node, sleeps on the simulated clock.
pub struct TokioRuntime;

impl AsyncRuntime for TokioRuntime {
    type Delay = tokio::time::Sleep;

    fn spawn<T>(task: T)
    where
        T: Future<Output = ()> + Send + 'static,
    {
        tokio::spawn(task);
    }

    fn delay_for(duration: Duration) -> Self::Delay {
        tokio::time::sleep(duration)
    }
}

/// The runtime of a client that names none (`rdkafka::util::DefaultRuntime`, [`TokioRuntime`]
/// with rdkafka's default features).
pub type DefaultRuntime = TokioRuntime;
