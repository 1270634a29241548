//! The core's timers in the page: one `setTimeout` for the core's next
//! deadline (`poll_timeout`), replaced when it moves; nothing busy-waits.
//! Time itself is the monotonic clock of `crate::clock`.

use super::*;

/// Arms one timeout for the core's next deadline; nothing busy-waits.
pub(super) fn arm_timer(inner: &Shared) {
    let next = inner.core(baton_core::Engine::poll_timeout);
    let next = inner.timer(|timer| {
        // A step that leaves the deadline where it was keeps its timeout
        // (most steps of a run do); any other replaces it, which cancels it.
        if matches!((&*timer, next), (Some((armed, _)), Some(at)) if *armed == at) {
            return None;
        }
        timer.take();
        next
    });
    let Some(at) = next else {
        return;
    };
    let delay = u32::try_from(at.saturating_sub(now()).min(i32::MAX as u64)).unwrap_or(u32::MAX);
    let weak = inner.downgrade();
    let timeout = gloo_timers::callback::Timeout::new(delay, move || {
        if let Some(inner) = weak.upgrade() {
            inner.timer(|timer| *timer = None);
            inner.tell(baton_core::Signal::Timeout);
        }
    });
    inner.timer(|timer| *timer = Some((at, timeout)));
}
