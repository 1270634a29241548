//! Where each identifier of a schema document points: `$id`s, `$anchor`s and
//! `$dynamicAnchor`s, found by walking the keywords that hold subschemas
//! (an `$id` inside `enum` or an unknown keyword identifies nothing).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::dialect::Draft;
use super::uri;
use super::SchemaError;

/// A place in one of the documents: the document's number and a JSON Pointer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Loc {
    pub(super) doc: usize,
    pub(super) pointer: String,
}

impl Loc {
    pub(super) fn root(doc: usize) -> Loc {
        Loc {
            doc,
            pointer: String::new(),
        }
    }

    pub(super) fn join(&self, tokens: &[&str]) -> Loc {
        let mut pointer = self.pointer.clone();
        for token in tokens {
            pointer.push('/');
            pointer.push_str(&uri::escape_token(token));
        }
        Loc {
            doc: self.doc,
            pointer,
        }
    }
}

/// A target and the base URI around it (before its own `$id`).
type Target = (Loc, String);

/// The identifiers of some documents, over those of the documents below
/// (the meta-schemas, indexed once for every schema compiled; theirs are
/// found first).
#[derive(Debug, Default)]
pub(super) struct Index {
    resources: HashMap<String, Target>,
    anchors: HashMap<String, Target>,
    /// `(resource, name, location, base around it)`.
    dynamic: Vec<(String, String, Loc, String)>,
    dynamic_keys: HashSet<String>,
    below: Option<&'static Index>,
    /// The draft of the documents this layer indexes.
    draft: Draft,
}

const SINGLE: [&str; 11] = [
    "additionalProperties",
    "propertyNames",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
const NAMED: [&str; 4] = [
    "$defs",
    "properties",
    "patternProperties",
    "dependentSchemas",
];
const LISTED: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
/// Where drafts before 2020-12 hold subschemas besides (`items` as an
/// array, `additionalItems`), and those before 2019-09 too.
const LEGACY_SINGLE: [&str; 1] = ["additionalItems"];
const LEGACY_LISTED: [&str; 1] = ["items"];
const LEGACY_NAMED: [&str; 2] = ["definitions", "dependencies"];

impl Index {
    /// An index of further documents over `below`.
    pub(super) fn over(below: &'static Index, draft: Draft) -> Index {
        Index {
            below: Some(below),
            draft,
            ..Index::default()
        }
    }

    /// The layers, the lowest first.
    fn layers(&self) -> impl Iterator<Item = &Index> {
        self.below.into_iter().chain(std::iter::once(self))
    }

    /// Indexes document `doc`, whose base URI is `base`.
    pub(super) fn walk(&mut self, doc: usize, value: &Value, base: &str) {
        if value.get(self.draft.id_keyword()).is_none() {
            self.resources
                .insert(base.to_owned(), (Loc::root(doc), base.to_owned()));
        }
        self.walk_at(Loc::root(doc), value, base);
    }

    fn walk_at(&mut self, loc: Loc, value: &Value, outer: &str) {
        let Value::Object(map) = value else {
            return;
        };
        let mut base = outer.to_owned();
        let legacy = self.draft.is_legacy();
        // Before 2019-09, `$ref` overrides its siblings, `$id` among them.
        let id = match legacy && map.contains_key("$ref") {
            true => None,
            false => map.get(self.draft.id_keyword()).and_then(Value::as_str),
        };
        if let Some(id) = id {
            let resolved = uri::resolve(outer, id);
            let (resource, fragment) = uri::split_fragment(&resolved);
            // Before 2019-09, an `$id` with a plain-name fragment is an
            // anchor (`"$id": "#foo"`, or `"other.json#foo"`).
            if legacy && !fragment.is_empty() && !fragment.starts_with('/') {
                self.anchors
                    .insert(resolved.clone(), (loc.clone(), outer.to_owned()));
            }
            // A resource of its own only when it names another one than
            // the schema around it (`"$id": "#foo"` alone does not).
            if uri::split_fragment(outer).0 != resource {
                base = resource.to_owned();
                self.resources
                    .insert(base.clone(), (loc.clone(), outer.to_owned()));
            }
        }
        if let Some(anchor) = map.get("$anchor").and_then(Value::as_str) {
            self.anchors
                .insert(format!("{base}#{anchor}"), (loc.clone(), outer.to_owned()));
        }
        // 2019-09: `$recursiveAnchor: true` at a resource's root is that
        // resource's dynamic anchor, under the empty name no `$dynamicAnchor`
        // can have.
        let recursive = self.draft == Draft::Draft2019
            && map.get("$recursiveAnchor") == Some(&Value::Bool(true))
            && (id.is_some() || loc.pointer.is_empty());
        if recursive {
            self.dynamic_keys.insert(format!("{base}#"));
            self.dynamic
                .push((base.clone(), String::new(), loc.clone(), outer.to_owned()));
        }
        if let Some(anchor) = map.get("$dynamicAnchor").and_then(Value::as_str) {
            let key = format!("{base}#{anchor}");
            self.anchors
                .insert(key.clone(), (loc.clone(), outer.to_owned()));
            self.dynamic_keys.insert(key);
            self.dynamic.push((
                base.clone(),
                anchor.to_owned(),
                loc.clone(),
                outer.to_owned(),
            ));
        }
        let arrays = self.draft.has_item_arrays();
        let (single, listed): (&[&str], &[&str]) = match arrays {
            true => (&LEGACY_SINGLE, &LEGACY_LISTED),
            false => (&[], &[]),
        };
        let named: &[&str] = if legacy { &LEGACY_NAMED } else { &[] };
        for keyword in SINGLE.iter().chain(single) {
            if let Some(child) = map.get(*keyword) {
                self.walk_at(loc.join(&[keyword]), child, &base);
            }
        }
        for keyword in NAMED.iter().chain(named) {
            if let Some(Value::Object(children)) = map.get(*keyword) {
                for (name, child) in children {
                    self.walk_at(loc.join(&[keyword, name]), child, &base);
                }
            }
        }
        for keyword in LISTED.iter().chain(listed) {
            if let Some(Value::Array(children)) = map.get(*keyword) {
                for (i, child) in children.iter().enumerate() {
                    self.walk_at(loc.join(&[keyword, &i.to_string()]), child, &base);
                }
            }
        }
    }

    /// The value at a location.
    pub(super) fn value_at<'d>(docs: &[&'d Value], loc: &Loc) -> Option<&'d Value> {
        docs.get(loc.doc)?.pointer(&loc.pointer)
    }

    /// Where an absolute URI points, and the base URI around it; a URI
    /// outside the documents is refused as not self-contained.
    pub(super) fn locate(&self, docs: &[&Value], absolute: &str) -> Result<Target, SchemaError> {
        let (resource, fragment) = uri::split_fragment(absolute);
        let (root, outer) = self
            .layers()
            .find_map(|layer| layer.resources.get(resource))
            .ok_or_else(|| SchemaError::NotSelfContained {
                reference: resource.to_owned(),
            })?;
        let unresolvable =
            || SchemaError::Invalid(format!("the reference `{absolute}` points at nothing"));
        if fragment.is_empty() {
            return Ok((root.clone(), outer.clone()));
        }
        let fragment = uri::percent_decode(fragment).ok_or_else(unresolvable)?;
        if !fragment.starts_with('/') {
            let key = format!("{resource}#{fragment}");
            return self
                .layers()
                .find_map(|layer| layer.anchors.get(&key))
                .cloned()
                .ok_or_else(unresolvable);
        }
        let tokens = uri::pointer_tokens(&fragment).ok_or_else(unresolvable)?;
        let mut value = Self::value_at(docs, root).ok_or_else(unresolvable)?;
        let mut base = outer.clone();
        let mut loc = root.clone();
        for token in &tokens {
            if let Some(id) = value.get(self.draft.id_keyword()).and_then(Value::as_str) {
                base = uri::split_fragment(&uri::resolve(&base, id)).0.to_owned();
            }
            value = match value {
                Value::Object(map) => map.get(token),
                Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            }
            .ok_or_else(unresolvable)?;
            loc = loc.join(&[token]);
        }
        Ok((loc, base))
    }

    /// Whether `uri#name` names a `$dynamicAnchor`.
    pub(super) fn is_dynamic_anchor(&self, absolute: &str) -> bool {
        self.layers()
            .any(|layer| layer.dynamic_keys.contains(absolute))
    }

    /// Every `$dynamicAnchor`: resource, name, location, base around it.
    pub(super) fn dynamic_anchors(&self) -> impl Iterator<Item = (&str, &str, &Loc, &str)> {
        self.layers()
            .flat_map(|layer| &layer.dynamic)
            .map(|(resource, name, loc, base)| {
                (resource.as_str(), name.as_str(), loc, base.as_str())
            })
    }

    /// The base URI around a document's root.
    pub(super) fn base_of(&self, loc: &Loc) -> &str {
        self.layers()
            .flat_map(|layer| layer.resources.values())
            .find(|(at, _)| at == loc)
            .map_or(super::compile::DEFAULT_BASE, |(_, base)| base.as_str())
    }
}
