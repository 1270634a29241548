//! The `format`s Baton asserts, for strings (any other value passes).
//!
//! Users of tool arguments and question forms expect a field declared as an
//! email to hold one, so formats are assertions here, not annotations. The
//! checks follow the RFCs the specification names; the internationalised
//! forms (`idn-email`, `idn-hostname`, `iri`, `iri-reference`) accept any
//! non-ASCII character where the ASCII form accepts a letter, without the
//! IDNA tables. A format Baton does not know is not asserted.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::pattern::Pattern;

/// A known format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Date,
    Time,
    DateTime,
    Duration,
    Email {
        international: bool,
    },
    Hostname {
        international: bool,
    },
    Ipv4,
    Ipv6,
    Uri {
        reference: bool,
        international: bool,
    },
    UriTemplate,
    Uuid,
    JsonPointer,
    RelativeJsonPointer,
    Regex,
}

impl Format {
    /// The format of this name, if Baton asserts it.
    pub(crate) fn named(name: &str) -> Option<Format> {
        Some(match name {
            "date" => Format::Date,
            "time" => Format::Time,
            "date-time" => Format::DateTime,
            "duration" => Format::Duration,
            "email" => Format::Email {
                international: false,
            },
            "idn-email" => Format::Email {
                international: true,
            },
            "hostname" => Format::Hostname {
                international: false,
            },
            "idn-hostname" => Format::Hostname {
                international: true,
            },
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "uri" => Format::Uri {
                reference: false,
                international: false,
            },
            "uri-reference" => Format::Uri {
                reference: true,
                international: false,
            },
            "iri" => Format::Uri {
                reference: false,
                international: true,
            },
            "iri-reference" => Format::Uri {
                reference: true,
                international: true,
            },
            "uri-template" => Format::UriTemplate,
            "uuid" => Format::Uuid,
            "json-pointer" => Format::JsonPointer,
            "relative-json-pointer" => Format::RelativeJsonPointer,
            "regex" => Format::Regex,
            _ => return None,
        })
    }

    /// The format's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Date => "date",
            Format::Time => "time",
            Format::DateTime => "date-time",
            Format::Duration => "duration",
            Format::Email {
                international: false,
            } => "email",
            Format::Email {
                international: true,
            } => "idn-email",
            Format::Hostname {
                international: false,
            } => "hostname",
            Format::Hostname {
                international: true,
            } => "idn-hostname",
            Format::Ipv4 => "ipv4",
            Format::Ipv6 => "ipv6",
            Format::Uri {
                reference: false,
                international: false,
            } => "uri",
            Format::Uri {
                reference: true,
                international: false,
            } => "uri-reference",
            Format::Uri {
                reference: false,
                international: true,
            } => "iri",
            Format::Uri {
                reference: true,
                international: true,
            } => "iri-reference",
            Format::UriTemplate => "uri-template",
            Format::Uuid => "uuid",
            Format::JsonPointer => "json-pointer",
            Format::RelativeJsonPointer => "relative-json-pointer",
            Format::Regex => "regex",
        }
    }

    /// Whether `text` is in this format.
    pub(crate) fn accepts(self, text: &str) -> bool {
        match self {
            Format::Date => is_date(text),
            Format::Time => is_time(text),
            Format::DateTime => text
                .split_once(['T', 't'])
                .is_some_and(|(date, time)| is_date(date) && is_time(time)),
            Format::Duration => is_duration(text),
            Format::Email { international } => is_email(text, international),
            Format::Hostname { international } => is_hostname(text, international),
            Format::Ipv4 => is_ipv4(text),
            Format::Ipv6 => text.parse::<Ipv6Addr>().is_ok(),
            Format::Uri {
                reference,
                international,
            } => is_uri(text, reference, international),
            Format::UriTemplate => is_uri_template(text),
            Format::Uuid => is_uuid(text),
            Format::JsonPointer => is_json_pointer(text),
            Format::RelativeJsonPointer => is_relative_json_pointer(text),
            Format::Regex => Pattern::is_valid_syntax(text),
        }
    }
}

/// The number `count` ASCII digits spell, when `text` is exactly that.
fn digits(text: &str, count: usize) -> Option<u32> {
    if text.len() != count {
        return None;
    }
    text.bytes().try_fold(0u32, |n, b| {
        b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0'))
    })
}

/// RFC 3339 `full-date`: `YYYY-MM-DD`, a day the month has.
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    // The dashes are ASCII, so the slices below fall on characters.
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (
        digits(&text[..4], 4),
        digits(&text[5..7], 2),
        digits(&text[8..], 2),
    ) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339 `full-time`; a leap second only where it is 23:59:60 in UTC.
fn is_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() < 9 || bytes[2] != b':' || bytes[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) = (
        digits(&text[0..2], 2),
        digits(&text[3..5], 2),
        digits(&text[6..8], 2),
    ) else {
        return false;
    };
    let mut rest = &text[8..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let end = fraction
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(fraction.len());
        if end == 0 {
            return false;
        }
        rest = &fraction[end..];
    }
    let offset_minutes: i64 = if rest.eq_ignore_ascii_case("z") {
        0
    } else {
        let sign = match rest.as_bytes().first() {
            Some(b'+') => 1,
            Some(b'-') => -1,
            _ => return false,
        };
        let offset = &rest[1..];
        if offset.len() != 5 || offset.as_bytes()[2] != b':' {
            return false;
        }
        let (Some(oh), Some(om)) = (digits(&offset[0..2], 2), digits(&offset[3..5], 2)) else {
            return false;
        };
        if oh > 23 || om > 59 {
            return false;
        }
        sign * i64::from(oh * 60 + om)
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    if second == 60 {
        let utc = (i64::from(hour * 60 + minute) - offset_minutes).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

/// RFC 3339 Appendix A.
fn is_duration(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('P') else {
        return false;
    };
    let (date, time) = match rest.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (rest, None),
    };
    if let Some(weeks) = date.strip_suffix('W') {
        return time.is_none() && !weeks.is_empty() && weeks.bytes().all(|b| b.is_ascii_digit());
    }
    let date_ok = units_in_order(date, b"YMD");
    let time_ok = time
        .is_none_or(|time| !time.is_empty() && units_in_order(time, b"HMS").is_some_and(|n| n > 0));
    date_ok.is_some() && time_ok && (date_ok != Some(0) || time.is_some())
}

/// How many `number unit` pairs `text` holds, if their units are a
/// contiguous run of `units`, in order.
fn units_in_order(text: &str, units: &[u8]) -> Option<usize> {
    let mut seen = Vec::new();
    let mut number = 0;
    for byte in text.bytes() {
        if byte.is_ascii_digit() {
            number += 1;
        } else {
            let index = units.iter().position(|&unit| unit == byte)?;
            if number == 0 {
                return None;
            }
            number = 0;
            seen.push(index);
        }
    }
    if number != 0 || seen.windows(2).any(|pair| pair[1] != pair[0] + 1) {
        return None;
    }
    Some(seen.len())
}

fn is_email(text: &str, international: bool) -> bool {
    let Some(at) = text.rfind('@') else {
        return false;
    };
    let (local, domain) = (&text[..at], &text[at + 1..]);
    let local_ok = if let Some(quoted) = local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        !quoted.is_empty() && !quoted.contains(['"', '\\'])
    } else {
        !local.is_empty()
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && local.chars().all(|c| {
                c.is_ascii_alphanumeric()
                    || "!#$%&'*+-/=?^_`{|}~.".contains(c)
                    || (international && !c.is_ascii())
            })
    };
    let domain_ok =
        if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
            match literal.strip_prefix("IPv6:") {
                Some(v6) => v6.parse::<Ipv6Addr>().is_ok(),
                None => is_ipv4(literal),
            }
        } else {
            is_hostname(domain, international)
        };
    local_ok && domain_ok
}

fn is_hostname(text: &str, international: bool) -> bool {
    crate::idna::is_hostname(text, international)
}

fn is_ipv4(text: &str) -> bool {
    text.split('.')
        .all(|octet| !(octet.len() > 1 && octet.starts_with('0')))
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.parse::<Ipv4Addr>().is_ok()
}

fn uri_char(c: char, international: bool) -> bool {
    c.is_ascii_alphanumeric()
        || "-._~!$&'()*+,;=:@/?".contains(c)
        || (international && !c.is_ascii() && !c.is_whitespace() && !c.is_control())
}

fn percent_ok(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().all(|(i, &b)| {
        b != b'%'
            || (bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
    })
}

/// RFC 3986 `URI` / `URI-reference`; RFC 3987 where international.
fn is_uri(text: &str, reference: bool, international: bool) -> bool {
    let (rest, fragment) = match text.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (text, None),
    };
    let scheme_end = rest
        .find(':')
        .filter(|&end| !rest[..end].contains(['/', '?']));
    let after_scheme = match scheme_end {
        Some(end) => {
            let scheme = &rest[..end];
            let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
            if !valid {
                return false;
            }
            &rest[end + 1..]
        }
        None if reference => rest,
        None => return false,
    };
    let (hier, query) = match after_scheme.split_once('?') {
        Some((hier, query)) => (hier, Some(query)),
        None => (after_scheme, None),
    };
    let path = match hier.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            if !is_authority(&after[..end], international) {
                return false;
            }
            &after[end..]
        }
        None => hier,
    };
    let chars_ok = |part: &str| part.chars().all(|c| c == '%' || uri_char(c, international));
    chars_ok(path)
        && query.is_none_or(chars_ok)
        && fragment.is_none_or(chars_ok)
        && percent_ok(text)
}

fn is_authority(authority: &str, international: bool) -> bool {
    // One `@` at most: it ends the user information.
    if authority.matches('@').count() > 1 {
        return false;
    }
    let host_port = authority
        .rsplit_once('@')
        .map_or(authority, |(user, host)| {
            if user.contains(['[', ']']) {
                "["
            } else {
                host
            }
        });
    let (host, port) = if let Some(literal) = host_port.strip_prefix('[') {
        match literal.split_once(']') {
            Some((ip, after)) => {
                if ip.parse::<Ipv6Addr>().is_err() && !ip.starts_with(['v', 'V']) {
                    return false;
                }
                match after.strip_prefix(':') {
                    Some(port) => ("", Some(port)),
                    None if after.is_empty() => ("", None),
                    None => return false,
                }
            }
            None => return false,
        }
    } else {
        match host_port.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        }
    };
    port.is_none_or(|port| port.bytes().all(|b| b.is_ascii_digit()))
        && host
            .chars()
            .all(|c| c == '%' || (uri_char(c, international) && !"/?@:[]".contains(c)))
}

/// RFC 6570 §2: literals and `{operator? varspec,…}` expressions, each
/// varspec a dotted name of letters, digits, `_` and `%XX`, with an
/// optional prefix (`:1`…`:9999`) or explode (`*`).
fn is_uri_template(text: &str) -> bool {
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '{' {
            let Some(end) = rest.find('}') else {
                return false;
            };
            if !is_expression(&rest[1..end]) {
                return false;
            }
            rest = &rest[end + 1..];
        } else if c == '%' {
            let hex = rest.as_bytes().get(1..3);
            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                return false;
            }
            rest = &rest[3..];
        } else {
            // Any character but controls, space and `"<>\^`{|}` (the
            // apostrophe is one, as the JSON-Schema-Test-Suite reads RFC 6570).
            let literal = if c.is_ascii() {
                c.is_ascii_graphic() && !"\"<>\\^`{|}".contains(c)
            } else {
                !c.is_control() && !c.is_whitespace()
            };
            if !literal {
                return false;
            }
            rest = &rest[c.len_utf8()..];
        }
    }
    true
}

/// The inside of one RFC 6570 expression.
fn is_expression(inside: &str) -> bool {
    let list = inside
        .strip_prefix(['+', '#', '.', '/', ';', '?', '&', '=', ',', '!', '@', '|'])
        .unwrap_or(inside);
    list.split(',').all(|varspec| {
        let (name, modifier) = match varspec.find([':', '*']) {
            Some(at) => varspec.split_at(at),
            None => (varspec, ""),
        };
        let modifier_ok = match modifier.strip_prefix(':') {
            Some(length) => {
                (1..=4).contains(&length.len())
                    && !length.starts_with('0')
                    && length.bytes().all(|b| b.is_ascii_digit())
            }
            None => modifier.is_empty() || modifier == "*",
        };
        modifier_ok
            && !name.is_empty()
            && name.split('.').all(|part| {
                !part.is_empty()
                    && percent_ok(part)
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'%')
            })
    })
}

fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_json_pointer(text: &str) -> bool {
    (text.is_empty() || text.starts_with('/'))
        && text
            .split('~')
            .skip(1)
            .all(|after| after.starts_with(['0', '1']))
}

fn is_relative_json_pointer(text: &str) -> bool {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, rest) = text.split_at(end);
    let leading_zero = number.len() > 1 && number.starts_with('0');
    !number.is_empty() && !leading_zero && (rest == "#" || is_json_pointer(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times_follow_rfc_3339() {
        assert!(Format::Date.accepts("2024-02-29"));
        assert!(!Format::Date.accepts("2023-02-29"));
        assert!(Format::Time.accepts("23:59:60Z"));
        assert!(Format::Time.accepts("15:59:60-08:00"));
        assert!(!Format::Time.accepts("22:59:60Z"));
        assert!(Format::DateTime.accepts("2026-11-29T20:00:00.5+01:00"));
        assert!(!Format::DateTime.accepts("2026-11-29 20:00:00Z"));
        assert!(Format::Duration.accepts("P1Y2M3DT4H5M6S"));
        assert!(Format::Duration.accepts("P4W"));
        assert!(!Format::Duration.accepts("P1Y2D"));
        assert!(!Format::Duration.accepts("PT"));
        assert!(!Format::Duration.accepts("P"));
    }

    #[test]
    fn addresses_and_identifiers() {
        assert!(Format::named("email").unwrap().accepts("ada@example.org"));
        assert!(Format::named("email")
            .unwrap()
            .accepts("\"a b\"@[127.0.0.1]"));
        assert!(!Format::named("email").unwrap().accepts("a..b@example.org"));
        assert!(Format::Ipv4.accepts("192.168.0.1"));
        assert!(!Format::Ipv4.accepts("192.168.0.01"));
        assert!(Format::named("uri")
            .unwrap()
            .accepts("https://[::1]:8080/a?b#c"));
        assert!(!Format::named("uri").unwrap().accepts("//example.org"));
        assert!(Format::named("uri-reference")
            .unwrap()
            .accepts("//example.org"));
        assert!(!Format::named("uri").unwrap().accepts("http://a b"));
        assert!(Format::RelativeJsonPointer.accepts("0#"));
        assert!(!Format::RelativeJsonPointer.accepts("01/a"));
        assert!(!Format::UriTemplate.accepts("http://e.com/{term"));
        assert_eq!(Format::named("made-up"), None);
    }
}
