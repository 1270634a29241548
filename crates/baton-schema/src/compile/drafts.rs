//! What the compiler does differently for the older drafts
//! (`dialect.rs`): draft 04's boolean bounds, `items` as an array with
//! `additionalItems`, `dependencies`, and 2019-09's `$recursiveRef`.

use serde_json::{Map, Value};

use super::{invalid, names, Bound, Compiler, Keyword, Loc, SchemaError};
use crate::uri;

/// Draft 04's bounds: `exclusiveMaximum` and `exclusiveMinimum` are
/// booleans that make `maximum` and `minimum` exclusive.
pub(super) fn draft4_bound(
    map: &Map<String, Value>,
    loc: &Loc,
    keyword: &str,
    bound: Bound,
    out: &mut Vec<Keyword>,
) -> Result<(), SchemaError> {
    let (limit, exclusive) = match bound {
        Bound::Minimum => ("minimum", "exclusiveMinimum"),
        Bound::Maximum => ("maximum", "exclusiveMaximum"),
        // Read with their limits.
        _ => return Ok(()),
    };
    let Some(value) = map.get(keyword) else {
        return Ok(());
    };
    let n = value
        .as_number()
        .ok_or_else(|| invalid(loc, limit, "must be a number"))?;
    let exclusive = match map.get(exclusive) {
        None | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => true,
        Some(_) => return Err(invalid(loc, exclusive, "must be a boolean in draft 04")),
    };
    let bound = match (bound, exclusive) {
        (Bound::Minimum, true) => Bound::ExclusiveMinimum,
        (Bound::Maximum, true) => Bound::ExclusiveMaximum,
        (bound, _) => bound,
    };
    out.push(Keyword::Bound(bound, n.clone()));
    Ok(())
}

impl Compiler<'_> {
    /// Before 2020-12: `items` as an array of schemas, then `additionalItems`.
    pub(super) fn item_array(
        &mut self,
        map: &Map<String, Value>,
        items: &Value,
        loc: &Loc,
        base: &str,
        out: &mut Vec<Keyword>,
    ) -> Result<(), SchemaError> {
        let nodes = self.children(loc, base, "items", items)?;
        let after = nodes.len();
        out.push(Keyword::PrefixItems(nodes));
        if map.contains_key("additionalItems") {
            let node = self.child(loc, base, &["additionalItems"])?;
            out.push(Keyword::Items { node, after });
        }
        Ok(())
    }

    /// `dependencies` (before 2019-09; read in later drafts too, for
    /// compatibility): names required or a schema, per
    /// property.
    pub(super) fn dependencies(
        &mut self,
        dependencies: &Map<String, Value>,
        loc: &Loc,
        base: &str,
        out: &mut Vec<Keyword>,
    ) -> Result<(), SchemaError> {
        let mut required = Vec::new();
        let mut schemas = Vec::new();
        for (name, dependency) in dependencies {
            match dependency {
                Value::Array(_) => {
                    required.push((name.clone(), names(loc, dependency, "dependencies")?))
                }
                _ => schemas.push((
                    name.clone(),
                    self.child(loc, base, &["dependencies", name])?,
                )),
            }
        }
        out.push(Keyword::DependentRequired(required));
        out.push(Keyword::DependentSchemas(schemas));
        Ok(())
    }

    /// 2019-09's `$recursiveRef`: like `$ref`, but when its target's
    /// resource has `$recursiveAnchor: true`, the outermost resource in the
    /// dynamic scope that has one too — a `$dynamicRef` to the anchor with
    /// the empty name (`index.rs`).
    pub(super) fn recursive_ref(
        &mut self,
        loc: &Loc,
        base: &str,
        reference: &Value,
    ) -> Result<Keyword, SchemaError> {
        let reference = reference
            .as_str()
            .ok_or_else(|| invalid(loc, "$recursiveRef", "must be a string"))?;
        let target = self.reference(base, reference)?;
        let resource = uri::split_fragment(&uri::resolve(base, reference))
            .0
            .to_owned();
        let anchored = self.index.is_dynamic_anchor(&format!("{resource}#"));
        if anchored {
            self.dynamic_names.insert(String::new());
        }
        Ok(Keyword::DynamicRef {
            target,
            anchor: anchored.then(String::new),
        })
    }
}
