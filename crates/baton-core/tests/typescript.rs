//! The package's data types, generated from the core's types: every shape
//! the engine serialises for an application (journal records, events,
//! effects, states, reasons, review sheets, listings, and the host's own
//! events and storage status) is declared in `pkg/data.d.ts` from
//! the Rust type itself, with its doc comments. `pkg/baton.d.ts` re-exports
//! them and keeps by hand only the classes' API and the shapes hosts hand
//! in, which the core reads field by field rather than through a derive
//! (`fields.rs`).
//!
//! The test fails when the committed file differs from what the types
//! declare; `BATON_WRITE_TYPES=1` writes it instead. It also fails when a
//! declared type refers to one that is not declared.
//!
//! Needs the `typescript` feature (`cargo xtask test` turns it on).
#![cfg(feature = "typescript")]

use std::any::TypeId;
use std::collections::BTreeSet;
use std::path::PathBuf;

use baton_core::*;
use ts_rs::{Config, TypeVisitor, TS};

/// Every declared type, in the order the file lists them.
struct Declared {
    text: String,
    names: BTreeSet<String>,
    ids: BTreeSet<TypeId>,
    referenced: Vec<(String, TypeId, String)>,
}

impl Declared {
    fn new() -> Self {
        Declared {
            text: String::new(),
            names: BTreeSet::new(),
            ids: BTreeSet::new(),
            referenced: Vec::new(),
        }
    }

    fn declare<T: TS + 'static + ?Sized>(&mut self, config: &Config) {
        let name = T::ident(config);
        assert!(self.names.insert(name.clone()), "{name} is declared twice");
        self.ids.insert(TypeId::of::<T::WithoutGenerics>());
        if let Some(docs) = T::docs() {
            self.text.push_str(&docs);
        }
        self.text
            .push_str(&layout(&format!("export {}", T::decl(config))));
        self.text.push_str("\n\n");
        struct Collect<'a>(&'a Config, String, &'a mut Vec<(String, TypeId, String)>);
        impl TypeVisitor for Collect<'_> {
            fn visit<U: TS + 'static + ?Sized>(&mut self) {
                if U::output_path().is_some() {
                    self.2.push((
                        self.1.clone(),
                        TypeId::of::<U::WithoutGenerics>(),
                        U::ident(self.0),
                    ));
                }
            }
        }
        T::visit_dependencies(&mut Collect(config, name, &mut self.referenced));
    }
}

/// Lays out a declaration as ts-rs writes it (documented fields run on
/// after their comments) one field to a line: an object with a documented
/// field opens a block, indented two spaces a level, and a union of such
/// objects puts each variant on its own line.
fn layout(declaration: &str) -> String {
    let chars: Vec<char> = declaration.chars().collect();
    // Whether each brace opens a block: a newline before its match.
    let mut blocks = vec![false; chars.len()];
    let mut stack = Vec::new();
    for (at, c) in chars.iter().enumerate() {
        match c {
            '{' => stack.push(at),
            '}' => {
                stack.pop();
            }
            '\n' => stack.iter().for_each(|open| blocks[*open] = true),
            _ => {}
        }
    }
    // A union of blocks: every variant on its own line, its fields a level in.
    let mut depth = 0;
    let union = declaration.contains('\n')
        && chars.windows(3).any(|window| {
            match window[1] {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            depth == 0 && window == [' ', '|', ' ']
        });
    let base = usize::from(union);
    let mut out = String::new();
    // For each open brace: whether it opened a block.
    let mut open: Vec<bool> = Vec::new();
    let newline = |out: &mut String, open: &[bool]| {
        while out.ends_with(' ') {
            out.pop();
        }
        out.push('\n');
        let depth = base + open.iter().filter(|block| **block).count();
        out.push_str(&"  ".repeat(depth));
    };
    let mut at = 0;
    while at < chars.len() {
        match chars[at] {
            '{' => {
                open.push(blocks[at]);
                out.push('{');
                if blocks[at] {
                    newline(&mut out, &open);
                    while chars.get(at + 1) == Some(&' ') || chars.get(at + 1) == Some(&'\n') {
                        at += 1;
                    }
                }
            }
            '}' => {
                if open.pop() == Some(true) {
                    newline(&mut out, &open);
                }
                out.push('}');
            }
            '\n' => newline(&mut out, &open),
            '|' if union && open.is_empty() && out.ends_with(' ') => {
                out.pop();
                out.push_str("\n  |");
            }
            '=' if union && open.is_empty() && !out.contains('=') => {
                out.push_str("=\n  |");
            }
            c => out.push(c),
        }
        at += 1;
    }
    out
}

macro_rules! declare {
    ($declared:expr, $config:expr; $($ty:ty),* $(,)?) => {
        $($declared.declare::<$ty>($config);)*
    };
}

const HEADER: &str = "\
// Generated from baton-core's types by `crates/baton-core/tests/typescript.rs`;
// do not edit. Change the Rust type (its fields, serde attributes and doc
// comments) and run `BATON_WRITE_TYPES=1 cargo test -p baton-core --features
// typescript --test typescript`.
//
// Numbers: every integer is a JavaScript number (no count or time the engine
// serialises reaches 2^53).

";

fn generated() -> Declared {
    let config = Config::new().with_large_int("number");
    let mut declared = Declared::new();
    declare!(declared, &config;
        // vocabulary
        serde_json::Value, RunId, SessionId, ParticipantId, CallId, QuestionId, TurnId, MarkToken, ActorRef,
        Digest, Autonomy, Initiative, Origin, PresencePolicy, Budget, CapabilityRef, ReadRef,
        ReadStamp, Context,
        // manifests
        Tier, History, ManifestProblem, ArgumentError,
        // runs
        Grant, GrantScope, Decision, Resolution, ChangedBy, UndoConflict, UndoReport, UndoFailure, Outcome, BudgetLimit, RunState,
        StateName, ProtocolViolation, ReportRefusal, ReturnReason, CancelReason,
        EscalationReason, TurnLane, Usage,
        // the journal
        JournalRecord, Actor, JournalEntry, Attention, ReadFate, PulledRead, CallResult,
        Refusal, QuestionClosure, ExportSummary,
        // questions
        AgentCall, Asker, QuestionState, Question, Acceptance, Counters, AnswerOutcome, AnswerReport,
        // review
        ProposedChange, ReviewItem, StaleRead, ReviewSheet, ReviewAgain, EscalationSheet,
        // listings
        Waiting, CutOff, RunListing, RunsPage, RunsQuery, ActorIdentity,
        // the transport
        Direction, TurnOutcome, WireEvent, Tool, IndexEntry, DeepRead, CallReport, TurnRequest, TraceContext,
        ScriptedEvent, ScriptTurn, Script,
        // schemas
        ValidationIssue, Validation,
        // events
        Event, Effect, FindingReason, Finding, Announcement, Speaker, Ending, Said,
        // the host's
        HostEvent, StorageMode, StorageStatus,
    );
    declared
}

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../pkg/data.d.ts")
}

#[test]
fn every_type_a_declaration_refers_to_is_declared() {
    let declared = generated();
    let missing: Vec<String> = declared
        .referenced
        .iter()
        .filter(|(_, id, _)| !declared.ids.contains(id))
        .map(|(from, _, name)| format!("{from} refers to {name}"))
        .collect();
    assert!(
        missing.is_empty(),
        "declare these in `generated()` too:\n{}",
        missing.join("\n")
    );
}

#[test]
fn pkg_data_types_are_what_the_core_serialises() {
    let text = format!("{HEADER}{}", generated().text.trim_end()) + "\n";
    let path = path();
    if std::env::var_os("BATON_WRITE_TYPES").is_some() {
        std::fs::write(&path, &text).expect("pkg/data.d.ts is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != text {
        let line = committed
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(text.lines().count()));
        panic!(
            "pkg/data.d.ts differs from the core's types from line {} on \
             (committed: {:?}, generated: {:?}); run \
             `BATON_WRITE_TYPES=1 cargo test -p baton-core --features typescript --test typescript`",
            line + 1,
            committed.lines().nth(line),
            text.lines().nth(line),
        );
    }
}
