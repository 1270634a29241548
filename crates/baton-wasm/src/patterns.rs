//! The core's pattern port backed by the page's own `RegExp` with the `u`
//! flag: JSON Schema's patterns are ECMA-262, which is what the page already
//! runs, so the package ships no regular expression engine of its own. The
//! core reads every pattern first and refuses those a backtracking engine
//! could freeze on; this only compiles and runs what it accepted.

use std::cell::RefCell;

use baton_schema::{CompiledPattern, InvalidPattern, PatternEngine};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `RegExp(pattern, flags)`, which throws a `SyntaxError` on a bad pattern.
    #[wasm_bindgen(catch, js_name = RegExp)]
    fn reg_exp(pattern: &str, flags: &str) -> Result<js_sys::RegExp, JsValue>;
}

thread_local! {
    /// Compiled `RegExp`s, by slot; a freed slot is reused.
    static COMPILED: RefCell<Vec<Option<js_sys::RegExp>>> = const { RefCell::new(Vec::new()) };
}

/// The page's `RegExp`.
pub(crate) struct PageRegExp;

/// A `RegExp` held in [`COMPILED`], freed when the core drops it.
struct Slot(usize);

impl PatternEngine for PageRegExp {
    fn compile(&self, pattern: &str) -> Result<Box<dyn CompiledPattern>, InvalidPattern> {
        let compiled = reg_exp(pattern, "u").map_err(|thrown| {
            InvalidPattern(
                thrown
                    .dyn_ref::<js_sys::Error>()
                    .map(|error| String::from(error.message()))
                    .unwrap_or_else(|| "the page's RegExp refused it".to_owned()),
            )
        })?;
        let slot = COMPILED.with(|compiled_all| {
            let mut all = compiled_all.borrow_mut();
            match all.iter().position(Option::is_none) {
                Some(free) => {
                    all[free] = Some(compiled);
                    free
                }
                None => {
                    all.push(Some(compiled));
                    all.len() - 1
                }
            }
        });
        Ok(Box::new(Slot(slot)))
    }
}

impl CompiledPattern for Slot {
    fn is_match(&self, text: &str) -> bool {
        COMPILED.with(|all| {
            all.borrow()
                .get(self.0)
                .and_then(Option::as_ref)
                .is_some_and(|regexp| regexp.test(text))
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        COMPILED.with(|all| {
            if let Some(slot) = all.borrow_mut().get_mut(self.0) {
                *slot = None;
            }
        });
    }
}

/// Installs the page's `RegExp` as the core's pattern engine, when the
/// module starts.
#[wasm_bindgen(start)]
pub fn start() {
    ensure();
}

/// Installs the page's `RegExp` unless it is installed already; every entry
/// point that compiles a schema calls it, so no path depends on the start
/// function having run.
pub(crate) fn ensure() {
    thread_local! {
        static INSTALLED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if !INSTALLED.get() {
        baton_schema::install_pattern_engine(Box::new(PageRegExp));
        INSTALLED.set(true);
    }
}
