//! Finding manifests in an app's sources: `*.baton.json` files, and the
//! manifest literals passed to `register(…)` in JavaScript and TypeScript,
//! read with a real parser (oxc). A manifest given by name is followed to
//! its `const` declaration, in the same file or exported by another scanned
//! one. The behaviours registered with them are read too: their `instance`
//! (AG-23) and what their `invoke` does with the actor reference it
//! receives (AG-34, followed in `actor_flow`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    BindingPatternKind, CallExpression, Declaration, Expression, ObjectExpression, ObjectProperty,
    ObjectPropertyKind, Program, Statement,
};
use oxc_ast_visit::{walk, Visit};
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType, Span};
use serde_json::Value;

use crate::actor_flow::{self, Functions};
use crate::literal::{self, Constants, Literal};

/// A scanned file.
pub struct SourceFile {
    /// Its path, as given or found.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

/// A manifest found in the sources.
pub struct Found {
    /// The file it is written in.
    pub file: usize,
    /// Where it starts.
    pub span: Span,
    /// Its JSON, locations and what in it is not data.
    pub literal: Literal,
    /// Where it is registered, with the instance name each registration gives.
    pub registrations: Vec<(usize, Span, Option<String>)>,
}

/// Something wrong in the sources themselves, outside a manifest.
pub struct SourceFinding {
    /// The requirement.
    pub requirement: &'static str,
    /// The file.
    pub file: usize,
    /// Where.
    pub span: Span,
    /// What.
    pub message: String,
}

/// What a scan of the sources found.
#[derive(Default)]
pub struct Scan {
    /// The files read, by index.
    pub files: Vec<SourceFile>,
    /// The manifests.
    pub manifests: Vec<Found>,
    /// Findings about the code around them.
    pub findings: Vec<SourceFinding>,
    /// Files that could not be read or parsed, with why.
    pub unreadable: Vec<(PathBuf, String)>,
}

fn is_script(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|ext| ext.to_str()),
        Some("js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx")
    ) && !path.to_string_lossy().ends_with(".d.ts")
}

fn is_manifest_json(path: &Path) -> bool {
    path.to_string_lossy().ends_with(".baton.json")
}

/// Every file under `paths` that may hold a manifest; `node_modules`,
/// `target` and hidden directories are not descended into.
pub fn collect(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<(PathBuf, String)>) {
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    let mut stack: Vec<PathBuf> = paths.iter().rev().cloned().collect();
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            match std::fs::read_dir(&path) {
                Ok(entries) => {
                    let mut children: Vec<PathBuf> =
                        entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
                    children.sort();
                    for child in children.into_iter().rev() {
                        let name = child.file_name().and_then(|n| n.to_str()).unwrap_or("");
                        let skipped = child.is_dir()
                            && (name.starts_with('.')
                                || name == "node_modules"
                                || name == "target");
                        if !skipped {
                            stack.push(child);
                        }
                    }
                }
                Err(error) => unreadable.push((path, error.to_string())),
            }
        } else if path.exists() {
            if is_script(&path) || is_manifest_json(&path) {
                files.push(path);
            }
        } else {
            unreadable.push((path, "no such file or directory".into()));
        }
    }
    (files, unreadable)
}

/// Reads and parses `paths`, and finds their manifests.
pub fn scan(paths: &[PathBuf]) -> Scan {
    let (found, unreadable) = collect(paths);
    let mut scan = Scan {
        unreadable,
        ..Scan::default()
    };
    for path in found {
        match std::fs::read_to_string(&path) {
            Ok(text) => scan.files.push(SourceFile { path, text }),
            Err(error) => scan.unreadable.push((path, error.to_string())),
        }
    }
    let allocator = Allocator::default();
    let (programs, jsons) = parse_all(&allocator, &scan.files, &mut scan.unreadable);
    let (visible, locals, exported_in) = constants(&programs);
    for (index, json) in jsons.iter().enumerate() {
        if let Some(expression) = json {
            scan.manifests.push(Found {
                file: index,
                span: expression.span(),
                literal: literal::read(expression, &BTreeMap::new()),
                registrations: Vec::new(),
            });
        }
    }
    let functions = Functions::of(&programs);
    let mut by_start: BTreeMap<(usize, u32), usize> = BTreeMap::new();
    for (index, program) in programs.iter().enumerate() {
        let Some(program) = program else { continue };
        let mut finder = Registrations {
            file: index,
            functions: &functions,
            visible: &visible,
            locals: &locals[index],
            exported_in: &exported_in,
            calls: Vec::new(),
            findings: Vec::new(),
        };
        finder.visit_program(program);
        scan.findings.extend(finder.findings);
        for call in finder.calls {
            let registration = (index, call.span, call.instance);
            if let Some(&known) = by_start.get(&call.key) {
                scan.manifests[known].registrations.push(registration);
                continue;
            }
            by_start.insert(call.key, scan.manifests.len());
            scan.manifests.push(Found {
                file: call.key.0,
                span: call.manifest_span,
                literal: call.literal,
                registrations: vec![registration],
            });
        }
    }
    scan
}

/// Parses every file: a manifest JSON file as one expression, a script as
/// a program; what does not parse is unreadable, said so.
#[allow(clippy::type_complexity)]
fn parse_all<'a>(
    allocator: &'a Allocator,
    files: &[SourceFile],
    unreadable: &mut Vec<(PathBuf, String)>,
) -> (Vec<Option<Program<'a>>>, Vec<Option<Expression<'a>>>) {
    let mut programs: Vec<Option<Program<'_>>> = Vec::new();
    let mut jsons: Vec<Option<Expression<'_>>> = Vec::new();
    for file in files {
        let text = allocator.alloc_str(&file.text);
        if is_manifest_json(&file.path) {
            // JSON is an expression: parsed as one, every value keeps its place.
            match Parser::new(allocator, text, SourceType::mjs()).parse_expression() {
                Ok(expression) => jsons.push(Some(expression)),
                Err(errors) => {
                    let why = errors.first().map(|e| e.to_string()).unwrap_or_default();
                    unreadable.push((file.path.clone(), format!("not JSON: {why}")));
                    jsons.push(None);
                }
            }
            programs.push(None);
            continue;
        }
        let source_type = SourceType::from_path(&file.path).unwrap_or(SourceType::mjs());
        let parsed = Parser::new(allocator, text, source_type).parse();
        if let Some(error) = parsed
            .errors
            .first()
            .filter(|_| parsed.panicked || !parsed.errors.is_empty())
        {
            unreadable.push((file.path.clone(), format!("does not parse: {error}")));
            programs.push(None);
        } else {
            programs.push(Some(parsed.program));
        }
        jsons.push(None);
    }
    (programs, jsons)
}

/// The constants each file sees — its own, then what every other file
/// exports — its own alone, and which file exports each name.
#[allow(clippy::type_complexity)]
fn constants<'s, 'a>(
    programs: &'s [Option<Program<'a>>],
) -> (
    Vec<Constants<'s, 'a>>,
    Vec<Constants<'s, 'a>>,
    BTreeMap<String, usize>,
) {
    // Constants: each file's own, then what every other file exports.
    let mut exported: Constants<'_, '_> = BTreeMap::new();
    let mut exported_in: BTreeMap<String, usize> = BTreeMap::new();
    let mut locals: Vec<Constants<'_, '_>> = Vec::new();
    for (index, program) in programs.iter().enumerate() {
        let mut local = BTreeMap::new();
        if let Some(program) = program {
            for (name, expression, is_exported) in constants_of(program) {
                if is_exported {
                    exported.insert(name.clone(), expression);
                    exported_in.insert(name.clone(), index);
                }
                local.insert(name, expression);
            }
        }
        locals.push(local);
    }
    let visible: Vec<Constants<'_, '_>> = (0..programs.len())
        .map(|index| {
            let mut all = exported.clone();
            all.extend(locals[index].clone());
            all
        })
        .collect();
    (visible, locals, exported_in)
}

/// Top-level `const name = <expression>` declarations, and whether exported.
fn constants_of<'s, 'a>(program: &'s Program<'a>) -> Vec<(String, &'s Expression<'a>, bool)> {
    let mut out = Vec::new();
    let mut declare = |declaration: &'s Declaration<'a>, exported: bool| {
        if let Declaration::VariableDeclaration(variables) = declaration {
            if !variables.kind.is_const() {
                return;
            }
            for declarator in &variables.declarations {
                if let (BindingPatternKind::BindingIdentifier(id), Some(init)) =
                    (&declarator.id.kind, &declarator.init)
                {
                    out.push((id.name.to_string(), init, exported));
                }
            }
        }
    };
    for statement in &program.body {
        match statement {
            Statement::VariableDeclaration(_) => {
                if let Some(declaration) = statement.as_declaration() {
                    declare(declaration, false);
                }
            }
            Statement::ExportNamedDeclaration(export) => {
                if let Some(declaration) = &export.declaration {
                    declare(declaration, true);
                }
            }
            _ => {}
        }
    }
    out
}

/// One `register(manifest, behaviour)` call, its manifest read.
struct Call {
    span: Span,
    /// The manifest's file and where it starts: one manifest, however often registered.
    key: (usize, u32),
    manifest_span: Span,
    literal: Literal,
    instance: Option<String>,
}

struct Registrations<'c, 's, 'a> {
    file: usize,
    functions: &'c Functions<'s, 'a>,
    visible: &'c [Constants<'s, 'a>],
    locals: &'c Constants<'s, 'a>,
    exported_in: &'c BTreeMap<String, usize>,
    calls: Vec<Call>,
    findings: Vec<SourceFinding>,
}

fn is_register(call: &CallExpression<'_>) -> bool {
    match &call.callee {
        Expression::StaticMemberExpression(member) => member.property.name == "register",
        Expression::Identifier(name) => name.name == "register",
        _ => false,
    }
}

fn property<'o, 'a>(
    object: &'o ObjectExpression<'a>,
    name: &str,
) -> Option<&'o ObjectProperty<'a>> {
    object
        .properties
        .iter()
        .find_map(|property| match property {
            ObjectPropertyKind::ObjectProperty(p)
                if p.key.static_name().as_deref() == Some(name) =>
            {
                Some(&**p)
            }
            _ => None,
        })
}

impl<'a> Registrations<'_, '_, 'a> {
    /// The manifest a `register` call names: its file, where it starts, and
    /// its JSON; `None` for one that is not a literal (JSON text, a call …).
    fn manifest(&self, expression: &Expression<'a>) -> Option<((usize, u32), Span, Literal)> {
        match expression {
            Expression::Identifier(name) => {
                let name = name.name.as_str();
                let home = if self.locals.contains_key(name) {
                    self.file
                } else {
                    *self.exported_in.get(name)?
                };
                let target = self.visible[home].get(name)?;
                let literal = literal::read(target, &self.visible[home]);
                Some(((home, target.span().start), target.span(), literal))
            }
            Expression::ObjectExpression(_) => {
                let literal = literal::read(expression, &self.visible[self.file]);
                Some((
                    (self.file, expression.span().start),
                    expression.span(),
                    literal,
                ))
            }
            _ => None,
        }
    }

    fn behaviour(&mut self, behaviour: &ObjectExpression<'a>) -> Option<String> {
        if let Some(invoke) = property(behaviour, "invoke") {
            // `invoke` written out, or a function it names (AG-34).
            let function = match &invoke.value {
                Expression::Identifier(name) => self.functions.get(self.file, &name.name),
                value => actor_flow::function_of(self.file, value),
            };
            if let Some(function) = function {
                self.findings
                    .extend(actor_flow::check(self.functions, function, 2));
            }
        }
        property(behaviour, "instance").map(|instance| match &instance.value {
            Expression::StringLiteral(text) => text.value.to_string(),
            // Computed: not comparable, so taken as distinct from every other.
            _ => format!("(computed at {})", instance.span.start),
        })
    }
}

impl<'a> Visit<'a> for Registrations<'_, '_, 'a> {
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let manifest = is_register(it)
            .then(|| it.arguments.first().and_then(|a| a.as_expression()))
            .flatten()
            .and_then(|expression| self.manifest(expression));
        if let Some((key, manifest_span, literal)) = manifest {
            let instance = match it.arguments.get(1).and_then(|a| a.as_expression()) {
                Some(Expression::ObjectExpression(behaviour)) => self.behaviour(behaviour),
                _ => None,
            };
            self.calls.push(Call {
                span: it.span,
                key,
                manifest_span,
                literal,
                instance,
            });
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_object_property(&mut self, it: &ObjectProperty<'a>) {
        // Constructing an actor reference instead of passing one on (AG-34).
        if it.key.static_name().as_deref() == Some("actor")
            && matches!(
                it.value,
                Expression::StringLiteral(_)
                    | Expression::TemplateLiteral(_)
                    | Expression::ObjectExpression(_)
            )
        {
            self.findings.push(SourceFinding {
                requirement: "AG-34",
                file: self.file,
                span: it.span,
                message: "an actor reference is made up here; pass on the one `invoke` received, unchanged".into(),
            });
        }
        walk::walk_object_property(self, it);
    }
}

/// A JSON value's text, for messages.
pub fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}
