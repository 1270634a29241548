//! A schema document compiled into a graph of nodes, one per schema object
//! reached, with every reference resolved at compile time.
//!
//! Locations are a document and a JSON Pointer into it. The documents are the
//! schema itself and the 2020-12 meta-schemas ([`super::meta`]), so a
//! reference to a meta-schema resolves without leaving the process; any other
//! document is refused, never fetched.

mod drafts;
mod types;

pub(super) use types::Types;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::dialect::Draft;
use super::format::Format;
use super::index::{Index, Loc};
use super::instance::Instance;
use super::meta;
use super::pattern::Pattern;
use super::uri;
use super::SchemaError;

pub(super) type NodeId = usize;

/// A compiled schema object (or boolean schema).
#[derive(Debug)]
pub(super) struct Node {
    /// The schema resource it belongs to, for `$dynamicRef`'s dynamic scope.
    pub(super) resource: u32,
    /// What it checks, in order (`unevaluated*` last); empty for `true` or `{}`.
    pub(super) keywords: Vec<Keyword>,
    /// `false`: nothing is valid.
    pub(super) reject_all: bool,
    /// Whether it holds `unevaluatedItems` or `unevaluatedProperties`: read
    /// from `keywords` once, as every evaluation of the node asks.
    pub(super) unevaluated: bool,
}

/// Which bound a number is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bound {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

/// What a count keyword bounds, and which way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Counted {
    MinLength,
    MaxLength,
    MinItems,
    MaxItems,
    MinProperties,
    MaxProperties,
}

impl Counted {
    const ALL: [Counted; 6] = [
        Counted::MinLength,
        Counted::MaxLength,
        Counted::MinItems,
        Counted::MaxItems,
        Counted::MinProperties,
        Counted::MaxProperties,
    ];

    /// The keyword's name.
    pub(super) fn keyword(self) -> &'static str {
        match self {
            Counted::MinLength => "minLength",
            Counted::MaxLength => "maxLength",
            Counted::MinItems => "minItems",
            Counted::MaxItems => "maxItems",
            Counted::MinProperties => "minProperties",
            Counted::MaxProperties => "maxProperties",
        }
    }

    /// Whether it is a lower bound.
    pub(super) fn is_min(self) -> bool {
        matches!(
            self,
            Counted::MinLength | Counted::MinItems | Counted::MinProperties
        )
    }
}

/// One compiled keyword.
#[derive(Debug)]
pub(super) enum Keyword {
    Type(Types),
    Enum(Vec<Instance<'static>>),
    Const(Instance<'static>),
    MultipleOf(Number),
    Bound(Bound, Number),
    /// A bound on a count: characters, items or properties.
    Count(Counted, u64),
    Pattern(Arc<Pattern>),
    Format(Format),
    UniqueItems,
    Contains {
        node: NodeId,
        min: u64,
        max: Option<u64>,
    },
    Required(Vec<String>),
    DependentRequired(Vec<(String, Vec<String>)>),
    Properties(Vec<(String, NodeId)>),
    PatternProperties(Vec<(Arc<Pattern>, NodeId)>),
    AdditionalProperties {
        node: NodeId,
        declared: BTreeSet<String>,
        patterns: Vec<Arc<Pattern>>,
    },
    PropertyNames(NodeId),
    DependentSchemas(Vec<(String, NodeId)>),
    PrefixItems(Vec<NodeId>),
    Items {
        node: NodeId,
        after: usize,
    },
    AllOf(Vec<NodeId>),
    AnyOf(Vec<NodeId>),
    OneOf(Vec<NodeId>),
    Not(NodeId),
    If {
        condition: NodeId,
        then: Option<NodeId>,
        otherwise: Option<NodeId>,
    },
    Ref(NodeId),
    DynamicRef {
        target: NodeId,
        anchor: Option<String>,
    },
    UnevaluatedItems(NodeId),
    UnevaluatedProperties(NodeId),
}

/// The compiled graph: `nodes[0]` is the root.
#[derive(Debug)]
pub(super) struct Program {
    pub(super) nodes: Vec<Node>,
    /// `$dynamicAnchor`s by resource and name.
    pub(super) dynamic: DynamicAnchors,
}

/// The `$dynamicAnchor`s a `$dynamicRef` may land on, by resource, then by
/// name (looked up without building a key while validating).
#[derive(Debug, Default)]
pub(super) struct DynamicAnchors(HashMap<u32, HashMap<String, NodeId>>);

impl DynamicAnchors {
    /// The node resource `resource` names `name`, if any.
    pub(super) fn get(&self, resource: u32, name: &str) -> Option<NodeId> {
        self.0.get(&resource)?.get(name).copied()
    }

    fn insert(&mut self, resource: u32, name: String, node: NodeId) {
        self.0.entry(resource).or_default().insert(name, node);
    }

    /// Every node named `name`, in any resource.
    fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = NodeId> + 'a {
        self.0
            .values()
            .filter_map(move |names| names.get(name).copied())
    }
}

/// The base URI of a document without `$id`.
pub(super) const DEFAULT_BASE: &str = "json-schema:///";

struct Compiler<'a> {
    docs: Vec<&'a Value>,
    index: Index,
    assert_formats: bool,
    /// The draft the schema (document 0) declares; the meta-schemas are
    /// 2020-12.
    draft: Draft,
    nodes: Vec<Node>,
    memo: HashMap<Loc, NodeId>,
    resources: HashMap<String, u32>,
    dynamic_names: HashSet<String>,
    touched: HashSet<usize>,
    patterns: HashMap<String, Arc<Pattern>>,
}

/// Compiles `schema`, or with `None` the 2020-12 meta-schema itself;
/// `assert_formats` is off only for the meta-schema.
pub(super) fn compile(
    schema: Option<&Value>,
    assert_formats: bool,
    draft: Draft,
) -> Result<Program, SchemaError> {
    let mut docs = vec![schema.unwrap_or(&Value::Null)];
    docs.extend(meta::documents().iter());
    let mut index = Index::over(meta::index(), draft);
    if let Some(schema) = schema {
        index.walk(0, schema, DEFAULT_BASE);
    }
    let root = Loc::root(usize::from(schema.is_none()));
    let mut compiler = Compiler {
        docs,
        index,
        assert_formats,
        draft,
        nodes: Vec::new(),
        memo: HashMap::new(),
        resources: HashMap::new(),
        dynamic_names: HashSet::new(),
        touched: HashSet::new(),
        patterns: HashMap::new(),
    };
    let root_base = compiler.index.base_of(&root).to_owned();
    compiler.node(root, &root_base)?;
    let dynamic = compiler.dynamic_anchors()?;
    if let Some(cycle) = in_place_cycle(&compiler.nodes, &dynamic) {
        return Err(SchemaError::Invalid(format!(
            "the schema refers to itself without moving into the value (at node {cycle}), so validating it would never end"
        )));
    }
    Ok(Program {
        nodes: compiler.nodes,
        dynamic,
    })
}

/// A keyword's array of property names.
fn names(loc: &Loc, value: &Value, keyword: &str) -> Result<Vec<String>, SchemaError> {
    value
        .as_array()
        .and_then(|names| {
            names
                .iter()
                .map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .ok_or_else(|| invalid(loc, keyword, "must be an array of strings"))
}

fn invalid(loc: &Loc, keyword: &str, what: &str) -> SchemaError {
    SchemaError::Invalid(format!("`{keyword}` at `#{}` {what}", loc.pointer))
}

fn count(loc: &Loc, keyword: &str, value: &Value) -> Result<u64, SchemaError> {
    match value {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                    .map(|f| f as u64)
            })
            .ok_or_else(|| invalid(loc, keyword, "must be a non-negative integer")),
        _ => Err(invalid(loc, keyword, "must be a non-negative integer")),
    }
}

/// `keyword`'s count, if the schema has it.
fn count_at(
    map: &Map<String, Value>,
    loc: &Loc,
    keyword: &str,
) -> Result<Option<u64>, SchemaError> {
    map.get(keyword).map(|v| count(loc, keyword, v)).transpose()
}

impl Compiler<'_> {
    fn resource(&mut self, base: &str) -> u32 {
        let next = self.resources.len() as u32;
        *self.resources.entry(base.to_owned()).or_insert(next)
    }

    fn pattern(&mut self, source: &str) -> Result<Arc<Pattern>, SchemaError> {
        if let Some(hit) = self.patterns.get(source) {
            return Ok(hit.clone());
        }
        let compiled = Arc::new(Pattern::compile(source)?);
        self.patterns.insert(source.to_owned(), compiled.clone());
        Ok(compiled)
    }

    /// The node for the schema at `loc`, whose base URI (before its own
    /// `$id`) is `base`.
    /// The draft at `loc`: the schema's own, or 2020-12 in the meta-schemas.
    fn draft_at(&self, loc: &Loc) -> Draft {
        if loc.doc == 0 {
            self.draft
        } else {
            Draft::Draft2020
        }
    }

    fn node(&mut self, loc: Loc, base: &str) -> Result<NodeId, SchemaError> {
        if let Some(&id) = self.memo.get(&loc) {
            return Ok(id);
        }
        self.touched.insert(loc.doc);
        let value = Index::value_at(&self.docs, &loc)
            .ok_or_else(|| SchemaError::Invalid(format!("nothing at `#{}`", loc.pointer)))?;
        let draft = self.draft_at(&loc);
        // Before 2019-09, `$ref` overrides its siblings, `$id` among them.
        let overridden = draft.is_legacy() && value.get("$ref").is_some();
        let base = match value.get(draft.id_keyword()).and_then(Value::as_str) {
            Some(id) if !overridden => uri::resolve(base, id),
            _ => base.to_owned(),
        };
        let base = uri::split_fragment(&base).0.to_owned();
        let resource = self.resource(&base);
        let id = self.nodes.len();
        self.nodes.push(Node {
            resource,
            keywords: Vec::new(),
            reject_all: false,
            unevaluated: false,
        });
        self.memo.insert(loc.clone(), id);
        match value {
            Value::Bool(accept) => self.nodes[id].reject_all = !accept,
            Value::Object(map) => {
                let keywords = self.keywords(map, &loc, &base)?;
                let node = &mut self.nodes[id];
                node.unevaluated = keywords.iter().any(|k| {
                    matches!(
                        k,
                        Keyword::UnevaluatedItems(_) | Keyword::UnevaluatedProperties(_)
                    )
                });
                node.keywords = keywords;
            }
            _ => return Err(invalid(&loc, "schema", "must be an object or a boolean")),
        }
        Ok(id)
    }

    fn child(&mut self, loc: &Loc, base: &str, path: &[&str]) -> Result<NodeId, SchemaError> {
        self.node(loc.join(path), base)
    }

    fn children(
        &mut self,
        loc: &Loc,
        base: &str,
        keyword: &str,
        value: &Value,
    ) -> Result<Vec<NodeId>, SchemaError> {
        let items = value
            .as_array()
            .filter(|items| !items.is_empty() || keyword == "prefixItems")
            .ok_or_else(|| invalid(loc, keyword, "must be a non-empty array of schemas"))?;
        (0..items.len())
            .map(|i| self.child(loc, base, &[keyword, &i.to_string()]))
            .collect()
    }

    fn named_children(
        &mut self,
        loc: &Loc,
        base: &str,
        keyword: &str,
        value: &Value,
    ) -> Result<Vec<(String, NodeId)>, SchemaError> {
        let map = value
            .as_object()
            .ok_or_else(|| invalid(loc, keyword, "must be an object of schemas"))?;
        let mut named: Vec<(String, NodeId)> = Vec::with_capacity(map.len());
        for name in map.keys() {
            let node = self.child(loc, base, &[keyword, name])?;
            // In name order for the binary search, placed rather than sorted.
            let at = named.partition_point(|(placed, _)| placed < name);
            named.insert(at, (name.clone(), node));
        }
        Ok(named)
    }

    fn reference(&mut self, base: &str, reference: &str) -> Result<NodeId, SchemaError> {
        let absolute = uri::resolve(base, reference);
        let (target, target_base) = self.index.locate(&self.docs, &absolute)?;
        self.node(target, &target_base)
    }

    fn keywords(
        &mut self,
        map: &Map<String, Value>,
        loc: &Loc,
        base: &str,
    ) -> Result<Vec<Keyword>, SchemaError> {
        let mut out = Vec::new();
        let draft = self.draft_at(loc);
        if let Some(reference) = map.get("$ref") {
            let reference = reference
                .as_str()
                .ok_or_else(|| invalid(loc, "$ref", "must be a string"))?;
            out.push(Keyword::Ref(self.reference(base, reference)?));
            // Before 2019-09, `$ref` overrides its siblings.
            if draft.is_legacy() {
                return Ok(out);
            }
        }
        if let (true, Some(reference)) = (draft.has("$dynamicRef"), map.get("$dynamicRef")) {
            let reference = reference
                .as_str()
                .ok_or_else(|| invalid(loc, "$dynamicRef", "must be a string"))?;
            let target = self.reference(base, reference)?;
            let fragment = uri::split_fragment(reference).1;
            let absolute = uri::resolve(base, reference);
            let bookended = !fragment.is_empty()
                && !fragment.starts_with('/')
                && self.index.is_dynamic_anchor(&absolute);
            let anchor = bookended.then(|| fragment.to_owned());
            if let Some(name) = &anchor {
                self.dynamic_names.insert(name.clone());
            }
            out.push(Keyword::DynamicRef { target, anchor });
        }
        if let (true, Some(reference)) = (draft.has("$recursiveRef"), map.get("$recursiveRef")) {
            out.push(self.recursive_ref(loc, base, reference)?);
        }
        if let Some(types) = map.get("type") {
            let names: Vec<&Value> = match types {
                Value::Array(names) => names.iter().collect(),
                one => vec![one],
            };
            let mut known = Types::NONE;
            for name in names {
                known = known.with(
                    Types::named(name.as_str().unwrap_or_default())
                        .ok_or_else(|| invalid(loc, "type", "names an unknown type"))?,
                );
            }
            out.push(Keyword::Type(known));
        }
        if let Some(values) = map.get("enum") {
            let values = values
                .as_array()
                .ok_or_else(|| invalid(loc, "enum", "must be an array"))?;
            out.push(Keyword::Enum(values.iter().map(Instance::owned).collect()));
        }
        if let (true, Some(value)) = (draft.has("const"), map.get("const")) {
            out.push(Keyword::Const(Instance::owned(value)));
        }
        if let Some(value) = map.get("multipleOf") {
            match value {
                Value::Number(n) if n.as_f64().is_some_and(|f| f > 0.0) => {
                    out.push(Keyword::MultipleOf(n.clone()))
                }
                _ => return Err(invalid(loc, "multipleOf", "must be a number above 0")),
            }
        }
        for (keyword, bound) in [
            ("minimum", Bound::Minimum),
            ("maximum", Bound::Maximum),
            ("exclusiveMinimum", Bound::ExclusiveMinimum),
            ("exclusiveMaximum", Bound::ExclusiveMaximum),
        ] {
            if draft == Draft::Draft4 {
                drafts::draft4_bound(map, loc, keyword, bound, &mut out)?;
                continue;
            }
            if let Some(value) = map.get(keyword) {
                let n = value
                    .as_number()
                    .ok_or_else(|| invalid(loc, keyword, "must be a number"))?;
                out.push(Keyword::Bound(bound, n.clone()));
            }
        }
        for counted in Counted::ALL {
            if let Some(n) = count_at(map, loc, counted.keyword())? {
                out.push(Keyword::Count(counted, n));
            }
        }
        if let Some(pattern) = map.get("pattern") {
            let source = pattern
                .as_str()
                .ok_or_else(|| invalid(loc, "pattern", "must be a string"))?;
            out.push(Keyword::Pattern(self.pattern(source)?));
        }
        if let (true, Some(format)) = (self.assert_formats, map.get("format")) {
            let name = format
                .as_str()
                .ok_or_else(|| invalid(loc, "format", "must be a string"))?;
            // A format the draft does not define is an annotation in it.
            if let Some(format) = Format::named(name).filter(|_| draft.has_format(name)) {
                out.push(Keyword::Format(format));
            }
        }
        self.array_keywords(map, loc, base, &mut out)?;
        self.object_keywords(map, loc, base, &mut out)?;
        self.combinators(map, loc, base, &mut out)?;
        if draft.is_legacy() {
            return Ok(out);
        }
        if map.contains_key("unevaluatedItems") {
            out.push(Keyword::UnevaluatedItems(self.child(
                loc,
                base,
                &["unevaluatedItems"],
            )?));
        }
        if map.contains_key("unevaluatedProperties") {
            out.push(Keyword::UnevaluatedProperties(self.child(
                loc,
                base,
                &["unevaluatedProperties"],
            )?));
        }
        Ok(out)
    }

    fn array_keywords(
        &mut self,
        map: &Map<String, Value>,
        loc: &Loc,
        base: &str,
        out: &mut Vec<Keyword>,
    ) -> Result<(), SchemaError> {
        if map.get("uniqueItems") == Some(&Value::Bool(true)) {
            out.push(Keyword::UniqueItems);
        }
        let draft = self.draft_at(loc);
        let mut after = 0;
        if let (true, Some(prefix)) = (draft.has("prefixItems"), map.get("prefixItems")) {
            let nodes = self.children(loc, base, "prefixItems", prefix)?;
            after = nodes.len();
            out.push(Keyword::PrefixItems(nodes));
        }
        match map.get("items") {
            // Before 2019-09: an array of schemas, then `additionalItems`.
            Some(items @ Value::Array(_)) if draft.has_item_arrays() => {
                self.item_array(map, items, loc, base, out)?;
            }
            Some(_) => {
                let node = self.child(loc, base, &["items"])?;
                out.push(Keyword::Items { node, after });
            }
            None => {}
        }
        if let (true, true) = (draft.has("contains"), map.contains_key("contains")) {
            let node = self.child(loc, base, &["contains"])?;
            let (min, max) = match draft.has("minContains") {
                true => (
                    count_at(map, loc, "minContains")?,
                    count_at(map, loc, "maxContains")?,
                ),
                false => (None, None),
            };
            out.push(Keyword::Contains {
                node,
                min: min.unwrap_or(1),
                max,
            });
        }
        Ok(())
    }

    fn object_keywords(
        &mut self,
        map: &Map<String, Value>,
        loc: &Loc,
        base: &str,
        out: &mut Vec<Keyword>,
    ) -> Result<(), SchemaError> {
        let names = |value: &Value, keyword: &str| names(loc, value, keyword);
        let draft = self.draft_at(loc);
        if let Some(required) = map.get("required") {
            out.push(Keyword::Required(names(required, "required")?));
        }
        // Drafts before 2019-09 define `dependencies`; later ones split it in
        // two but, as the suite's optional compatibility tests and Ajv do,
        // still read it.
        if let Some(Value::Object(dependencies)) = map.get("dependencies") {
            self.dependencies(dependencies, loc, base, out)?;
        }
        if let (true, Some(dependent)) =
            (draft.has("dependentRequired"), map.get("dependentRequired"))
        {
            let dependent = dependent
                .as_object()
                .ok_or_else(|| invalid(loc, "dependentRequired", "must be an object"))?;
            let mut pairs = Vec::new();
            for (name, required) in dependent {
                pairs.push((name.clone(), names(required, "dependentRequired")?));
            }
            out.push(Keyword::DependentRequired(pairs));
        }
        let mut declared = BTreeSet::new();
        if let Some(properties) = map.get("properties") {
            let named = self.named_children(loc, base, "properties", properties)?;
            declared.extend(named.iter().map(|(name, _)| name.clone()));
            out.push(Keyword::Properties(named));
        }
        let mut patterns = Vec::new();
        if let Some(pattern_properties) = map.get("patternProperties") {
            let named = self.named_children(loc, base, "patternProperties", pattern_properties)?;
            let mut compiled = Vec::with_capacity(named.len());
            for (source, node) in named {
                let pattern = self.pattern(&source)?;
                patterns.push(pattern.clone());
                compiled.push((pattern, node));
            }
            out.push(Keyword::PatternProperties(compiled));
        }
        if map.contains_key("additionalProperties") {
            let node = self.child(loc, base, &["additionalProperties"])?;
            out.push(Keyword::AdditionalProperties {
                node,
                declared,
                patterns,
            });
        }
        if draft.has("propertyNames") && map.contains_key("propertyNames") {
            out.push(Keyword::PropertyNames(self.child(
                loc,
                base,
                &["propertyNames"],
            )?));
        }
        if let (true, Some(dependent)) =
            (draft.has("dependentSchemas"), map.get("dependentSchemas"))
        {
            out.push(Keyword::DependentSchemas(self.named_children(
                loc,
                base,
                "dependentSchemas",
                dependent,
            )?));
        }
        Ok(())
    }

    fn combinators(
        &mut self,
        map: &Map<String, Value>,
        loc: &Loc,
        base: &str,
        out: &mut Vec<Keyword>,
    ) -> Result<(), SchemaError> {
        if let Some(all) = map.get("allOf") {
            out.push(Keyword::AllOf(self.children(loc, base, "allOf", all)?));
        }
        if let Some(any) = map.get("anyOf") {
            out.push(Keyword::AnyOf(self.children(loc, base, "anyOf", any)?));
        }
        if let Some(one) = map.get("oneOf") {
            out.push(Keyword::OneOf(self.children(loc, base, "oneOf", one)?));
        }
        if map.contains_key("not") {
            out.push(Keyword::Not(self.child(loc, base, &["not"])?));
        }
        if self.draft_at(loc).has("if") && map.contains_key("if") {
            let condition = self.child(loc, base, &["if"])?;
            let then = map
                .contains_key("then")
                .then(|| self.child(loc, base, &["then"]))
                .transpose()?;
            let otherwise = map
                .contains_key("else")
                .then(|| self.child(loc, base, &["else"]))
                .transpose()?;
            out.push(Keyword::If {
                condition,
                then,
                otherwise,
            });
        }
        Ok(())
    }

    /// Compiles every `$dynamicAnchor` a `$dynamicRef` may land on, in the
    /// documents reached, until no new one appears.
    fn dynamic_anchors(&mut self) -> Result<DynamicAnchors, SchemaError> {
        let mut dynamic = DynamicAnchors::default();
        loop {
            let pending: Vec<(String, String, Loc, String)> = self
                .index
                .dynamic_anchors()
                .filter(|(_, name, loc, _)| {
                    self.touched.contains(&loc.doc) && self.dynamic_names.contains(*name)
                })
                .map(|(resource, name, loc, base)| {
                    (
                        resource.to_owned(),
                        name.to_owned(),
                        loc.clone(),
                        base.to_owned(),
                    )
                })
                .filter(|(resource, name, _, _)| {
                    self.resources
                        .get(resource)
                        .is_none_or(|r| dynamic.get(*r, name).is_none())
                })
                .collect();
            if pending.is_empty() {
                return Ok(dynamic);
            }
            for (resource, name, loc, base) in pending {
                let node = self.node(loc, &base)?;
                let resource = self.resource(&resource);
                dynamic.insert(resource, name, node);
            }
        }
    }
}

/// A node that reaches itself through keywords that stay on the same value
/// (references, combinators), if any.
fn in_place_cycle(nodes: &[Node], dynamic: &DynamicAnchors) -> Option<NodeId> {
    let edges = |node: &Node| -> Vec<NodeId> {
        let mut next = Vec::new();
        for keyword in &node.keywords {
            match keyword {
                Keyword::Ref(target) | Keyword::Not(target) => next.push(*target),
                Keyword::DynamicRef { target, anchor } => {
                    next.push(*target);
                    if let Some(anchor) = anchor {
                        next.extend(dynamic.named(anchor));
                    }
                }
                Keyword::AllOf(all) | Keyword::AnyOf(all) | Keyword::OneOf(all) => next.extend(all),
                Keyword::DependentSchemas(named) => next.extend(named.iter().map(|(_, n)| *n)),
                Keyword::If {
                    condition,
                    then,
                    otherwise,
                } => {
                    next.push(*condition);
                    next.extend(then.iter().chain(otherwise));
                }
                _ => {}
            }
        }
        next
    };
    // Iterative depth-first search with colours: 0 unseen, 1 on the path, 2 done.
    let mut colour = vec![0u8; nodes.len()];
    for start in 0..nodes.len() {
        if colour[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, edges(&nodes[start]), 0usize)];
        colour[start] = 1;
        while let Some((node, next, i)) = stack.last_mut() {
            if let Some(&to) = next.get(*i) {
                *i += 1;
                match colour[to] {
                    1 => return Some(to),
                    0 => {
                        colour[to] = 1;
                        let out = edges(&nodes[to]);
                        stack.push((to, out, 0));
                    }
                    _ => {}
                }
            } else {
                colour[*node] = 2;
                stack.pop();
            }
        }
    }
    None
}
