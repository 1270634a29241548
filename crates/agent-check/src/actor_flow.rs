//! What a behaviour's `invoke` does with the actor reference it receives
//! (AG-34): anything but passing it on whole — reading into it, joining it
//! to text, assigning to it — alters it. The reference is followed through
//! the variables it is copied into and into the helper functions it is
//! handed to, in the same file or exported by another scanned one.

use std::collections::{BTreeMap, BTreeSet};

use oxc_ast::ast::{
    Argument, AssignmentTarget, BindingPatternKind, CallExpression, Declaration, Expression,
    FormalParameters, FunctionBody, Program, Statement, TemplateLiteral, VariableDeclarator,
};
use oxc_ast_visit::{walk, Visit};
use oxc_span::Span;

use crate::source::SourceFinding;

/// How many helper calls deep a reference is followed.
const MAX_DEPTH: usize = 8;

/// A function a reference can be handed to: its file, parameters and body.
#[derive(Clone, Copy)]
pub struct Function<'s, 'a> {
    file: usize,
    params: &'s FormalParameters<'a>,
    body: &'s FunctionBody<'a>,
}

/// The functions each file can call by name: its own top-level ones, then
/// what every other file exports.
pub struct Functions<'s, 'a> {
    visible: Vec<BTreeMap<String, Function<'s, 'a>>>,
}

impl<'s, 'a> Functions<'s, 'a> {
    /// Collects the top-level functions of every parsed program.
    pub fn of(programs: &'s [Option<Program<'a>>]) -> Self {
        let mut exported = BTreeMap::new();
        let mut locals = Vec::new();
        for (file, program) in programs.iter().enumerate() {
            let mut local = BTreeMap::new();
            for statement in program.iter().flat_map(|program| &program.body) {
                let (declaration, is_exported) = match statement {
                    Statement::ExportNamedDeclaration(export) => match &export.declaration {
                        Some(declaration) => (declaration, true),
                        None => continue,
                    },
                    _ => match statement.as_declaration() {
                        Some(declaration) => (declaration, false),
                        None => continue,
                    },
                };
                for (name, function) in declared(file, declaration) {
                    if is_exported {
                        exported.insert(name.clone(), function);
                    }
                    local.insert(name, function);
                }
            }
            locals.push(local);
        }
        let visible = locals
            .into_iter()
            .map(|local| {
                let mut all = exported.clone();
                all.extend(local);
                all
            })
            .collect();
        Functions { visible }
    }

    /// The function `name` as `file` sees it.
    pub fn get(&self, file: usize, name: &str) -> Option<Function<'s, 'a>> {
        self.visible.get(file)?.get(name).copied()
    }
}

/// `function name(…) {…}`, and `const name = (…) => …` or `= function (…) {…}`.
fn declared<'s, 'a>(
    file: usize,
    declaration: &'s Declaration<'a>,
) -> Vec<(String, Function<'s, 'a>)> {
    match declaration {
        Declaration::FunctionDeclaration(function) => function
            .id
            .as_ref()
            .zip(function.body.as_deref())
            .map(|(id, body)| {
                let params = &*function.params;
                (id.name.to_string(), Function { file, params, body })
            })
            .into_iter()
            .collect(),
        Declaration::VariableDeclaration(variables) => variables
            .declarations
            .iter()
            .filter_map(|declarator| match (&declarator.id.kind, &declarator.init) {
                (BindingPatternKind::BindingIdentifier(id), Some(init)) => {
                    function_of(file, init).map(|function| (id.name.to_string(), function))
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The function an expression is, if it is one written out.
pub fn function_of<'s, 'a>(
    file: usize,
    expression: &'s Expression<'a>,
) -> Option<Function<'s, 'a>> {
    match expression {
        Expression::FunctionExpression(function) => Some(Function {
            file,
            params: &function.params,
            body: function.body.as_deref()?,
        }),
        Expression::ArrowFunctionExpression(arrow) => Some(Function {
            file,
            params: &arrow.params,
            body: &arrow.body,
        }),
        _ => None,
    }
}

/// The findings on what `function` does with its parameter at `position`,
/// an actor reference, and on every helper it hands the reference to.
pub fn check<'s, 'a>(
    functions: &Functions<'s, 'a>,
    function: Function<'s, 'a>,
    position: usize,
) -> Vec<SourceFinding> {
    let mut followed = BTreeSet::new();
    let mut findings = Vec::new();
    follow(
        functions,
        function,
        position,
        0,
        &mut followed,
        &mut findings,
    );
    findings
}

fn follow<'s, 'a>(
    functions: &Functions<'s, 'a>,
    function: Function<'s, 'a>,
    position: usize,
    depth: usize,
    followed: &mut BTreeSet<(usize, u32, usize)>,
    findings: &mut Vec<SourceFinding>,
) {
    let key = (function.file, function.body.span.start, position);
    if depth > MAX_DEPTH || !followed.insert(key) {
        return;
    }
    let Some(name) = parameter(function.params, position) else {
        return;
    };
    let mut uses = ActorUses {
        functions,
        file: function.file,
        names: vec![name.clone()],
        received: name,
        handed: Vec::new(),
        findings: Vec::new(),
    };
    uses.visit_function_body(function.body);
    findings.append(&mut uses.findings);
    for (helper, position) in uses.handed {
        follow(functions, helper, position, depth + 1, followed, findings);
    }
}

/// The name of the parameter at `position`, when it is a plain name.
fn parameter(params: &FormalParameters<'_>, position: usize) -> Option<String> {
    match &params.items.get(position)?.pattern.kind {
        BindingPatternKind::BindingIdentifier(id) => Some(id.name.to_string()),
        _ => None,
    }
}

/// One function body's uses of an actor reference, under every name it is
/// known by there.
struct ActorUses<'f, 's, 'a> {
    functions: &'f Functions<'s, 'a>,
    file: usize,
    /// The parameter, then every variable it was copied into.
    names: Vec<String>,
    /// The name it arrived under, for messages.
    received: String,
    /// Helpers it was handed to, with the argument position.
    handed: Vec<(Function<'s, 'a>, usize)>,
    findings: Vec<SourceFinding>,
}

impl<'s, 'a> ActorUses<'_, 's, 'a> {
    fn is_actor(&self, expression: &Expression<'_>) -> bool {
        matches!(expression, Expression::Identifier(name) if self.names.iter().any(|known| name.name == known.as_str()))
    }

    fn flag(&mut self, span: Span, what: &str) {
        self.findings.push(SourceFinding {
            requirement: "AG-34",
            file: self.file,
            span,
            message: format!(
                "the actor reference `{}` is {what}; pass it on verbatim",
                self.received
            ),
        });
    }
}

impl<'a> Visit<'a> for ActorUses<'_, '_, 'a> {
    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if it.init.as_ref().is_some_and(|init| self.is_actor(init)) {
            match &it.id.kind {
                // A copy: followed under its new name.
                BindingPatternKind::BindingIdentifier(id) => self.names.push(id.name.to_string()),
                _ => self.flag(it.span, "taken apart"),
            }
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Expression::Identifier(callee) = &it.callee {
            for (position, argument) in it.arguments.iter().enumerate() {
                let is_actor = argument
                    .as_expression()
                    .is_some_and(|expression| self.is_actor(expression));
                if let (true, Some(helper)) =
                    (is_actor, self.functions.get(self.file, &callee.name))
                {
                    self.handed.push((helper, position));
                }
                if matches!(argument, Argument::SpreadElement(spread) if self.is_actor(&spread.argument))
                {
                    self.flag(it.span, "spread into arguments");
                }
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &oxc_ast::ast::AssignmentExpression<'a>) {
        let target_is_actor = match &it.left {
            AssignmentTarget::AssignmentTargetIdentifier(name) => {
                self.names.iter().any(|known| name.name == known.as_str())
            }
            AssignmentTarget::StaticMemberExpression(member) => self.is_actor(&member.object),
            AssignmentTarget::ComputedMemberExpression(member) => self.is_actor(&member.object),
            _ => false,
        };
        if target_is_actor {
            self.flag(it.span, "assigned to");
        } else if let (AssignmentTarget::AssignmentTargetIdentifier(name), true) =
            (&it.left, self.is_actor(&it.right))
        {
            self.names.push(name.name.to_string());
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_static_member_expression(&mut self, it: &oxc_ast::ast::StaticMemberExpression<'a>) {
        if self.is_actor(&it.object) {
            self.flag(it.span, "read into");
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_computed_member_expression(
        &mut self,
        it: &oxc_ast::ast::ComputedMemberExpression<'a>,
    ) {
        if self.is_actor(&it.object) {
            self.flag(it.span, "read into");
        }
        walk::walk_computed_member_expression(self, it);
    }

    fn visit_binary_expression(&mut self, it: &oxc_ast::ast::BinaryExpression<'a>) {
        if self.is_actor(&it.left) || self.is_actor(&it.right) {
            self.flag(it.span, "combined with something else");
        }
        walk::walk_binary_expression(self, it);
    }

    fn visit_template_literal(&mut self, it: &TemplateLiteral<'a>) {
        if it
            .expressions
            .iter()
            .any(|expression| self.is_actor(expression))
        {
            self.flag(it.span, "built into text");
        }
        walk::walk_template_literal(self, it);
    }
}
