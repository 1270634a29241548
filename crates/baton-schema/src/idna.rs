//! Host names as IDNA2008 has them (RFC 5890–5893), for the `hostname`
//! and `idn-hostname` formats: A-labels decoded from Punycode (RFC 3492)
//! and checked as the U-labels they stand for, U-labels checked and
//! measured in their A-label form.
//!
//! Baton ships no Unicode tables for this. Where a rule needs a character's
//! general category or script, it asks the host's regular expressions
//! (`\p{…}` through the pattern port, the page's own `RegExp` in the
//! browser); without a pattern engine a non-ASCII label is refused. What
//! is approximated, and how:
//! * PVALID is a code point of general category Ll, Lo, Lm, Mn, Mc or Nd,
//!   or one of RFC 5892's PVALID exceptions; what NFKC would change is not
//!   looked for.
//! * Bidi classes (RFC 5893) are read from scripts: R and AL are the
//!   letters of the right-to-left scripts, AN the Arabic-Indic digits, EN
//!   the European and Extended Arabic-Indic ones, NSM the nonspacing marks.
//! * Joining types (the ZERO WIDTH NON-JOINER's context) are read as the
//!   letters of the joining scripts, with nonspacing marks transparent.

use std::sync::OnceLock;

use crate::pattern::CompiledPattern;

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 128;

fn adapt(delta: u32, points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / DAMP } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + ((BASE - T_MIN + 1) * delta) / (delta + SKEW)
}

fn threshold(k: u32, bias: u32) -> u32 {
    if k <= bias {
        T_MIN
    } else if k >= bias + T_MAX {
        T_MAX
    } else {
        k - bias
    }
}

/// RFC 3492 decoding of the part after `xn--`.
fn decode(input: &str) -> Option<Vec<char>> {
    let (basic, extended) = match input.rfind('-') {
        Some(at) => (&input[..at], &input[at + 1..]),
        None => ("", input),
    };
    if !basic.is_ascii() {
        return None;
    }
    let mut output: Vec<char> = basic.chars().collect();
    let (mut n, mut i, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    let mut digits = extended.bytes().peekable();
    while digits.peek().is_some() {
        let old = i;
        let mut weight = 1u32;
        let mut k = BASE;
        loop {
            let digit = match digits.next()? {
                byte @ b'a'..=b'z' => u32::from(byte - b'a'),
                byte @ b'A'..=b'Z' => u32::from(byte - b'A'),
                byte @ b'0'..=b'9' => u32::from(byte - b'0') + 26,
                _ => return None,
            };
            i = i.checked_add(digit.checked_mul(weight)?)?;
            let t = threshold(k, bias);
            if digit < t {
                break;
            }
            weight = weight.checked_mul(BASE - t)?;
            k += BASE;
        }
        let points = u32::try_from(output.len()).ok()? + 1;
        bias = adapt(i - old, points, old == 0);
        n = n.checked_add(i / points)?;
        i %= points;
        output.insert(usize::try_from(i).ok()?, char::from_u32(n)?);
        i += 1;
    }
    Some(output)
}

fn digit(d: u32) -> char {
    char::from(if d < 26 {
        b'a' + d as u8
    } else {
        b'0' + (d - 26) as u8
    })
}

/// RFC 3492 encoding: what follows `xn--` in the label's A-label form.
fn encode(input: &[char]) -> Option<String> {
    let mut output: String = input.iter().filter(|c| c.is_ascii()).collect();
    let basic = u32::try_from(output.len()).ok()?;
    if basic > 0 {
        output.push('-');
    }
    let (mut n, mut delta, mut bias, mut handled) = (INITIAL_N, 0u32, INITIAL_BIAS, basic);
    let total = u32::try_from(input.len()).ok()?;
    while handled < total {
        let next = input.iter().map(|&c| c as u32).filter(|&c| c >= n).min()?;
        delta = delta.checked_add((next - n).checked_mul(handled + 1)?)?;
        n = next;
        for &c in input {
            let c = c as u32;
            if c < n {
                delta = delta.checked_add(1)?;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = threshold(k, bias);
                    if q < t {
                        break;
                    }
                    output.push(digit(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                output.push(digit(q));
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta += 1;
        n += 1;
    }
    Some(output)
}

/// A class of characters the host's regular expressions know by property.
struct Class {
    source: &'static str,
    compiled: OnceLock<Option<Box<dyn CompiledPattern>>>,
}

impl Class {
    const fn new(source: &'static str) -> Class {
        Class {
            source,
            compiled: OnceLock::new(),
        }
    }

    /// Whether `c` is in the class; `None` without a pattern engine.
    fn has(&self, c: char) -> Option<bool> {
        let compiled = self
            .compiled
            .get_or_init(|| crate::pattern::engine()?.compile(self.source).ok());
        let mut buffer = [0u8; 4];
        Some(compiled.as_ref()?.is_match(c.encode_utf8(&mut buffer)))
    }
}

static LETTER_DIGIT: Class = Class::new(r"^[\p{Ll}\p{Lo}\p{Lm}\p{Mn}\p{Mc}\p{Nd}]$");
static MARK: Class = Class::new(r"^\p{M}$");
static NONSPACING: Class = Class::new(r"^\p{Mn}$");
static GREEK: Class = Class::new(r"^\p{Script=Greek}$");
static HEBREW: Class = Class::new(r"^\p{Script=Hebrew}$");
static KANA_HAN: Class = Class::new(r"^[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]$");
static RIGHT_TO_LEFT: Class = Class::new(
    r"^[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}]$",
);
static JOINING: Class = Class::new(
    r"^[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Mandaic}\p{Script=Manichaean}\p{Script=Phags_Pa}\p{Script=Psalter_Pahlavi}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}\p{Script=Sogdian}]$",
);

/// The viramas (canonical combining class 9) a ZERO WIDTH JOINER or
/// NON-JOINER may follow (RFC 5892 A.1, A.2).
const VIRAMAS: &[u32] = &[
    0x094D, 0x09CD, 0x0A4D, 0x0ACD, 0x0B4D, 0x0BCD, 0x0C4D, 0x0CCD, 0x0D3B, 0x0D3C, 0x0D4D, 0x0DCA,
    0x0E3A, 0x0EBA, 0x0F84, 0x1039, 0x103A, 0x1714, 0x1715, 0x1734, 0x17D2, 0x1A60, 0x1B44, 0x1BAA,
    0x1BAB, 0x1BF2, 0x1BF3, 0x2D7F, 0xA806, 0xA82C, 0xA8C4, 0xA953, 0xA9C0, 0xAAF6, 0xABED,
    0x10A3F, 0x11046, 0x11070, 0x1107F, 0x110B9, 0x11133, 0x11134, 0x111C0, 0x11235, 0x112EA,
    0x1134D, 0x11442, 0x114C2, 0x115BF, 0x1163F, 0x116B6, 0x1172B, 0x11839, 0x1193D, 0x1193E,
    0x119E0, 0x11A34, 0x11A47, 0x11A99, 0x11C3F, 0x11D44, 0x11D45, 0x11D97,
];

/// RFC 5892 §2.6: exceptions, PVALID or DISALLOWED whatever their category.
fn exception(c: char) -> Option<bool> {
    match c {
        '\u{00DF}' | '\u{03C2}' | '\u{06FD}' | '\u{06FE}' | '\u{0F0B}' | '\u{3007}' => Some(true),
        '\u{0640}'
        | '\u{07FA}'
        | '\u{302E}'
        | '\u{302F}'
        | '\u{3031}'..='\u{3035}'
        | '\u{303B}' => Some(false),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bidi {
    Left,
    Right,
    ArabicNumber,
    EuropeanNumber,
    Nonspacing,
    Other,
}

fn bidi(c: char) -> Option<Bidi> {
    Some(match c {
        '0'..='9' | '\u{06F0}'..='\u{06F9}' => Bidi::EuropeanNumber,
        '\u{0660}'..='\u{0669}' => Bidi::ArabicNumber,
        // Boundary neutrals and the hyphen: allowed on either side.
        '-' | '\u{200C}' | '\u{200D}' => Bidi::Other,
        _ if c.is_ascii() => Bidi::Left,
        _ if NONSPACING.has(c)? => Bidi::Nonspacing,
        _ if RIGHT_TO_LEFT.has(c)? => Bidi::Right,
        _ => Bidi::Left,
    })
}

/// Whether `label` has a right-to-left character (RFC 5893 §1.4).
fn is_rtl(label: &[char]) -> Option<bool> {
    for &c in label {
        if matches!(bidi(c)?, Bidi::Right | Bidi::ArabicNumber) {
            return Some(true);
        }
    }
    Some(false)
}

/// RFC 5893 §2, for a label of a name with a right-to-left label.
fn bidi_rule(label: &[char]) -> Option<bool> {
    let classes: Vec<Bidi> = label.iter().map(|&c| bidi(c)).collect::<Option<_>>()?;
    let last = classes
        .iter()
        .rev()
        .find(|class| **class != Bidi::Nonspacing);
    Some(match classes.first() {
        Some(Bidi::Right) => {
            let numbers = (
                classes.contains(&Bidi::ArabicNumber),
                classes.contains(&Bidi::EuropeanNumber),
            );
            !classes.contains(&Bidi::Left)
                && numbers != (true, true)
                && matches!(
                    last,
                    Some(Bidi::Right | Bidi::EuropeanNumber | Bidi::ArabicNumber)
                )
        }
        Some(Bidi::Left) => {
            !classes
                .iter()
                .any(|c| matches!(c, Bidi::Right | Bidi::ArabicNumber))
                && matches!(last, Some(Bidi::Left | Bidi::EuropeanNumber))
        }
        _ => false,
    })
}

/// The contextual rules of RFC 5892 Appendix A for the character at `at`.
fn in_context(label: &[char], at: usize) -> Option<bool> {
    let before = at.checked_sub(1).map(|i| label[i]);
    let after = label.get(at + 1).copied();
    Some(match label[at] {
        '\u{200C}' => {
            before.is_some_and(|c| VIRAMAS.contains(&(c as u32))) || {
                // (Joining L|D) T* ZWNJ T* (Joining R|D), marks transparent.
                let joins = |c: char| -> Option<bool> { Some(JOINING.has(c)? && !MARK.has(c)?) };
                let mut left = label[..at].iter().rev();
                let mut right = label[at + 1..].iter();
                let next_joining = |side: &mut dyn Iterator<Item = &char>| -> Option<bool> {
                    for &c in side {
                        if !NONSPACING.has(c)? {
                            return joins(c);
                        }
                    }
                    Some(false)
                };
                next_joining(&mut left)? && next_joining(&mut right)?
            }
        }
        '\u{200D}' => before.is_some_and(|c| VIRAMAS.contains(&(c as u32))),
        '\u{00B7}' => before == Some('l') && after == Some('l'),
        '\u{0375}' => match after {
            Some(c) => GREEK.has(c)?,
            None => false,
        },
        '\u{05F3}' | '\u{05F4}' => match before {
            Some(c) => HEBREW.has(c)?,
            None => false,
        },
        '\u{30FB}' => {
            let mut any = false;
            for &c in label {
                if c != '\u{30FB}' && KANA_HAN.has(c)? {
                    any = true;
                }
            }
            any
        }
        '\u{0660}'..='\u{0669}' => !label.iter().any(|c| ('\u{06F0}'..='\u{06F9}').contains(c)),
        '\u{06F0}'..='\u{06F9}' => !label.iter().any(|c| ('\u{0660}'..='\u{0669}').contains(c)),
        _ => true,
    })
}

/// Whether `label` is a valid U-label (RFC 5891 §5.4): its characters
/// PVALID or allowed in their context, no hyphens at its ends or in its
/// third and fourth places, and no combining mark first.
fn is_u_label(label: &[char]) -> Option<bool> {
    if label.is_empty()
        || label[0] == '-'
        || label.last() == Some(&'-')
        || (label.get(2) == Some(&'-') && label.get(3) == Some(&'-'))
        || MARK.has(label[0])?
    {
        return Some(false);
    }
    for (at, &c) in label.iter().enumerate() {
        let valid = match exception(c) {
            Some(valid) => valid,
            None if c.is_ascii() => c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-',
            None => match c {
                '\u{200C}'
                | '\u{200D}'
                | '\u{00B7}'
                | '\u{0375}'
                | '\u{05F3}'
                | '\u{05F4}'
                | '\u{30FB}'
                | '\u{0660}'..='\u{0669}'
                | '\u{06F0}'..='\u{06F9}' => in_context(label, at)?,
                _ => LETTER_DIGIT.has(c)?,
            },
        };
        if !valid {
            return Some(false);
        }
    }
    Some(true)
}

/// A label as its characters (the U-label an A-label stands for) and its
/// length in the A-label form; `None` when it is not a valid label.
fn label(text: &str, international: bool) -> Option<(Vec<char>, usize)> {
    let a_label = text
        .get(..4)
        .filter(|prefix| prefix.eq_ignore_ascii_case("xn--"))
        .map(|_| &text[4..]);
    if let Some(encoded) = a_label {
        let decoded = decode(encoded)?;
        // Canonical: it re-encodes to itself, and is not plain ASCII.
        let lower: Vec<char> = decoded.iter().map(char::to_ascii_lowercase).collect();
        let canonical = encode(&lower)?.eq_ignore_ascii_case(encoded);
        let ascii_only = decoded.iter().all(char::is_ascii);
        return (canonical && !ascii_only && is_u_label(&lower)?).then_some((lower, text.len()));
    }
    if text.is_ascii() {
        // An LDH label; `ab--` is reserved for A-labels (RFC 5891 §4.2.3.1).
        let bytes = text.as_bytes();
        let ok = !text.is_empty()
            && text.len() <= 63
            && bytes[0] != b'-'
            && bytes[bytes.len() - 1] != b'-'
            && bytes.get(2..4) != Some(b"--")
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'-');
        return ok.then(|| (text.to_ascii_lowercase().chars().collect(), text.len()));
    }
    if !international {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let length = 4 + encode(&chars)?.len();
    (is_u_label(&chars)? && length <= 63).then_some((chars, length))
}

/// `hostname` (RFC 1123, with A-labels checked as IDNA2008 has them) or
/// `idn-hostname` (RFC 5890–5893, whose labels may also be U-labels and
/// be separated by IDNA's other full stops).
pub(crate) fn is_hostname(text: &str, international: bool) -> bool {
    let separator =
        |c: char| c == '.' || (international && matches!(c, '\u{3002}' | '\u{FF0E}' | '\u{FF61}'));
    let mut labels = Vec::new();
    let mut length = 0;
    for part in text.split(separator) {
        let Some((chars, measured)) = label(part, international) else {
            return false;
        };
        length += measured + 1;
        labels.push(chars);
    }
    if length - 1 > 253 {
        return false;
    }
    // A name with a right-to-left label follows the Bidi rule in every label.
    let rtl = labels
        .iter()
        .map(|label| is_rtl(label))
        .collect::<Option<Vec<_>>>();
    match rtl {
        Some(rtl) if rtl.contains(&true) => {
            labels.iter().all(|label| bidi_rule(label).unwrap_or(false))
        }
        Some(_) => true,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punycode_round_trips_rfc_3492s_samples() {
        for (unicode, encoded) in [
            ("ü", "tda"),
            ("bücher", "bcher-kva"),
            ("例え", "r8jz45g"),
            ("실례", "9n2bp8q"),
        ] {
            let chars: Vec<char> = unicode.chars().collect();
            assert_eq!(encode(&chars).as_deref(), Some(encoded), "{unicode}");
            assert_eq!(decode(encoded), Some(chars), "{encoded}");
        }
        assert_eq!(decode("X"), None, "a lone digit that never ends");
    }
}
