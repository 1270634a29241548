//! JSON text (RFC 8259) to an [`Instance`], in one pass over the bytes.
//!
//! Only the structure is read by hand. What JSON leaves to a careful
//! reader — a string's escapes and surrogate pairs, a number that is not a
//! short integer — goes to `serde_json`, the module's one JSON parser, so
//! both agree on every value and on what is refused.

use std::borrow::Cow;

use serde_json::{Number, Value};

use super::Instance;

/// How deeply arrays and objects may nest, as `serde_json` allows: a value
/// nested deeper is refused instead of recursing toward the end of the
/// WebAssembly stack.
const MAX_NESTING: usize = 128;

/// The most digits a plain integer may have to be read without
/// `serde_json` (any 18 digits fit in an `i64`).
const SHORT_INTEGER: usize = 18;

/// Why text is not JSON, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} at line {line} column {column}")]
pub struct NotJson {
    what: String,
    line: usize,
    column: usize,
}

/// The value that `text` holds, or why it holds none.
pub(crate) fn parse(text: &str) -> Result<Instance<'_>, NotJson> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    parser.space();
    let value = parser.value()?;
    parser.space();
    if parser.at < parser.bytes.len() {
        return Err(parser.refuse("trailing characters"));
    }
    Ok(value)
}

struct Parser<'t> {
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
    depth: usize,
}

impl<'t> Parser<'t> {
    fn refuse(&self, what: &str) -> NotJson {
        self.refuse_at(self.at, what)
    }

    /// `what` is wrong at byte `at`, told by line and column as an editor
    /// counts them.
    fn refuse_at(&self, at: usize, what: &str) -> NotJson {
        let at = at.min(self.bytes.len());
        let before = &self.bytes[..at];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        NotJson {
            what: what.to_owned(),
            line: before.iter().filter(|&&b| b == b'\n').count() + 1,
            // Characters, not bytes: every byte but a UTF-8 continuation
            // starts one.
            column: before[line_start..]
                .iter()
                .filter(|&&b| b & 0xC0 != 0x80)
                .count()
                + 1,
        }
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    #[inline(always)]
    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// Steps over `byte` (after any space), or refuses with `what`.
    fn expect(&mut self, byte: u8, what: &str) -> Result<(), NotJson> {
        self.space();
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.refuse(what))
        }
    }

    fn value(&mut self) -> Result<Instance<'t>, NotJson> {
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Instance::String(self.string()?)),
            Some(b't') => self.literal("true", Instance::Bool(true)),
            Some(b'f') => self.literal("false", Instance::Bool(false)),
            Some(b'n') => self.literal("null", Instance::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.refuse("expected value")),
            None => Err(self.refuse("EOF while parsing a value")),
        }
    }

    fn literal(&mut self, word: &str, value: Instance<'t>) -> Result<Instance<'t>, NotJson> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.refuse("expected value"))
        }
    }

    /// Enters an array or object: one level deeper, refused past the limit.
    fn enter(&mut self) -> Result<(), NotJson> {
        self.depth += 1;
        if self.depth >= MAX_NESTING {
            return Err(self.refuse("recursion limit exceeded"));
        }
        self.at += 1;
        self.space();
        Ok(())
    }

    fn array(&mut self) -> Result<Instance<'t>, NotJson> {
        self.enter()?;
        let mut items = Vec::new();
        if !self.closes(b']') {
            loop {
                self.space();
                items.push(self.value()?);
                if self.after_element(b']', "a list")? {
                    break;
                }
            }
        }
        self.depth -= 1;
        Ok(Instance::Array(items))
    }

    fn object(&mut self) -> Result<Instance<'t>, NotJson> {
        self.enter()?;
        let mut entries = Vec::new();
        if !self.closes(b'}') {
            loop {
                self.space();
                match self.peek() {
                    Some(b'"') => {}
                    Some(_) => return Err(self.refuse("key must be a string")),
                    None => return Err(self.refuse("EOF while parsing an object")),
                }
                let key = self.string()?;
                self.expect(b':', "expected `:`")?;
                self.space();
                entries.push((key, self.value()?));
                if self.after_element(b'}', "an object")? {
                    break;
                }
            }
        }
        self.depth -= 1;
        last_of_each_name(&mut entries);
        Ok(Instance::Object(entries))
    }

    /// Steps over `close` when it comes next: an empty array or object.
    fn closes(&mut self, close: u8) -> bool {
        let closed = self.peek() == Some(close);
        if closed {
            self.at += 1;
        }
        closed
    }

    /// After an element of `container`: `true` at its `close` (stepped
    /// over), `false` at a `,`; anything else is refused.
    fn after_element(&mut self, close: u8, container: &str) -> Result<bool, NotJson> {
        self.space();
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                Ok(false)
            }
            Some(byte) if byte == close => {
                self.at += 1;
                Ok(true)
            }
            Some(_) => Err(self.refuse(&format!("expected `,` or `{}`", char::from(close)))),
            None => Err(self.refuse(&format!("EOF while parsing {container}"))),
        }
    }

    /// A string, at its opening quote: borrowed from the text unless it
    /// holds an escape.
    fn string(&mut self) -> Result<Cow<'t, str>, NotJson> {
        let open = self.at;
        let bytes = self.bytes;
        let mut at = open + 1;
        let mut escaped = false;
        // The one loop every byte of every string goes through: a plain
        // index walk, so it stays a tight loop in the size-optimised build.
        loop {
            if at >= bytes.len() {
                self.at = bytes.len();
                return Err(self.refuse("EOF while parsing a string"));
            }
            let byte = bytes[at];
            if byte == b'"' {
                break;
            } else if byte == b'\\' {
                escaped = true;
                at += 2;
            } else if byte < 0x20 {
                self.at = at;
                return Err(
                    self.refuse("control character (\\u0000-\\u001F) found while parsing a string")
                );
            } else {
                at += 1;
            }
        }
        self.at = at + 1;
        if !escaped {
            // Between two ASCII quotes, so on character boundaries.
            return Ok(Cow::Borrowed(&self.text[open + 1..self.at - 1]));
        }
        match self.reference(open)? {
            Value::String(s) => Ok(Cow::Owned(s)),
            _ => Err(self.refuse_at(open, "expected a string")),
        }
    }

    fn number(&mut self) -> Result<Instance<'t>, NotJson> {
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let digits = self.at;
        self.digits();
        let whole = self.at - digits;
        let mut plain = whole > 0 && whole <= SHORT_INTEGER;
        if self.peek() == Some(b'.') {
            plain = false;
            self.at += 1;
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            plain = false;
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            self.digits();
        }
        let text = &self.text[start..self.at];
        // A short integer without a leading zero is read here; anything
        // else (`-0`, `1.5`, `1e3`, `01`, `-`) is `serde_json`'s to read or
        // refuse.
        let leading_zero = whole > 1 && self.bytes[digits] == b'0';
        if plain && !leading_zero && !(negative && text == "-0") {
            let magnitude = self.bytes[digits..self.at]
                .iter()
                .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
            return Ok(Instance::Number(if negative {
                // At most 18 digits: within `i64`.
                Number::from(-(magnitude as i64))
            } else {
                Number::from(magnitude)
            }));
        }
        match self.reference(start)? {
            Value::Number(n) => Ok(Instance::Number(n)),
            _ => Err(self.refuse_at(start, "expected a number")),
        }
    }

    #[inline(always)]
    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
    }

    /// The text from byte `start` to here, read by `serde_json` (the
    /// module's one full JSON reader, whose `Value` reading is linked
    /// anyway: no second instantiation for a string or a number alone),
    /// or its refusal placed in the whole text (the part is one line).
    fn reference(&self, start: usize) -> Result<Value, NotJson> {
        serde_json::from_str(&self.text[start..self.at]).map_err(|error| {
            let message = error.to_string();
            let what = message.split(" at line ").next().unwrap_or_default();
            self.refuse_at(start + error.column().saturating_sub(1), what)
        })
    }
}

/// Keeps, of entries that share a name, only the last one (as `JSON.parse`
/// has it). Text rarely repeats a name: then nothing is allocated or moved.
fn last_of_each_name<T>(entries: &mut Vec<(Cow<'_, str>, T)>) {
    if let Some(shadowed) = shadowed(entries) {
        let mut index = 0;
        entries.retain(|_| {
            index += 1;
            !shadowed[index - 1]
        });
    }
}

/// Which entries a later entry of the same name replaces, or `None` when
/// a few entries repeat no name: pairwise for a few entries, through a small
/// open-addressed table of positions for more (linear in the entries
/// however hostile the text; no sort or hash map instantiated for it).
fn shadowed<T>(entries: &[(Cow<'_, str>, T)]) -> Option<Vec<bool>> {
    let n = entries.len();
    let later = |i: usize| entries[i + 1..].iter().any(|(key, _)| *key == entries[i].0);
    if n <= 16 {
        return (0..n).any(later).then(|| (0..n).map(later).collect());
    }
    let mask = (n * 2).next_power_of_two() - 1;
    let mut slots = vec![usize::MAX; mask + 1];
    let mut shadowed = vec![false; n];
    // From the last entry back: a name already seen is replaced later on.
    for i in (0..n).rev() {
        let key = &entries[i].0;
        let mut at = fnv1a(key) & mask;
        loop {
            match slots[at] {
                usize::MAX => {
                    slots[at] = i;
                    break;
                }
                j if entries[j].0 == *key => {
                    shadowed[i] = true;
                    break;
                }
                _ => at = (at + 1) & mask,
            }
        }
    }
    Some(shadowed)
}

/// FNV-1a of a name, to place it in the table.
fn fnv1a(text: &str) -> usize {
    text.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    }) as usize
}
