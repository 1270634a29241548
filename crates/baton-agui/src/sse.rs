//! An incremental Server-Sent-Events decoder: bytes in, events out.
//!
//! Chunk boundaries may fall anywhere — inside a UTF-8 sequence, between the
//! `\r` and `\n` of a line ending. Each byte is looked at once (O(n) in the
//! input, no re-scanning of what is buffered). An event larger than the
//! configured maximum is reported and skipped instead of buffered without
//! bound.

/// One decoded event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if any.
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
    /// The last `id:` seen on the stream.
    pub id: Option<String>,
}

/// What the decoder hands over as it goes ([`SseDecoder::feed_each`]): an
/// event borrowed from its buffers, or a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem<'a> {
    /// An event with data.
    Event {
        /// The `data:` lines, joined with `\n`.
        data: &'a str,
        /// The `event:` field, if any.
        event: Option<&'a str>,
        /// The last `id:` seen on the stream.
        id: Option<&'a str>,
    },
    /// Something the decoder had to refuse, with why. The stream goes on.
    Finding(String),
}

/// What the decoder yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseOutput {
    /// An event with data.
    Event(SseEvent),
    /// Something the decoder had to refuse, with why. The stream goes on.
    Finding(String),
}

/// The decoder's state between chunks.
#[derive(Debug, Clone)]
pub struct SseDecoder {
    max_event_bytes: usize,
    line: Vec<u8>,
    after_cr: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    last_id: Option<String>,
    /// Skipping the rest of an oversized event, up to its blank line.
    skipping: bool,
    /// How much of a leading byte-order mark has arrived, while the
    /// stream's first bytes are still to be read past it; `None` after.
    bom: Option<usize>,
}

/// The UTF-8 byte-order mark a stream may begin with: it is no part of
/// the first field (the WHATWG event-stream parser strips one).
const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseDecoder {
    /// A decoder that refuses events over `max_event_bytes`.
    pub fn new(max_event_bytes: usize) -> Self {
        SseDecoder {
            max_event_bytes,
            line: Vec::new(),
            after_cr: false,
            data: String::new(),
            has_data: false,
            event: None,
            last_id: None,
            skipping: false,
            bom: Some(0),
        }
    }

    /// Bytes held between chunks (for bounding memory).
    pub fn buffered(&self) -> usize {
        self.line.len() + self.data.len()
    }

    /// Feeds bytes; returns every event they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseOutput> {
        let mut out = Vec::new();
        self.feed_each(bytes, |item| {
            out.push(match item {
                SseItem::Event { data, event, id } => SseOutput::Event(SseEvent {
                    event: event.map(str::to_owned),
                    data: data.to_owned(),
                    id: id.map(str::to_owned),
                }),
                SseItem::Finding(reason) => SseOutput::Finding(reason),
            })
        });
        out
    }

    /// Feeds bytes; hands each event they complete to `each`, borrowed:
    /// nothing is copied out of the decoder's buffers. Lines are found a
    /// slice at a time, and a line that arrived whole is read where it is.
    pub fn feed_each(&mut self, bytes: &[u8], mut each: impl FnMut(SseItem<'_>)) {
        let bytes = match self.bom {
            Some(_) => self.past_bom(bytes, &mut each),
            None => bytes,
        };
        self.feed_lines(bytes, &mut each);
    }

    /// `bytes` past a leading byte-order mark, which may arrive split
    /// across chunks. Bytes that began like one and were not one are read
    /// as the stream's own.
    #[inline(never)]
    fn past_bom<'b>(&mut self, bytes: &'b [u8], each: &mut impl FnMut(SseItem<'_>)) -> &'b [u8] {
        let mut rest = bytes;
        while let Some(matched) = self.bom {
            if matched == BOM.len() {
                self.bom = None;
                break;
            }
            let Some((&byte, after)) = rest.split_first() else {
                return rest;
            };
            if byte == BOM[matched] {
                self.bom = Some(matched + 1);
                rest = after;
            } else {
                self.bom = None;
                self.feed_lines(&BOM[..matched], &mut *each);
            }
        }
        rest
    }

    fn feed_lines(&mut self, bytes: &[u8], mut each: impl FnMut(SseItem<'_>)) {
        let mut rest = bytes;
        if !rest.is_empty() && std::mem::take(&mut self.after_cr) && rest[0] == b'\n' {
            rest = &rest[1..];
        }
        while !rest.is_empty() {
            let Some(end) = memchr::memchr2(b'\n', b'\r', rest) else {
                self.partial(rest, &mut each);
                return;
            };
            let segment = &rest[..end];
            if self.line.is_empty() && !self.skipping {
                // The usual case: the whole line is in this chunk.
                if self.line_fits(segment.len()) {
                    self.end_line(segment, &mut each);
                } else {
                    self.oversized(&mut each);
                    self.end_buffered_line(&mut each);
                }
            } else {
                self.partial(segment, &mut each);
                self.end_buffered_line(&mut each);
            }
            let cr = rest[end] == b'\r';
            rest = &rest[end + 1..];
            if cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
    }

    /// Whether a line of `more` bytes fits beside what is buffered.
    fn line_fits(&self, more: usize) -> bool {
        self.line.len() + more + self.data.len() <= self.max_event_bytes
    }

    /// Part of a line whose end has not arrived (or the last part of one
    /// buffered before), kept until its end does.
    fn partial(&mut self, segment: &[u8], each: &mut impl FnMut(SseItem<'_>)) {
        if segment.is_empty() {
            return;
        }
        if self.skipping {
            // Still count the line as non-empty so the blank line that
            // ends the event is recognised.
            if self.line.is_empty() {
                self.line.push(b'x');
            }
            return;
        }
        if self.line_fits(segment.len()) {
            self.line.extend_from_slice(segment);
        } else {
            self.oversized(each);
        }
    }

    /// The end of a line that was buffered.
    fn end_buffered_line(&mut self, each: &mut impl FnMut(SseItem<'_>)) {
        let line = std::mem::take(&mut self.line);
        self.end_line(&line, each);
        // Its buffer is kept for the next partial line.
        self.line = line;
        self.line.clear();
    }

    /// The stream ended. An event without its closing blank line is not
    /// dispatched (as the SSE standard says); it is reported.
    pub fn finish(&mut self) -> Vec<SseOutput> {
        let mut out = Vec::new();
        if !self.line.is_empty() || self.has_data {
            out.push(SseOutput::Finding(
                "the stream ended in the middle of an event".into(),
            ));
        }
        self.line.clear();
        self.reset_event();
        out
    }

    fn oversized(&mut self, each: &mut impl FnMut(SseItem<'_>)) {
        each(SseItem::Finding(format!(
            "an event exceeds {} bytes and was skipped",
            self.max_event_bytes
        )));
        self.skipping = true;
        self.line.clear();
        self.line.push(b'x');
        self.reset_event();
    }

    fn reset_event(&mut self) {
        self.data.clear();
        self.has_data = false;
        self.event = None;
    }

    /// A whole line (`line`, without its end).
    fn end_line(&mut self, line: &[u8], each: &mut impl FnMut(SseItem<'_>)) {
        if line.is_empty() {
            if self.skipping {
                self.skipping = false;
            } else {
                self.dispatch(each);
            }
            return;
        }
        if self.skipping {
            return;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            each(SseItem::Finding(
                "a line is not valid UTF-8 and was skipped".into(),
            ));
            return;
        };
        if text.starts_with(':') {
            return;
        }
        let (field, value) = match text.find(':') {
            Some(colon) => {
                let value = &text[colon + 1..];
                (&text[..colon], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (text, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            _ => {}
        }
    }

    fn dispatch(&mut self, each: &mut impl FnMut(SseItem<'_>)) {
        if self.has_data {
            each(SseItem::Event {
                data: &self.data,
                event: self.event.as_deref(),
                id: self.last_id.as_deref(),
            });
        }
        self.reset_event();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(out: Vec<SseOutput>) -> Vec<String> {
        out.into_iter()
            .filter_map(|o| match o {
                SseOutput::Event(e) => Some(e.data),
                SseOutput::Finding(_) => None,
            })
            .collect()
    }

    #[test]
    fn decodes_fields_comments_and_multiline_data() {
        let mut decoder = SseDecoder::new(1024);
        let out = decoder.feed(b": hello\nevent: x\nid: 7\ndata: a\ndata:b\n\ndata: c\r\n\r\n");
        assert_eq!(
            out[0],
            SseOutput::Event(SseEvent {
                event: Some("x".into()),
                data: "a\nb".into(),
                id: Some("7".into())
            })
        );
        assert_eq!(events(out)[1], "c");
    }

    #[test]
    fn chunk_boundaries_anywhere() {
        let text = "data: {\"é\":\"✓\"}\r\n\r\ndata: two\n\n".as_bytes();
        for split in 0..text.len() {
            let mut decoder = SseDecoder::new(1024);
            let mut out = decoder.feed(&text[..split]);
            out.extend(decoder.feed(&text[split..]));
            assert_eq!(events(out), ["{\"é\":\"✓\"}", "two"], "split at {split}");
        }
    }

    #[test]
    fn an_empty_chunk_between_cr_and_lf_changes_nothing() {
        let mut decoder = SseDecoder::new(1024);
        let mut out = decoder.feed(b"data: one\r");
        out.extend(decoder.feed(b""));
        out.extend(decoder.feed(b"\n\r\ndata: two\n\n"));
        assert_eq!(events(out), ["one", "two"]);
    }

    #[test]
    fn a_line_split_across_chunks_is_read_as_one() {
        let mut decoder = SseDecoder::new(1024);
        let mut out = decoder.feed(b"da");
        out.extend(decoder.feed(b"ta: {\"a\""));
        out.extend(decoder.feed(b":1}\n\ndata: whole\n\n"));
        assert_eq!(events(out), ["{\"a\":1}", "whole"]);
    }

    #[test]
    fn an_oversized_event_is_reported_and_skipped() {
        let mut decoder = SseDecoder::new(16);
        let mut input = b"data: ".to_vec();
        input.extend(std::iter::repeat_n(b'x', 100));
        input.extend(b"\ndata: more\n\ndata: ok\n\n");
        let out = decoder.feed(&input);
        assert!(matches!(out[0], SseOutput::Finding(_)));
        assert_eq!(events(out), ["ok"]);
        assert!(decoder.buffered() <= 16);
    }
}
