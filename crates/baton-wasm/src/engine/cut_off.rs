//! What a reload cut off while it waited for the person, offered again
//! (A.2, AG-11). The core decides and journals; an engine that reconciled a
//! session that is gone adopted that session's offers when it opened.

use super::*;
use baton_core::{Discard, ReviewCutOff};

#[wasm_bindgen]
impl Engine {
    /// What a reload cut off while it waited for the person — a plan under
    /// review, a call to allow, a question — offered again:
    /// `[{ run, intent, waiting: "review" | "answer" }]`. Take one up with
    /// `reviewAgain(run)`, or `discard(run)`.
    #[wasm_bindgen(js_name = cutOff)]
    pub fn cut_off(&self) -> Result<JsValue, JsValue> {
        self.live()?.core(|core| to_js(&core.cut_off()))
    }

    /// Puts what a cut-off run showed the person before them again, in a
    /// new run chained to it (AG-11): the plan under review, its calls
    /// previewed again against the reads as they are now (an act planned on
    /// a read that changed since is marked stale), or the question. Returns
    /// the new run's id; throws `not-cut-off` when nothing is offered under
    /// that id.
    #[wasm_bindgen(js_name = reviewAgain)]
    pub fn review_again(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
    ) -> Result<String, JsValue> {
        let run = convert::id(&run, "`run`")?;
        self.command(ReviewCutOff(RunId::new(run)))
            .map(|id| id.to_string())
    }

    /// Discards what a cut-off run offers: journalled on it as the person's
    /// act, and offered no more.
    pub fn discard(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
    ) -> Result<(), JsValue> {
        let run = convert::id(&run, "`run`")?;
        self.command(Discard(RunId::new(run)))
    }
}
