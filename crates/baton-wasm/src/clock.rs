//! The engine's clock.
//!
//! Milliseconds since the epoch, read as the page's time origin plus the
//! monotonic `performance.now()`. `Date.now()` follows the system clock,
//! which can jump backwards or forwards while a page is open (a time-zone
//! fix, a user setting the time, NTP): read there, a jump back would hold a
//! turn's deadman timer off for as long as the jump, and a jump forward
//! would fire every deadline at once. Anchored at the time origin, the
//! clock agrees with the wall clock when the page loaded and only moves
//! forward after that; deadlines persisted by an earlier page are compared
//! against it like any other time.

use std::cell::OnceCell;

use wasm_bindgen::JsCast;

thread_local! {
    static PERFORMANCE: OnceCell<Option<web_sys::Performance>> = const { OnceCell::new() };
}

/// Now, in milliseconds since the epoch, never going backwards in a page.
pub(crate) fn now_ms() -> f64 {
    PERFORMANCE.with(|cell| {
        let performance = cell.get_or_init(|| {
            // `performance` lives on the global object in windows and
            // workers alike.
            js_sys::Reflect::get(&js_sys::global(), &"performance".into())
                .ok()
                .and_then(|value| value.dyn_into::<web_sys::Performance>().ok())
        });
        match performance {
            Some(performance) => performance.time_origin() + performance.now(),
            None => js_sys::Date::now(),
        }
    })
}

/// [`now_ms`] in whole milliseconds, as the core counts time.
pub(crate) fn now() -> u64 {
    now_ms() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn the_clock_ignores_a_jump_of_the_system_clock() {
        let before = now_ms();
        // What a system time change looks like to the page: `Date.now()`
        // an hour behind.
        let date: js_sys::Object = js_sys::Reflect::get(&js_sys::global(), &"Date".into())
            .unwrap()
            .unchecked_into();
        let real = js_sys::Reflect::get(&date, &"now".into()).unwrap();
        let behind = js_sys::Function::new_no_args("return 0");
        js_sys::Reflect::set(&date, &"now".into(), &behind).unwrap();
        let during = now_ms();
        js_sys::Reflect::set(&date, &"now".into(), &real).unwrap();
        assert!(during >= before, "{during} < {before}");
        assert!((during - js_sys::Date::now()).abs() < 60_000.0);
    }
}
