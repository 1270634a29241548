//! Just enough of RFC 3986 to resolve `$id` and `$ref` against a base URI
//! (§5.2), and to read a fragment as a JSON Pointer (RFC 6901).

/// A URI split into its five components; `None` means the component is
/// absent, which RFC 3986 distinguishes from empty.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn split(uri: &str) -> Parts<'_> {
    let (rest, fragment) = match uri.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (uri, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let scheme_end = rest.find(':').filter(|&end| {
        let scheme = &rest[..end];
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            && !rest[..end].contains('/')
    });
    let (scheme, rest) = match scheme_end {
        Some(end) => (Some(&rest[..end]), &rest[end + 1..]),
        None => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(&after[..end]), &after[end..])
        }
        None => (None, rest),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

fn join(parts: &Parts<'_>, path: &str) -> String {
    let mut out = String::new();
    if let Some(scheme) = parts.scheme {
        out.push_str(scheme);
        out.push(':');
    }
    if let Some(authority) = parts.authority {
        out.push_str("//");
        out.push_str(authority);
    }
    out.push_str(path);
    if let Some(query) = parts.query {
        out.push('?');
        out.push_str(query);
    }
    if let Some(fragment) = parts.fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// RFC 3986 §5.2.4.
fn remove_dot_segments(path: &str) -> String {
    let mut output: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." => {
                if i == last {
                    output.push("");
                }
            }
            ".." => {
                if output.len() > usize::from(absolute) {
                    output.pop();
                }
                if i == last {
                    output.push("");
                }
            }
            other => output.push(other),
        }
    }
    let joined = output.join("/");
    if absolute && !joined.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Resolves `reference` against `base` (RFC 3986 §5.2.2).
pub(crate) fn resolve(base: &str, reference: &str) -> String {
    let r = split(reference);
    if r.scheme.is_some() {
        let path = remove_dot_segments(r.path);
        return join(&r, &path);
    }
    let b = split(base);
    let (authority, path, query) = if r.authority.is_some() {
        (r.authority, remove_dot_segments(r.path), r.query)
    } else if r.path.is_empty() {
        (b.authority, b.path.to_owned(), r.query.or(b.query))
    } else if r.path.starts_with('/') {
        (b.authority, remove_dot_segments(r.path), r.query)
    } else {
        let merged = if b.authority.is_some() && b.path.is_empty() {
            format!("/{}", r.path)
        } else {
            match b.path.rfind('/') {
                Some(end) => format!("{}{}", &b.path[..=end], r.path),
                None => r.path.to_owned(),
            }
        };
        (b.authority, remove_dot_segments(&merged), r.query)
    };
    join(
        &Parts {
            scheme: b.scheme,
            authority,
            path: &path,
            query,
            fragment: r.fragment,
        },
        &path,
    )
}

/// The URI without its fragment, and the fragment (`""` when absent).
pub(crate) fn split_fragment(uri: &str) -> (&str, &str) {
    uri.split_once('#').unwrap_or((uri, ""))
}

/// Decodes `%XX` escapes; `None` when an escape is malformed or the bytes
/// are not UTF-8.
pub(crate) fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The reference tokens of a JSON Pointer (`/a/b~1c` → `a`, `b/c`); `None`
/// when it is not a pointer.
pub(crate) fn pointer_tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/')
        .map(|token| {
            if token.contains('~')
                && token
                    .split('~')
                    .skip(1)
                    .any(|after| !after.starts_with(['0', '1']))
            {
                return None;
            }
            Some(token.replace("~1", "/").replace("~0", "~"))
        })
        .collect()
}

/// One reference token escaped for a JSON Pointer.
pub(crate) fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_the_examples_of_rfc_3986() {
        let base = "http://a/b/c/d;p?q";
        for (reference, expected) in [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
        ] {
            assert_eq!(resolve(base, reference), expected, "{reference}");
        }
    }

    #[test]
    fn resolves_against_urns_and_the_default_base() {
        assert_eq!(
            resolve(
                "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed",
                "#/$defs/bar"
            ),
            "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#/$defs/bar"
        );
        assert_eq!(
            resolve("json-schema:///", "other.json"),
            "json-schema:///other.json"
        );
    }

    #[test]
    fn reads_pointers() {
        assert_eq!(
            pointer_tokens("/a/b~1c/~0d"),
            Some(vec!["a".into(), "b/c".into(), "~d".into()])
        );
        assert_eq!(pointer_tokens("a"), None);
        assert_eq!(pointer_tokens("/~2"), None);
        assert_eq!(percent_decode("%25%22"), Some("%\"".into()));
        assert_eq!(percent_decode("%zz"), None);
    }
}
