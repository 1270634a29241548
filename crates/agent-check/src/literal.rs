//! A manifest written as a JavaScript literal, read as JSON: object and
//! array literals, strings, numbers, booleans, `null`, template literals
//! without substitutions, and references to other `const` literals of the
//! scanned sources. Anything else — a function, a call, a getter, a spread
//! of something unknown — is not inert data (AG-12): it is reported where it
//! stands and left out of the value. Every value's location is kept by its
//! JSON path (`$.capabilities[0].description`), the form the core's manifest
//! problems use.

use std::collections::BTreeMap;

use oxc_ast::ast::{
    ArrayExpression, ArrayExpressionElement, Expression, ObjectExpression, ObjectPropertyKind,
    PropertyKind, UnaryOperator,
};
use oxc_span::{GetSpan, Span};
use serde_json::{Map, Number, Value};

/// A literal's JSON, where each part of it stands, and what in it is not data.
#[derive(Debug, Default)]
pub struct Literal {
    /// The value.
    pub value: Value,
    /// Where each JSON path's value starts, as a byte offset into its source.
    pub spans: BTreeMap<String, Span>,
    /// What is not inert data, with where it stands.
    pub not_data: Vec<(String, Span, String)>,
}

/// `const` literals a manifest may refer to by name.
pub type Constants<'s, 'a> = BTreeMap<String, &'s Expression<'a>>;

/// Reads `expression` as JSON.
pub fn read(expression: &Expression<'_>, constants: &Constants<'_, '_>) -> Literal {
    let mut literal = Literal::default();
    literal.value = value_of(expression, "$", constants, &mut literal, 0);
    literal
}

/// How deep references to other constants are followed.
const MAX_DEPTH: usize = 32;

fn value_of(
    expression: &Expression<'_>,
    path: &str,
    constants: &Constants<'_, '_>,
    literal: &mut Literal,
    depth: usize,
) -> Value {
    literal.spans.insert(path.to_owned(), expression.span());
    let mut not_data = |what: &str| {
        literal
            .not_data
            .push((path.to_owned(), expression.span(), what.to_owned()));
        Value::Null
    };
    match expression {
        Expression::StringLiteral(text) => Value::from(text.value.as_str()),
        Expression::NumericLiteral(number) => number_of(number.value),
        Expression::BooleanLiteral(boolean) => Value::from(boolean.value),
        Expression::NullLiteral(_) => Value::Null,
        Expression::TemplateLiteral(template) if template.expressions.is_empty() => Value::from(
            template
                .quasi()
                .map(|text| text.to_string())
                .unwrap_or_default(),
        ),
        Expression::UnaryExpression(unary) if unary.operator == UnaryOperator::UnaryNegation => {
            match &unary.argument {
                Expression::NumericLiteral(number) => number_of(-number.value),
                _ => not_data("a computed number"),
            }
        }
        Expression::ParenthesizedExpression(inner) => {
            value_of(&inner.expression, path, constants, literal, depth)
        }
        Expression::TSAsExpression(inner) => {
            value_of(&inner.expression, path, constants, literal, depth)
        }
        Expression::TSSatisfiesExpression(inner) => {
            value_of(&inner.expression, path, constants, literal, depth)
        }
        Expression::Identifier(name) => match constants.get(name.name.as_str()) {
            Some(target) if depth < MAX_DEPTH => {
                let value = value_of(target, path, constants, literal, depth + 1);
                // The manifest's own text is where a reader looks.
                literal.spans.insert(path.to_owned(), expression.span());
                value
            }
            _ => not_data(&format!("`{}`, which is not a constant literal", name.name)),
        },
        Expression::ArrayExpression(array) => array_of(array, path, constants, literal, depth),
        Expression::ObjectExpression(object) => object_of(object, path, constants, literal, depth),
        Expression::FunctionExpression(_) | Expression::ArrowFunctionExpression(_) => {
            not_data("a function")
        }
        Expression::CallExpression(_) | Expression::NewExpression(_) => not_data("a call"),
        Expression::TemplateLiteral(_) => not_data("a template with substitutions"),
        _ => not_data("an expression that is not a literal"),
    }
}

/// An array literal's value; a spread of a constant array is inlined.
fn array_of(
    array: &ArrayExpression<'_>,
    path: &str,
    constants: &Constants<'_, '_>,
    literal: &mut Literal,
    depth: usize,
) -> Value {
    let mut items = Vec::new();
    for element in &array.elements {
        let at = format!("{path}[{}]", items.len());
        match element {
            ArrayExpressionElement::SpreadElement(spread) => {
                match value_of(&spread.argument, &at, constants, literal, depth + 1) {
                    Value::Array(spread) => items.extend(spread),
                    _ => {
                        literal.not_data.push((
                            at,
                            spread.span,
                            "a spread of something that is not a constant array".into(),
                        ));
                    }
                }
            }
            ArrayExpressionElement::Elision(_) => items.push(Value::Null),
            other => match other.as_expression() {
                Some(item) => items.push(value_of(item, &at, constants, literal, depth)),
                None => items.push(Value::Null),
            },
        }
    }
    Value::Array(items)
}

/// An object literal's value; accessors, methods and computed keys are not
/// data, a spread of a constant object is inlined.
fn object_of(
    object: &ObjectExpression<'_>,
    path: &str,
    constants: &Constants<'_, '_>,
    literal: &mut Literal,
    depth: usize,
) -> Value {
    let mut map = Map::new();
    for property in &object.properties {
        match property {
            ObjectPropertyKind::ObjectProperty(property) => {
                let key = match property.key.static_name() {
                    Some(key) if !property.computed => key.to_string(),
                    _ => {
                        literal.not_data.push((
                            path.to_owned(),
                            property.span,
                            "a computed key".into(),
                        ));
                        continue;
                    }
                };
                let at = member(path, &key);
                let code = if property.kind != PropertyKind::Init {
                    Some("an accessor")
                } else if property.method {
                    Some("a method")
                } else {
                    None
                };
                if let Some(what) = code {
                    // Kept as `null`, so what the engine says of it
                    // falls under this finding, not beside it.
                    literal.spans.insert(at.clone(), property.span);
                    literal.not_data.push((at, property.span, what.into()));
                    map.insert(key, Value::Null);
                    continue;
                }
                let value = value_of(&property.value, &at, constants, literal, depth);
                map.insert(key, value);
            }
            ObjectPropertyKind::SpreadProperty(spread) => {
                match value_of(&spread.argument, path, constants, literal, depth + 1) {
                    Value::Object(spread) => map.extend(spread),
                    _ => literal.not_data.push((
                        path.to_owned(),
                        spread.span,
                        "a spread of something that is not a constant object".into(),
                    )),
                }
            }
        }
    }
    Value::Object(map)
}

fn number_of(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        Value::from(value as i64)
    } else {
        Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

/// The JSON path of a member, as the core writes it.
fn member(path: &str, key: &str) -> String {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::from(key))
    }
}
