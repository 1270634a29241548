//! The keywords that look inside arrays and objects.

use std::borrow::Cow;

use super::super::compile::{Keyword, Program};
use super::super::instance::{equal, Instance};
use super::super::pattern::Matched;
use super::{mark, over_budget, plural, show, Eval, Marks, Path};

/// An object's entry the schema does not name: its position, name and value.
type Extra<'a, 't> = (usize, &'a str, &'a Instance<'t>);

fn names(names: &[&str]) -> String {
    names
        .iter()
        .map(|name| format!("'{name}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn rejects_all(program: &Program, node: usize) -> bool {
    program.nodes.get(node).is_some_and(|node| node.reject_all)
}

impl Eval<'_> {
    pub(super) fn array_keyword(
        &mut self,
        keyword: &Keyword,
        value: &Instance<'_>,
        items: &[Instance<'_>],
        path: &Path<'_>,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        match keyword {
            Keyword::UniqueItems => self.check(
                items
                    .iter()
                    .enumerate()
                    .all(|(i, a)| items[i + 1..].iter().all(|b| !equal(a, b))),
                path,
                "uniqueItems",
                || format!("{} has non-unique elements", show(value)),
            ),
            Keyword::PrefixItems(nodes) => {
                let mut ok = true;
                for (i, (node, item)) in nodes.iter().zip(items).enumerate() {
                    ok &= self.node(*node, item, &Path::Index(path, i), None);
                    mark(&mut marks, None, Some(i));
                    if !ok && self.errors.is_none() {
                        break;
                    }
                }
                ok
            }
            Keyword::Items { node, after } => {
                self.each_item(*node, items, *after, |_| true, path, &mut marks)
            }
            Keyword::UnevaluatedItems(node) => {
                let seen: Vec<bool> = marks
                    .as_deref()
                    .map(|m| m.items.clone())
                    .unwrap_or_default();
                let unseen = |i: usize| !seen.get(i).copied().unwrap_or(false);
                if rejects_all(self.program, *node) {
                    let extra = (0..items.len()).filter(|&i| unseen(i)).count();
                    if extra > 0 {
                        self.fail(path, "unevaluatedItems", || {
                            format!("Unevaluated items are not allowed ({extra} unexpected)")
                        });
                        return false;
                    }
                    return true;
                }
                self.each_item(*node, items, 0, unseen, path, &mut marks)
            }
            Keyword::Contains { node, min, max } => {
                let mut found = 0u64;
                for (i, item) in items.iter().enumerate() {
                    let item_path = Path::Index(path, i);
                    if self.quietly(|eval| eval.node(*node, item, &item_path, None)) {
                        found += 1;
                        mark(&mut marks, None, Some(i));
                    }
                }
                if found < *min {
                    let keyword = if *min == 1 { "contains" } else { "minContains" };
                    self.fail(path, keyword, || {
                        if *min == 1 {
                            format!("None of {} are valid under the given schema", show(value))
                        } else {
                            format!(
                                "{} has fewer than {} matching the given schema",
                                show(value),
                                plural(*min, "item", "items")
                            )
                        }
                    });
                    return false;
                }
                if max.is_some_and(|max| found > max) {
                    self.fail(path, "maxContains", || {
                        format!(
                            "{} has more than {} matching the given schema",
                            show(value),
                            plural(max.unwrap_or(0), "item", "items")
                        )
                    });
                    return false;
                }
                true
            }
            _ => true,
        }
    }

    fn each_item(
        &mut self,
        node: usize,
        items: &[Instance<'_>],
        after: usize,
        select: impl Fn(usize) -> bool,
        path: &Path<'_>,
        marks: &mut Option<&mut Marks>,
    ) -> bool {
        let mut ok = true;
        for (i, item) in items.iter().enumerate().skip(after) {
            if !select(i) {
                continue;
            }
            ok &= self.node(node, item, &Path::Index(path, i), None);
            mark(marks, None, Some(i));
            if !ok && self.errors.is_none() {
                break;
            }
        }
        ok
    }

    pub(super) fn object_keyword(
        &mut self,
        keyword: &Keyword,
        value: &Instance<'_>,
        path: &Path<'_>,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        let Instance::Object(map) = value else {
            return true;
        };
        match keyword {
            Keyword::Required(required) => self.required(required, value, path),
            Keyword::DependentRequired(pairs) => {
                let mut ok = true;
                for (name, required) in pairs {
                    if value.has(name) {
                        ok &= self.required(required, value, path);
                    }
                }
                ok
            }
            Keyword::DependentSchemas(named) => {
                let mut ok = true;
                for (name, node) in named {
                    if value.has(name) {
                        ok &= self.node(*node, value, path, marks.as_deref_mut());
                        if !ok && self.errors.is_none() {
                            break;
                        }
                    }
                }
                ok
            }
            Keyword::Properties(named) => {
                let mut ok = true;
                for (i, (key, item)) in map.iter().enumerate() {
                    if let Ok(at) =
                        named.binary_search_by(|(name, _)| name.as_str().cmp(key.as_ref()))
                    {
                        ok &= self.node(named[at].1, item, &Path::Key(path, key), None);
                        mark(&mut marks, Some(i), None);
                        if !ok && self.errors.is_none() {
                            break;
                        }
                    }
                }
                ok
            }
            Keyword::PatternProperties(patterns) => {
                let mut ok = true;
                for (i, (key, item)) in map.iter().enumerate() {
                    for (pattern, node) in patterns {
                        match pattern.matches(key, &mut self.budget) {
                            Matched::Yes => {
                                ok &= self.node(*node, item, &Path::Key(path, key), None);
                                mark(&mut marks, Some(i), None);
                            }
                            Matched::No => {}
                            Matched::TooLong { max_chars } => {
                                self.fail(&Path::Key(path, key), "patternProperties", || {
                                    format!("the property name is too long to check against \"{}\" safely (at most {max_chars} characters)", pattern.source())
                                });
                                ok = false;
                            }
                            Matched::OverBudget => {
                                self.fail(&Path::Key(path, key), "patternProperties", || {
                                    over_budget(pattern.source())
                                });
                                ok = false;
                            }
                        }
                    }
                    if !ok && self.errors.is_none() {
                        break;
                    }
                }
                ok
            }
            Keyword::AdditionalProperties {
                node,
                declared,
                patterns,
            } => {
                // A name a pattern could not be checked against counts as
                // matched here: `patternProperties` reports it.
                let mut extra: Vec<Extra<'_, '_>> = Vec::new();
                for (i, (key, item)) in map.iter().enumerate() {
                    if declared.contains(key.as_ref()) {
                        continue;
                    }
                    let budget = &mut self.budget;
                    if !patterns
                        .iter()
                        .any(|p| !matches!(p.matches(key, budget), Matched::No))
                    {
                        extra.push((i, key.as_ref(), item));
                    }
                }
                self.extra_properties(
                    *node,
                    "additionalProperties",
                    "Additional",
                    &extra,
                    path,
                    &mut marks,
                )
            }
            Keyword::UnevaluatedProperties(node) => {
                let seen: Vec<bool> = marks
                    .as_deref()
                    .map(|m| m.properties.clone())
                    .unwrap_or_default();
                let extra: Vec<Extra<'_, '_>> = map
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !seen.get(*i).copied().unwrap_or(false))
                    .map(|(i, (key, item))| (i, key.as_ref(), item))
                    .collect();
                self.extra_properties(
                    *node,
                    "unevaluatedProperties",
                    "Unevaluated",
                    &extra,
                    path,
                    &mut marks,
                )
            }
            Keyword::PropertyNames(node) => {
                let mut ok = true;
                for (key, _) in map {
                    let name = Instance::String(Cow::Borrowed(key));
                    ok &= self.node(*node, &name, &Path::Key(path, key), None);
                    if !ok && self.errors.is_none() {
                        break;
                    }
                }
                ok
            }
            _ => true,
        }
    }

    fn required(&mut self, required: &[String], value: &Instance<'_>, path: &Path<'_>) -> bool {
        let mut ok = true;
        for name in required {
            if !value.has(name) {
                ok = false;
                self.fail(path, "required", || {
                    format!("\"{name}\" is a required property")
                });
                if self.errors.is_none() {
                    break;
                }
            }
        }
        ok
    }

    fn extra_properties(
        &mut self,
        node: usize,
        keyword: &'static str,
        which: &str,
        extra: &[Extra<'_, '_>],
        path: &Path<'_>,
        marks: &mut Option<&mut Marks>,
    ) -> bool {
        if extra.is_empty() {
            return true;
        }
        if rejects_all(self.program, node) {
            let unexpected: Vec<&str> = extra.iter().map(|(_, key, _)| *key).collect();
            self.fail(path, keyword, || {
                let verb = if unexpected.len() == 1 { "was" } else { "were" };
                format!(
                    "{which} properties are not allowed ({} {verb} unexpected)",
                    names(&unexpected)
                )
            });
            return false;
        }
        let mut ok = true;
        for (i, key, item) in extra {
            ok &= self.node(node, item, &Path::Key(path, key), None);
            mark(marks, Some(*i), None);
            if !ok && self.errors.is_none() {
                break;
            }
        }
        ok
    }
}
